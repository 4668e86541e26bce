// OnionVoice's own scheduling policy, built for a robust tail rather than a low median:
//  - tail rule: a link is judged by the largest delay known for it over the last second (the
//    peer's reports, our view of the reverse direction, overdue acknowledgements; one round trip
//    late), drained from when it was first known, less a slack, never by a lucky newest sample
//    alone; a link with no news for longer (a delay known again is none: the peer repeats its
//    last report of a link we left) by its usual delay, not as if it had become good, and at
//    least by what the links it spikes together with show now (a guard's queue is on its quiet
//    links too, unseen);
//  - rotation: each packet goes to a link with one of the smallest tails, never to the previous
//    packet's link, and to the one before, if that spiked lately, only when a third link is
//    clearly worse, so a frame and its two piggybacked copies travel on different TCP streams
//    while the links are unsettled; equally good links take turns;
//  - diversity: among those, the link least prone to spike together with the links of the
//    previous packets (learnt from simultaneous delay excursions: links behind one guard do);
//  - exploration: now and then, in trouble too, the copy budget sends a packet's second copy to
//    the live link that has been idle longest, so every link carries traffic and its
//    measurements (and the peer's reports of it) stay fresh: that, not optimism about idle
//    links, is how a link that got better is found;
//  - what the budget does not spend exploring buys a second copy while the chosen link's tail is
//    bad or a spike has just begun on a link in use.
#pragma once

#include "LinkTails.h"
#include "SchedulingPolicy.h"

namespace onionvoice::multipath {

struct AdaptiveTuning {
    // Extra copies allowed, as a fraction of packets (the cell budget above one cell per packet).
    double duplicateBudget = 0.045;
    // Cost added to the link of the packet before the previous one if it spiked (rose by the
    // tails' excursion over its baseline) within reuseAfterSpike: a third stream keeps a frame's
    // three copies apart unless it is this much slower. On links that have been calm that long,
    // keeping the frames on the two fastest links is worth more (tuning set, README: 10-120 s).
    Millis reusePenalty{18};
    Millis reuseAfterSpike{30000};
    // Links whose costs differ by less than this count as equally good (then: least recently used).
    Millis tieMargin{8};
    // Cost added to a link that spikes together with the previous packet's link (half for the
    // packet before), once the co-spiking ratio (LinkTails::coSpiking) reaches the evidence level;
    // from that level too a quiet link shares its partners' spikes (LinkTails::tailWithPartners).
    double coSpikePenaltyMs = 40;
    double coSpikeEvidence = 0.3;
    // A second copy is sent while the chosen link's tail exceeds this.
    Millis troubleMargin{100};
    // How long after a spike begins on a recently used link second copies are sent.
    Millis onsetWindow{200};
    // ... if the link carried a packet this recently (about a round trip: its frames are in the
    // spike).
    Millis recentUse{700};
    // Grace beyond the fastest round trip before an unacknowledged record counts as overdue: the
    // peer acknowledges only with its next record, one packet period later at most.
    Millis ackSlack{60};
    // A live link idle this long gets a second copy of the next packet, from the copy budget (at
    // most one per exploreEvery), before any copy that hedges a spike: a call in trouble is when
    // an idle link that recovered is worth most.
    Millis exploreAfter{3000};
    Millis exploreEvery{1000};
    TailSettings tails{};
};

class AdaptivePolicy final : public SchedulingPolicy {
public:
    explicit AdaptivePolicy(AdaptiveTuning tuning = {});
    std::string_view name() const override { return "adaptive"; }
    std::optional<double> rankKey(const std::optional<LinkScore>& score) const override;
    LinkSelection select(const SchedulingContext& context) override;
    void linkReset(LinkId link) override;

    const LinkTails& tails() const { return tails_; }

private:
    struct Candidate {
        LinkId link;
        Millis tail;
        Time lastUsed;
    };
    void learn(const SchedulingContext& c, std::span<const LinkId> upLinks);
    double diversityCost(LinkId link) const;
    const Candidate* explorationTarget(Time now, std::span<const Candidate> candidates,
                                       LinkId chosen) const;

    AdaptiveTuning tuning_;
    LinkTails tails_;
    std::array<LinkId, 2> recent_{kNoLink, kNoLink}; // links of the last two packets, newest first
    double credit_ = 0;                              // duplicate copies that may still be sent
    std::optional<Time> lastExplored_;
    std::optional<Time> lastSelect_;
    Time packetPeriod_{}; // smoothed time between packets: the peer holds acknowledgements as long
};

} // namespace onionvoice::multipath
