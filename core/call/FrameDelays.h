// The delays of the frames a call received in the last 30 s, for its statistics. A frame's
// arrival minus its place in the peer's numbering (sequence × packet period) is its one-way delay
// plus the constant offset between the two clocks, so each is counted above the fastest frame of
// the window: what remains is queueing and spikes, as the jitter buffer sees them.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace onionvoice::call {

struct FrameDelaySummary {
    double p50Ms = 0, p95Ms = 0, p99Ms = 0; // above the fastest frame of the window
    // The largest, above the same fastest frame, of the frames that arrived after the interval
    // began; none if none did.
    std::optional<double> intervalMaxMs;
};

class FrameDelays {
public:
    void add(std::int64_t arrivalMs, std::uint32_t sequence, std::int64_t periodMs);
    FrameDelaySummary summary(std::int64_t intervalStartMs) const;

private:
    std::deque<std::pair<std::int64_t, std::int64_t>> m_delays; // (arrival ms, raw ms)
};

} // namespace onionvoice::call
