// Frame delays of a call's statistics (see FrameDelays.h).
#include "FrameDelays.h"

#include <algorithm>
#include <vector>

namespace onionvoice::call {
namespace {

constexpr std::int64_t kWindowMs = 30000; // ms of frame delays the percentiles cover
// A record can carry many tiny frames: the window is bounded by count too.
constexpr std::size_t kMaxFrames = 4096;

double percentile(std::vector<std::int64_t> v, double p) {
    if (v.empty())
        return 0;
    const auto k =
        std::size_t(std::min<double>(double(v.size()) - 1, p / 100.0 * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return double(v[k]);
}

} // namespace

void FrameDelays::add(std::int64_t arrivalMs, std::uint32_t sequence, std::int64_t periodMs) {
    m_delays.push_back({arrivalMs, arrivalMs - std::int64_t(sequence) * periodMs});
    while (!m_delays.empty() &&
           (m_delays.front().first < arrivalMs - kWindowMs || m_delays.size() > kMaxFrames))
        m_delays.pop_front();
}

FrameDelaySummary FrameDelays::summary(std::int64_t intervalStartMs) const {
    FrameDelaySummary s;
    std::vector<std::int64_t> raw;
    for (const auto& [arrival, delay] : m_delays)
        raw.push_back(delay);
    const std::int64_t base = raw.empty() ? 0 : *std::min_element(raw.begin(), raw.end());
    for (auto& d : raw)
        d -= base;
    s.p50Ms = percentile(raw, 50);
    s.p95Ms = percentile(raw, 95);
    s.p99Ms = percentile(raw, 99);
    for (const auto& [arrival, delay] : m_delays)
        if (arrival > intervalStartMs)
            s.intervalMaxMs = std::max(s.intervalMaxMs.value_or(0), double(delay - base));
    return s;
}

} // namespace onionvoice::call
