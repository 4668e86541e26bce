// The statistics snapshot of an active call, as published a few times per second: per-link state
// and counters, frame delay percentiles, jitter buffer figures and the estimated MOS.
#pragma once

#include "CallSession.h"
#include "CallTypes.h"

#include <chrono>
#include <optional>
#include <span>

namespace onionvoice::call {

CallStatistics snapshotStatistics(const CallSession& call);

// The fastest path's one-way delay, which delays relative to the fastest frame cannot see: half
// the smallest of the links' round trips (not the control link's: it may be the slow one), 200 ms
// while none is measured. The jitter buffer plays a frame its target after the fastest frame would
// arrive, so this, not the median frame's delay, is the network's share of the mouth-to-ear delay.
std::chrono::milliseconds fastestOneWay(std::span<const std::optional<multipath::Millis>> rtts);

} // namespace onionvoice::call
