// A one-shot timeout that counts the time the machine slept. QTimer follows CLOCK_MONOTONIC on
// Linux, which stops during a suspend: a 40-s dial whose laptop lid was closed after 10 s said
// "Calling…" for 30 s more after the resume, and a ring that outlived its caller rang on. This
// one checks a SleepCountingClock at least once a second, so it fires within a second of the
// resume once its time has passed.
#pragma once

#include "SleepCountingClock.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <functional>

namespace onionvoice::call {

class SleepAwareTimer : public QObject {
    Q_OBJECT
public:
    using Clock = std::function<SleepCountingClock::time_point()>;
    // The clock is for tests (one that jumps as a suspend does).
    explicit SleepAwareTimer(Clock clock = &SleepCountingClock::now, QObject* parent = nullptr);

    void start(std::chrono::milliseconds after);
    void stop();
    bool isActive() const { return poll_.isActive(); }
    // What is left until it fires, counting a suspend; nothing once it fired or was stopped. A
    // stranger's ring displaced by a contact's call rings on for this long, so that it ends when
    // it would have anyway.
    std::chrono::milliseconds remaining() const;

signals:
    void timeout();

private:
    void check();
    void pollUntilDeadline();

    Clock clock_;
    SleepCountingClock::time_point deadline_{};
    QTimer poll_;
};

} // namespace onionvoice::call
