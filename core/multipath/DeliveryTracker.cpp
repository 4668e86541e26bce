// Per-link acknowledgement bookkeeping of the sender.
#include "DeliveryTracker.h"

namespace onionvoice::multipath {

void DeliveryTracker::onSent(Time now, LinkId link, std::uint32_t txSeq) {
    if (link >= kMaxLinks)
        return;
    auto& q = outstanding_[link];
    q.push_back({txSeq, now});
    while (now - q.front().at > kHorizon)
        q.pop_front();
}

void DeliveryTracker::onAcknowledged(LinkId link, std::uint16_t newestLow16) {
    if (link >= kMaxLinks)
        return;
    auto& q = outstanding_[link];
    // Modular comparison: the acknowledgement covers a record when the record is not newer.
    while (!q.empty() && std::uint16_t(newestLow16 - std::uint16_t(q.front().txSeq)) < 0x8000)
        q.pop_front();
}

void DeliveryTracker::resetLink(LinkId link) {
    if (link < kMaxLinks)
        outstanding_[link].clear();
}

std::optional<Millis> DeliveryTracker::oldestUnacknowledged(Time now, LinkId link) const {
    if (link >= kMaxLinks || outstanding_[link].empty())
        return std::nullopt;
    return std::chrono::duration_cast<Millis>(now - outstanding_[link].front().at);
}

} // namespace onionvoice::multipath
