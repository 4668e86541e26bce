// Shared vocabulary of the multipath engine: link identifiers and engine time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace onionvoice::multipath {

// A link is named by its slot (0 … n−1). Both ends of a call agree on slots, and the replacement
// of a broken link takes over its slot, so a slot names "the link currently in this position".
using LinkId = std::uint8_t;
inline constexpr LinkId kNoLink = 0xFF;
inline constexpr std::size_t kMaxLinks = 16;

// Engine time: the endpoint's own clock, counted from the start of the call. The engine never reads
// a clock itself; every entry point takes `now`, so the simulator and tests drive it exactly.
using Time = std::chrono::microseconds;
using Millis = std::chrono::milliseconds;

constexpr std::int64_t toWholeMillis(Time t) {
    return std::chrono::duration_cast<Millis>(t).count();
}

} // namespace onionvoice::multipath
