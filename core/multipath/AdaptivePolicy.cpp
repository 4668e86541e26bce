// OnionVoice's adaptive policy (see AdaptivePolicy.h for the idea).
#include "AdaptivePolicy.h"

#include <algorithm>

namespace onionvoice::multipath {
namespace {

struct Candidate {
    LinkId link;
    Millis delay;
    Time lastUsed;
};

// What the policy expects a packet sent now on this link to suffer: the worse of the two sides'
// current views (the peer measures exactly this direction, but late; we measure the reverse
// direction of the same circuit, but now), falling back to the merged window view.
std::optional<Millis> expectedDelay(const SchedulingContext& c, LinkId link) {
    const auto local = c.monitor.localScore(c.now, link);
    const auto remote = c.monitor.remoteScore(c.now, link);
    if (local && remote)
        return std::max(local->currentDelay, remote->currentDelay);
    if (local)
        return local->currentDelay;
    if (remote)
        return remote->currentDelay;
    return std::nullopt;
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
    std::vector<LinkId> pool = c.groups.members(LinkGroup::First);
    const auto& second = c.groups.members(LinkGroup::Second);
    pool.insert(pool.end(), second.begin(), second.end());
    if (pool.empty())
        pool = c.groups.upLinks();

    std::vector<Candidate> candidates;
    std::vector<Millis> known;
    for (LinkId link : pool) {
        const auto d = expectedDelay(c, link);
        if (d)
            known.push_back(*d);
        candidates.push_back(
            {link, d.value_or(Millis::max()), c.groups.lastUsed(link).value_or(Time::min())});
    }
    LinkSelection s;
    if (candidates.empty())
        return s;
    // A link nobody has measured yet is assumed typical: the median of the measured ones.
    if (!known.empty()) {
        std::nth_element(known.begin(), known.begin() + long(known.size() / 2), known.end());
        const Millis typical = known[known.size() / 2];
        for (Candidate& cand : candidates)
            if (cand.delay == Millis::max())
                cand.delay = typical;
    }
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
    const Millis best = candidates.front().delay;
    const bool trouble =
        std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& cand) {
            return cand.delay > best + tuning_.troubleMargin;
        });
    if (trouble && credit_ >= 1.0 && candidates.size() > 1) {
        for (const Candidate& cand : candidates) {
            if (!s.contains(cand.link) && cand.link != c.previousLink) {
                s.add(cand.link);
                credit_ -= 1.0;
                break;
            }
        }
    }
    return s;
}

} // namespace onionvoice::multipath
