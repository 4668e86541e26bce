// Per-link acknowledgement bookkeeping of the sender.
#include "DeliveryTracker.h"

#include <algorithm>

namespace onionvoice::multipath {

void DeliveryTracker::onSent(Time now, LinkId link, std::uint32_t txSeq) {
    if (link >= kMaxLinks)
        return;
    auto& q = outstanding_[link];
    q.push_back({txSeq, now});
    while (now - q.front().at > kHorizon)
        q.pop_front();
}

void DeliveryTracker::onAcknowledged(LinkId link, std::uint8_t newestLow8) {
    if (link >= kMaxLinks || lastAcknowledged_[link] == newestLow8)
        return;
    auto& q = outstanding_[link];
    const auto covered = std::find_if(q.rbegin(), q.rend(), [newestLow8](const Sent& s) {
        return std::uint8_t(s.txSeq) == newestLow8;
    });
    if (covered == q.rend())
        return;
    q.erase(q.begin(), covered.base());
    lastAcknowledged_[link] = newestLow8;
}

void DeliveryTracker::resetLink(LinkId link) {
    if (link >= kMaxLinks)
        return;
    outstanding_[link].clear();
    lastAcknowledged_[link].reset();
}

std::optional<Millis> DeliveryTracker::oldestUnacknowledged(Time now, LinkId link) const {
    if (link >= kMaxLinks || outstanding_[link].empty())
        return std::nullopt;
    return std::chrono::duration_cast<Millis>(now - outstanding_[link].front().at);
}

} // namespace onionvoice::multipath
