// The smallest value seen over a sliding time window, in amortised constant time (a monotonic
// queue). The baseline of a delay that drifts: a jitter buffer's arrival offsets, or a sender's
// lateness against a sound card whose clock runs apart from the system's.
#pragma once

#include <deque>
#include <optional>

namespace onionvoice::media {

template <typename Time, typename Value> class SlidingMinimum {
public:
    explicit SlidingMinimum(Time window)
        : m_window(window) {}

    // Times must not decrease.
    void add(Time at, Value value) {
        while (!m_entries.empty() && m_entries.back().value >= value)
            m_entries.pop_back();
        m_entries.push_back({at, value});
        while (m_entries.front().at < at - m_window)
            m_entries.pop_front();
    }

    std::optional<Value> minimum() const {
        return m_entries.empty() ? std::nullopt : std::optional(m_entries.front().value);
    }

private:
    struct Entry {
        Time at;
        Value value;
    };
    Time m_window;
    std::deque<Entry> m_entries;
};

} // namespace onionvoice::media
