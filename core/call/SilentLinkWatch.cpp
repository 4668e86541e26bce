// Per-link silence of a call (see SilentLinkWatch.h).
#include "SilentLinkWatch.h"

namespace onionvoice::call {

namespace {
constexpr multipath::Time kPeerHeard = std::chrono::seconds(1);
}

void SilentLinkWatch::heard(std::uint8_t slot, multipath::Time now) {
    if (slot >= lastHeard_.size())
        return;
    joined(slot, now);
    lastHeardAny_ = std::max(lastHeardAny_, now);
}

void SilentLinkWatch::joined(std::uint8_t slot, multipath::Time now) {
    if (slot < lastHeard_.size())
        lastHeard_[slot] = now;
}

bool SilentLinkWatch::silent(std::uint8_t slot, multipath::Time now,
                             std::optional<multipath::Millis> unacknowledged) const {
    if (slot >= lastHeard_.size() || now - lastHeardAny_ >= kPeerHeard)
        return false;
    const multipath::Time silence = now - lastHeard_[slot];
    return silence > limit_ || (silence >= unacknowledgedLimit_ && unacknowledged &&
                                *unacknowledged >= unacknowledgedLimit_);
}

} // namespace onionvoice::call
