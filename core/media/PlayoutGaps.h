// Gaps in what a listener hears: the longest run of played audio that held no received speech
// (concealment for a missing or late packet, or inserted while the jitter buffer grows). The fault
// tests judge a call by it, whatever the network did to cause it.
#pragma once

#include "media/JitterBuffer.h"

#include <algorithm>
#include <chrono>

namespace onionvoice::media {

class PlayoutGaps {
public:
    // One played slice of `duration`. Silence before the first packet is no gap: nothing was due.
    void note(PlayoutAction action, std::chrono::microseconds duration) {
        switch (action) {
        case PlayoutAction::Silence:
            break;
        case PlayoutAction::Conceal:
            m_current += duration;
            m_longest = std::max(m_longest, m_current);
            break;
        case PlayoutAction::Decode:
        case PlayoutAction::DecodeFec:
            m_current = {};
            break;
        }
    }
    std::chrono::milliseconds longest() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(m_longest);
    }

private:
    std::chrono::microseconds m_current{0};
    std::chrono::microseconds m_longest{0};
};

} // namespace onionvoice::media
