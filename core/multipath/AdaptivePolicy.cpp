// OnionVoice's adaptive policy (see AdaptivePolicy.h for the idea).
#include "AdaptivePolicy.h"

#include <algorithm>
#include <span>

namespace onionvoice::multipath {
namespace {

// The round trip an acknowledgement needs at best: the fastest link's smoothed RTT.
std::optional<Millis> fastestRoundTrip(const SchedulingContext& c, std::span<const LinkId> links) {
    std::optional<Millis> best;
    for (LinkId link : links)
        if (const auto rtt = c.monitor.rtt(link); rtt && (!best || *rtt < *best))
            best = rtt;
    return best;
}

// The longest packet period a call negotiates (call/Handshake): a longer pause between packets is
// not the peer's hold.
constexpr Time kLongestPacketPeriod = std::chrono::milliseconds(60);

} // namespace

AdaptivePolicy::AdaptivePolicy(AdaptiveTuning tuning)
    : tuning_(tuning)
    , tails_(tuning.tails) {}

std::optional<double> AdaptivePolicy::rankKey(const std::optional<LinkScore>& score) const {
    if (!score)
        return std::nullopt;
    return double(std::max(score->windowDelay, score->currentDelay).count());
}

// What is known now of each live link's delay in our direction, above the fastest path: the
// peer's report (exact, one trip late), our own view of the reverse direction of the same circuit
// (half a trip late: a guard's congestion hits both directions), and how overdue the
// acknowledgement of our oldest record on it is (a stall that hides every record shows there
// first). A link that went down or was replaced is forgotten (linkReset).
// The peer acknowledges with its next record, so an acknowledgement waits there half a packet
// period on average beyond the round trip; left in, it made every link in use look that much
// slower than it was (on tuning calls of `calm`, 3 % of the estimates of links in use were more
// than 30 ms above their true delay through this channel alone).
void AdaptivePolicy::learn(const SchedulingContext& c, std::span<const LinkId> upLinks) {
    const auto ackRoundTrip = fastestRoundTrip(c, upLinks);
    const auto ackHold = std::chrono::duration_cast<Millis>(packetPeriod_ / 2);
    for (LinkId link : upLinks) {
        std::optional<Millis> known;
        if (const auto remote = c.monitor.remoteScore(c.now, link))
            known = remote->currentDelay;
        if (const auto local = c.monitor.localScore(c.now, link))
            known = std::max(known.value_or(Millis{0}), local->currentDelay);
        if (const auto waiting = c.delivery.oldestUnacknowledged(c.now, link);
            waiting && ackRoundTrip && *waiting > *ackRoundTrip + tuning_.ackSlack)
            known = std::max(known.value_or(Millis{0}), *waiting - *ackRoundTrip - ackHold);
        if (known)
            tails_.observe(c.now, link, *known);
    }
    tails_.updatePairs(c.now);
}

// Links count as spiking together once the evidence is clear; weaker correlations are mostly
// chance, and paying for them would push packets onto slower links for nothing.
double AdaptivePolicy::diversityCost(LinkId link) const {
    double cost = 0;
    double weight = 1.0;
    for (LinkId previous : recent_) {
        if (previous != kNoLink && previous != link &&
            tails_.coSpiking(link, previous) >= tuning_.coSpikeEvidence)
            cost += weight;
        weight /= 2;
    }
    return tuning_.coSpikePenaltyMs * cost;
}

// A new circuit in the slot is neither the slow one that was there nor the previous packet's.
void AdaptivePolicy::linkReset(LinkId link) {
    tails_.forget(link);
    std::replace(recent_.begin(), recent_.end(), link, kNoLink);
}

// The live link idle longest (a link never used first), once it has been idle for exploreAfter;
// at most one per exploreEvery. It carries a second copy of the
// packet, so the frame is never left to a link that may have gone bad.
const AdaptivePolicy::Candidate*
AdaptivePolicy::explorationTarget(Time now, std::span<const Candidate> candidates,
                                  LinkId chosen) const {
    if (now - *lastExplored_ < tuning_.exploreEvery)
        return nullptr;
    const Candidate* idlest = nullptr;
    for (const Candidate& cand : candidates)
        if (cand.link != chosen && (!idlest || cand.lastUsed < idlest->lastUsed))
            idlest = &cand;
    return idlest && idlest->lastUsed <= now - tuning_.exploreAfter ? idlest : nullptr;
}

LinkSelection AdaptivePolicy::select(const SchedulingContext& c) {
    // Every live link is a candidate: when a guard's congestion hits the whole active set at
    // once, the way out is often a link that was idle.
    const auto upLinks = c.groups.upLinks();
    if (lastSelect_) {
        // Smoothed: a call's packets may leave in pairs when the audio thread catches up.
        const Time interval = std::min(c.now - *lastSelect_, kLongestPacketPeriod);
        packetPeriod_ =
            packetPeriod_ == Time{} ? interval : packetPeriod_ + (interval - packetPeriod_) / 16;
    }
    lastSelect_ = c.now;
    learn(c, upLinks);
    if (!lastExplored_)
        lastExplored_ = c.now; // the first exploration one period into the call
    LinkSelection s;
    if (upLinks.empty())
        return s;
    std::vector<Candidate> candidates;
    candidates.reserve(upLinks.size());
    for (LinkId link : upLinks)
        candidates.push_back(
            {link, tails_.tailWithPartners(c.now, link, upLinks, tuning_.coSpikeEvidence),
             c.groups.lastUsed(link).value_or(Time::min())});
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.tail != b.tail ? a.tail < b.tail : a.lastUsed < b.lastUsed;
    });

    // Never the previous packet's link while another is up (its record carries this frame's
    // predecessor); the link before that, if it spiked lately, only when it is clearly better
    // than a third stream.
    // Among links about equally good, the least prone to spike with the previous packets' links,
    // then the least recently used, so the good links take turns and stay measured.
    const auto spikedLately = [&](LinkId link) {
        const auto last = tails_.lastSpike(link);
        return last && c.now - *last <= tuning_.reuseAfterSpike;
    };
    const auto cost = [&](const Candidate& cand) {
        const bool reuse = cand.link == recent_[1] && spikedLately(cand.link);
        return double(cand.tail.count()) + diversityCost(cand.link) +
               (reuse ? double(tuning_.reusePenalty.count()) : 0.0);
    };
    const Candidate* chosen = nullptr;
    double chosenCost = 0;
    for (const Candidate& cand : candidates) {
        if (cand.link == recent_[0] && candidates.size() > 1)
            continue;
        const double v = cost(cand);
        const bool better = !chosen || v < chosenCost - double(tuning_.tieMargin.count()) ||
                            (v <= chosenCost + double(tuning_.tieMargin.count()) &&
                             cand.lastUsed < chosen->lastUsed);
        if (better) {
            chosen = &cand;
            chosenCost = v;
        }
    }

    recent_ = {chosen->link, recent_[0]};
    credit_ = std::min(credit_ + tuning_.duplicateBudget, 4.0);
    s.add(chosen->link);
    if (credit_ < 1.0)
        return s;
    // Exploration comes first, in trouble too. A link left in a stall is believed slow until it
    // carries a record again, and a call in trouble is exactly when a recovered idle link is worth
    // most: spending the budget on the other busy link instead kept a call (hostile seed 1, call
    // 14) on 300-ms links for fifteen seconds while a 167-ms link sat idle, believed at 800 ms.
    if (const Candidate* idle = explorationTarget(c.now, candidates, chosen->link)) {
        s.add(idle->link);
        credit_ -= 1.0;
        lastExplored_ = c.now;
        return s;
    }
    // Trouble: the chosen link, the best choice there is, has a bad tail. A second copy on the
    // link that spikes least with it hedges against the spike building up again.
    // Or a spike has just begun on a link that carried one of the last packets: the frames it
    // holds (and, if the spike is a guard's, those on the links behind the same guard) now rely
    // on their piggybacked copies, so this record goes out twice.
    const auto justHit = [&](const Candidate& cand) {
        const auto start = tails_.spikeStart(cand.link);
        return start && c.now - *start <= tuning_.onsetWindow &&
               cand.lastUsed >= c.now - tuning_.recentUse;
    };
    const bool onset = std::any_of(candidates.begin(), candidates.end(), justHit);
    const bool trouble = chosen->tail > tuning_.troubleMargin || onset;
    if (trouble && candidates.size() > 1) {
        const Candidate* second = nullptr;
        double best = 0;
        for (const Candidate& cand : candidates) {
            if (cand.link == chosen->link)
                continue;
            const bool together =
                tails_.coSpiking(cand.link, chosen->link) >= tuning_.coSpikeEvidence;
            const double v = double(cand.tail.count()) + (together ? tuning_.coSpikePenaltyMs : 0);
            if (!second || v < best) {
                second = &cand;
                best = v;
            }
        }
        s.add(second->link);
        credit_ -= 1.0;
    }
    return s;
}

} // namespace onionvoice::multipath
