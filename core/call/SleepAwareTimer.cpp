// A one-shot timeout that counts the time the machine slept (see SleepAwareTimer.h).
#include "SleepAwareTimer.h"

#include <algorithm>

namespace onionvoice::call {
namespace {
// How late the timer may fire after a resume: a QTimer pending through a suspend fires this long
// after it, on the clock that stopped.
constexpr std::chrono::milliseconds kLongestPoll{1000};
} // namespace

SleepAwareTimer::SleepAwareTimer(Clock clock, QObject* parent)
    : QObject(parent)
    , clock_(std::move(clock))
    , poll_(this) {
    poll_.setSingleShot(true);
    poll_.setTimerType(Qt::PreciseTimer);
    connect(&poll_, &QTimer::timeout, this, &SleepAwareTimer::check);
}

void SleepAwareTimer::start(std::chrono::milliseconds after) {
    deadline_ = clock_() + after;
    pollUntilDeadline();
}

void SleepAwareTimer::stop() {
    poll_.stop();
}

std::chrono::milliseconds SleepAwareTimer::remaining() const {
    if (!poll_.isActive())
        return std::chrono::milliseconds{0};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - clock_());
    return std::max(left, std::chrono::milliseconds{0});
}

void SleepAwareTimer::pollUntilDeadline() {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - clock_());
    poll_.start(std::clamp(left, std::chrono::milliseconds{0}, kLongestPoll));
}

void SleepAwareTimer::check() {
    if (clock_() < deadline_) {
        pollUntilDeadline();
        return;
    }
    emit timeout();
}

} // namespace onionvoice::call
