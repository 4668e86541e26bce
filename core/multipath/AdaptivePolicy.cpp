// OnionVoice's adaptive policy (see AdaptivePolicy.h for the idea).
#include "AdaptivePolicy.h"

#include <algorithm>
#include <span>

namespace onionvoice::multipath {
namespace {

struct Candidate {
    LinkId link;
    Millis delay;
    Time lastUsed;
};

// The round trip an acknowledgement needs at best: the fastest link's smoothed RTT.
std::optional<Millis> fastestRoundTrip(const SchedulingContext& c, std::span<const LinkId> links) {
    std::optional<Millis> best;
    for (LinkId link : links)
        if (const auto rtt = c.monitor.rtt(link); rtt && (!best || *rtt < *best))
            best = rtt;
    return best;
}

// What the policy expects a packet sent now on this link to suffer, as delay above the fastest
// path: the worst of the peer's view of this direction (exact, but one trip late), our view of the
// reverse direction of the same circuit (current, but only a proxy), and how overdue the peer's
// acknowledgement of our oldest record on the link is (sees a stall that hides every record).
std::optional<Millis> expectedDelay(const SchedulingContext& c, LinkId link,
                                    std::optional<Millis> ackRoundTrip, Millis ackSlack) {
    std::optional<Millis> delay;
    const auto consider = [&delay](Millis d) {
        delay = delay ? std::max(*delay, d) : d;
    };
    if (const auto local = c.monitor.localScore(c.now, link))
        consider(local->currentDelay);
    if (const auto remote = c.monitor.remoteScore(c.now, link))
        consider(remote->currentDelay);
    if (const auto waiting = c.delivery.oldestUnacknowledged(c.now, link); waiting && ackRoundTrip)
        if (*waiting > *ackRoundTrip + ackSlack)
            consider(*waiting - *ackRoundTrip);
    return delay;
}

} // namespace

AdaptivePolicy::AdaptivePolicy(AdaptiveTuning tuning)
    : tuning_(tuning) {}

std::optional<double> AdaptivePolicy::rankKey(const std::optional<LinkScore>& score) const {
    if (!score)
        return std::nullopt;
    return double(std::max(score->windowDelay, score->currentDelay).count());
}

LinkSelection AdaptivePolicy::select(const SchedulingContext& c) {
    // Every live link is a candidate: when a guard's congestion hits the whole active set at
    // once, the way out is often a link that was idle.
    const auto upLinks = c.groups.upLinks();
    const auto ackRoundTrip = fastestRoundTrip(c, upLinks);
    std::vector<Candidate> candidates;
    for (LinkId link : upLinks)
        candidates.push_back({link,
                              expectedDelay(c, link, ackRoundTrip, tuning_.ackSlack)
                                  .value_or(tuning_.unmeasuredDelay),
                              c.groups.lastUsed(link).value_or(Time::min())});
    LinkSelection s;
    if (candidates.empty())
        return s;
    // Best expected delay first; among links within a few ms of each other, the least recently
    // used, which spreads load and keeps every good link measured.
    constexpr Millis kTie{8};
    std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
        const auto qa = a.delay / kTie, qb = b.delay / kTie;
        if (qa != qb)
            return qa < qb;
        return a.lastUsed < b.lastUsed;
    });
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [&](const Candidate& cand) { return cand.link != c.previousLink; });
    if (it == candidates.end())
        it = candidates.begin();
    s.add(it->link);

    credit_ = std::min(credit_ + tuning_.duplicateBudget, 4.0);
    // Trouble: even the link chosen, the best one usable now, is slow. A second copy on the next
    // best link then hedges against a spike that is building up on both.
    const bool trouble = it->delay > tuning_.troubleMargin;
    if (trouble && credit_ >= 1.0 && candidates.size() > 1) {
        // The best other link, even the previous packet's: the piggyback rule (a frame never
        // twice on one link) is kept per record by the sender.
        const auto second =
            std::find_if(candidates.begin(), candidates.end(),
                         [&](const Candidate& cand) { return !s.contains(cand.link); });
        s.add(second->link);
        credit_ -= 1.0;
    }
    return s;
}

} // namespace onionvoice::multipath
