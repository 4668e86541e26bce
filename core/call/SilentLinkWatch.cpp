// Per-link silence of a call (see SilentLinkWatch.h).
#include "SilentLinkWatch.h"

namespace onionvoice::call {

namespace {
constexpr multipath::Time kPeerHeard = std::chrono::seconds(1);
}

void SilentLinkWatch::heard(std::uint8_t slot, multipath::Time now) {
    if (slot >= lastHeard_.size())
        return;
    lastHeard_[slot] = now;
    lastHeardAny_ = std::max(lastHeardAny_, now);
}

bool SilentLinkWatch::silent(std::uint8_t slot, multipath::Time now) const {
    return slot < lastHeard_.size() && now - lastHeard_[slot] > limit_ &&
           now - lastHeardAny_ < kPeerHeard;
}

} // namespace onionvoice::call
