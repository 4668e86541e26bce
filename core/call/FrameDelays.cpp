// Frame delays of a call's statistics (see FrameDelays.h).
#include "FrameDelays.h"

#include <algorithm>
#include <vector>

namespace onionvoice::call {
namespace {

constexpr std::int64_t kWindowMs = 30000; // ms of frame delays the percentiles cover
// A record can carry many tiny frames: the window is bounded by count too.
constexpr std::size_t kMaxFrames = 4096;

double inMs(std::chrono::microseconds d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

double percentile(std::vector<std::chrono::microseconds> v, double p) {
    if (v.empty())
        return 0;
    const auto k =
        std::size_t(std::min<double>(double(v.size()) - 1, p / 100.0 * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return inMs(v[k]);
}

} // namespace

void FrameDelays::add(std::int64_t arrivalMs, std::optional<std::chrono::microseconds> delay) {
    if (delay)
        m_delays.push_back({arrivalMs, *delay});
    while (!m_delays.empty() &&
           (m_delays.front().first < arrivalMs - kWindowMs || m_delays.size() > kMaxFrames))
        m_delays.pop_front();
}

FrameDelaySummary FrameDelays::summary(std::int64_t intervalStartMs) const {
    FrameDelaySummary s;
    std::vector<std::chrono::microseconds> relative;
    for (const auto& [arrival, delay] : m_delays)
        relative.push_back(delay);
    const auto base = relative.empty() ? std::chrono::microseconds{0}
                                       : *std::min_element(relative.begin(), relative.end());
    for (auto& d : relative)
        d -= base;
    s.p50Ms = percentile(relative, 50);
    s.p95Ms = percentile(relative, 95);
    s.p99Ms = percentile(relative, 99);
    for (const auto& [arrival, delay] : m_delays)
        if (arrival > intervalStartMs)
            s.intervalMaxMs = std::max(s.intervalMaxMs.value_or(0), inMs(delay - base));
    return s;
}

} // namespace onionvoice::call
