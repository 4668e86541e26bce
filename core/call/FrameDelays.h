// The delays of the frames a call received in the last 30 s, for its statistics. A frame's
// arrival minus its place in the peer's numbering (sequence × packet period) is its one-way delay
// plus the constant offset between the two clocks, so each is counted above the fastest frame of
// the window: what remains is queueing and spikes, as the jitter buffer sees them.
//
// The delays are the jitter buffer's own measures (JitterBuffer::push), of the frames it counted.
// Computed here from the bare sequence number, a frame numbered far off the stream (a peer's bug
// or attack; the multipath receiver passes on a piggybacked copy "before frame 0", numbered
// 2^32 − 3, for the buffer to judge) had a delay of −1.7e11 ms: it became the fastest frame, and
// for 30 s every percentile, the network delay and the MOS were computed from a mouth-to-ear time
// of years. The buffer unwraps the numbering and refuses such frames before their delay counts.
#pragma once

#include <chrono>
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
    // A frame that arrived at arrivalMs (the call's clock), with the delay the jitter buffer
    // measured for it; nothing is counted for a frame the buffer did not count.
    void add(std::int64_t arrivalMs, std::optional<std::chrono::microseconds> delay);
    FrameDelaySummary summary(std::int64_t intervalStartMs) const;

private:
    std::deque<std::pair<std::int64_t, std::chrono::microseconds>> m_delays; // (arrival ms, delay)
};

} // namespace onionvoice::call
