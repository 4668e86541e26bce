// A steady clock that goes on counting while the machine sleeps. QElapsedTimer and
// std::chrono::steady_clock follow CLOCK_MONOTONIC on Linux, which stops during a suspend: a call
// whose peer gave up on us while the laptop's lid was closed looked, after the resume, as if the
// peer had been silent only since the resume, and stayed "active" for the whole network-loss
// timeout more (tests/faults callee_suspend_lost). What a call waits for from the peer is
// measured on this clock instead: the peer's time went on.
#pragma once

#include <chrono>
#include <ctime>

namespace onionvoice::call {

struct SleepCountingClock {
    using duration = std::chrono::nanoseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<SleepCountingClock>;
    static constexpr bool is_steady = true;

    static time_point now() noexcept {
#if defined(__linux__)
        timespec t{};
        ::clock_gettime(CLOCK_BOOTTIME, &t); // CLOCK_MONOTONIC plus the time spent suspended
        return time_point(std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec));
#elif defined(__APPLE__)
        timespec t{};
        ::clock_gettime(CLOCK_MONOTONIC,
                        &t); // on macOS this one counts sleep (mach_continuous_time)
        return time_point(std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec));
#else
        // Windows: steady_clock is QueryPerformanceCounter, which is said to count sleep; not
        // checked on a Windows machine.
        return time_point(std::chrono::duration_cast<duration>(
            std::chrono::steady_clock::now().time_since_epoch()));
#endif
    }
};

} // namespace onionvoice::call
