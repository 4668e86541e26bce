// OnionVoice's own scheduling policy. It ranks and picks links by measured one-way delay instead
// of reorder counts, reacts to a stalled link as soon as a record on it is overdue, never puts two
// consecutive packets on one link (so a frame and its piggybacked copy never share a TCP stream),
// and sends a second copy of a packet only while even the best usable link is slow, within a small
// budget of extra cells.
#pragma once

#include "SchedulingPolicy.h"

namespace onionvoice::multipath {

struct AdaptiveTuning {
    // Extra copies allowed, as a fraction of packets (the cell budget above one cell per packet).
    double duplicateBudget = 0.04;
    // The chosen link is in trouble when its expected delay exceeds the fastest path by this much.
    Millis troubleMargin{120};
    // Grace beyond the fastest round trip before an unacknowledged record counts as overdue: the
    // peer acknowledges only with its next record, one packet period later at most.
    Millis ackSlack{60};
    // Assumed delay (above the fastest path) of a link without any measurement: a good link's,
    // so idle links get tried as soon as the measured ones do worse than that.
    Millis unmeasuredDelay{60};
};

class AdaptivePolicy final : public SchedulingPolicy {
public:
    explicit AdaptivePolicy(AdaptiveTuning tuning = {});
    std::string_view name() const override { return "adaptive"; }
    std::optional<double> rankKey(const std::optional<LinkScore>& score) const override;
    LinkSelection select(const SchedulingContext& context) override;

private:
    AdaptiveTuning tuning_;
    double credit_ = 0; // duplicate copies that may still be sent
};

} // namespace onionvoice::multipath
