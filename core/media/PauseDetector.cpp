// Pauses from packet sizes (see PauseDetector.h).
//
// Variable-bitrate Opus spends few bytes on silence: a packet below 0.4 of the average size is a
// pause. Under steady background noise it spends about as much on a pause as on a word (pink
// noise 20 dB below the speech: packets of 138-178 bytes, none below 0.4 of the average), so no
// packet was ever a pause there, and the jitter buffer, which drops a packet to catch up with a
// target that fell only at a pause (or once two periods behind), stayed up to two periods late
// for the whole call (README, Audio: 297 against 257 ms mouth-to-ear on `default` traces). So once
// no packet has been a pause for kDrought packets, longer than speech goes without one, the
// packets below the 10th percentile of the recent ones are the quietest there are. Strictly
// below: packets all of one size never are.
#include "PauseDetector.h"

#include <algorithm>

namespace onionvoice::media {
namespace {

constexpr double kQuietShare = 0.4;
constexpr double kSizeSmoothing = 1.0 / 64.0;
constexpr std::size_t kRecentPackets = 250; // 10 s at 40 ms
constexpr std::size_t kDrought = 250;

} // namespace

void PauseDetector::note(std::size_t bytes) {
    ++noted_;
    averageBytes_ = noted_ == 1 ? double(bytes)
                                : averageBytes_ + kSizeSmoothing * (double(bytes) - averageBytes_);
    sinceQuiet_ = double(bytes) < kQuietShare * averageBytes_ ? 0 : sinceQuiet_ + 1;
    recent_.push_back(bytes);
    if (recent_.size() > kRecentPackets)
        recent_.pop_front();
    if (sinceQuiet_ < kDrought)
        return;
    scratch_.assign(recent_.begin(), recent_.end());
    const auto rank = scratch_.begin() + std::ptrdiff_t(scratch_.size() / 10);
    std::nth_element(scratch_.begin(), rank, scratch_.end());
    smallestTenth_ = *rank;
}

PauseDetector::Quietness PauseDetector::classify(std::size_t bytes) const {
    if (double(bytes) < kQuietShare * averageBytes_)
        return Quietness::Pause;
    return sinceQuiet_ >= kDrought && bytes < smallestTenth_ ? Quietness::QuietUnderNoise
                                                             : Quietness::Speech;
}

} // namespace onionvoice::media
