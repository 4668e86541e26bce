// How late a call's packets leave against the audio clock's schedule (packet n is due at n
// periods), the largest lateness per statistics interval: a busy engine thread shows here first.
// The schedule's origin is the earliest send of the last 20 s, not of the call: the sound card's
// clock that numbers the packets drifts from the system's (100 ppm is 540 ms in 90 minutes),
// which a call-long origin would report as lateness that grows all call.
#pragma once

#include "media/SlidingMinimum.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace onionvoice::call {

class SendLateness {
public:
    void sent(std::chrono::milliseconds at, std::uint32_t sequence,
              std::chrono::milliseconds period) {
        const std::chrono::milliseconds offset = at - period * std::int64_t(sequence);
        m_origin.add(at, offset);
        m_intervalMax = std::max(m_intervalMax, offset - *m_origin.minimum());
    }
    std::chrono::milliseconds intervalMax() const { return m_intervalMax; }
    void startInterval() { m_intervalMax = {}; }

private:
    media::SlidingMinimum<std::chrono::milliseconds, std::chrono::milliseconds> m_origin{
        std::chrono::seconds(20)};
    std::chrono::milliseconds m_intervalMax{0};
};

} // namespace onionvoice::call
