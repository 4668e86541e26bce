// Unit test of SleepAwareTimer: the dial and ring timeouts count a suspend of the machine, shown
// with a clock that jumps forward as a resumed machine's CLOCK_BOOTTIME does while the event loop's
// own clock (CLOCK_MONOTONIC) did not move.
#include "call/SleepAwareTimer.h"

#include <QSignalSpy>
#include <QTest>

using namespace onionvoice::call;
using namespace std::chrono_literals;

namespace {

// The real time plus whatever the test says the machine slept.
struct JumpingClock {
    std::chrono::milliseconds slept{0};
    SleepAwareTimer::Clock clock() {
        return [this] {
            return SleepCountingClock::time_point(
                       std::chrono::duration_cast<SleepCountingClock::duration>(
                           std::chrono::steady_clock::now().time_since_epoch())) +
                   slept;
        };
    }
};

} // namespace

class SleepAwareTimerTest : public QObject {
    Q_OBJECT
private slots:
    void firesOnceItsTimeHasPassed() {
        SleepAwareTimer timer;
        QSignalSpy fired(&timer, &SleepAwareTimer::timeout);
        timer.start(50ms);
        QVERIFY(timer.isActive());
        QTRY_COMPARE(fired.count(), 1);
        QVERIFY(!timer.isActive());
        QTest::qWait(200);
        QCOMPARE(fired.count(), 1);
    }

    // Fault: a 40-s dial timeout on a QTimer, the lid closed after 10 s for an hour; after the
    // resume the call said "Calling…" for 30 s more. Here it ends within a second or so.
    void aSuspendCountsTowardsTheTimeout() {
        JumpingClock machine;
        SleepAwareTimer timer(machine.clock());
        QSignalSpy fired(&timer, &SleepAwareTimer::timeout);
        timer.start(40s);
        QTest::qWait(300);
        machine.slept = 1h;
        QTRY_COMPARE_WITH_TIMEOUT(fired.count(), 1, 5000);
    }

    // A suspend shorter than what is left does not end it early.
    void aShortSuspendLeavesTheRest() {
        JumpingClock machine;
        SleepAwareTimer timer(machine.clock());
        QSignalSpy fired(&timer, &SleepAwareTimer::timeout);
        timer.start(30s);
        machine.slept = 20s;
        QTest::qWait(1500);
        QCOMPARE(fired.count(), 0);
        QVERIFY(timer.isActive());
        machine.slept = 31s;
        QTRY_COMPARE_WITH_TIMEOUT(fired.count(), 1, 5000);
    }

    // What a stranger's ring displaced by a contact's call rings on for: the rest of the ring's
    // timer, a suspend counted (a decoy ring's timer counts it too: the two end alike), never less
    // than nothing. Before, the rest was worked out on the monotonic clock, which a suspend stops.
    void remainingCountsASuspend() {
        JumpingClock machine;
        SleepAwareTimer timer(machine.clock());
        QCOMPARE(timer.remaining(), 0ms);
        timer.start(30s);
        QVERIFY(timer.remaining() > 29s && timer.remaining() <= 30s);
        machine.slept = 10s;
        QVERIFY(timer.remaining() > 19s && timer.remaining() <= 20s);
        machine.slept = 1h;
        QCOMPARE(timer.remaining(), 0ms);
        timer.stop();
        machine.slept = 0s;
        QCOMPARE(timer.remaining(), 0ms);
    }

    void stopAndRestart() {
        JumpingClock machine;
        SleepAwareTimer timer(machine.clock());
        QSignalSpy fired(&timer, &SleepAwareTimer::timeout);
        timer.start(100ms);
        timer.stop();
        QVERIFY(!timer.isActive());
        machine.slept = 1h;
        QTest::qWait(1500);
        QCOMPARE(fired.count(), 0);
        // Started again, it counts from now: the hour slept before is not held against it.
        timer.start(20s);
        QTest::qWait(1500);
        QCOMPARE(fired.count(), 0);
        timer.start(50ms);
        QTRY_COMPARE(fired.count(), 1);
    }
};

QTEST_GUILESS_MAIN(SleepAwareTimerTest)
#include "tst_sleepawaretimer.moc"
