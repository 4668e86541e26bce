// The dial and ring timeouts across a real stop of the process that models a suspend: the probe
// (sleepawaretimer_probe, a SleepAwareTimer) runs with libonionvoice_suspendclock.so preloaded
// (tests/faults/suspendclock.c), is stopped with SIGSTOP for longer than its timeout and resumed
// with its CLOCK_MONOTONIC set back by the length of the stop, as after a real suspend. It must
// fire at once, while its monotonic clock, which a QTimer follows, is still far from the timeout
// (a QTimer fired 19 s after such a resume: a dial said "Calling…" that long after the lid opened).
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdint>
#include <thread>

using namespace std::chrono_literals;

class SuspendedTimeoutTest : public QObject {
    Q_OBJECT
private slots:
    void aTimeoutPassedInASuspendFiresAtTheResume() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString clockFile = dir.filePath(QStringLiteral("suspend-clock"));
        const auto setBehind = [&](std::int64_t ns) {
            QFile f(clockFile);
            // In place: the probe maps the file.
            QVERIFY(f.open(QIODevice::ReadWrite));
            QCOMPARE(f.write(reinterpret_cast<const char*>(&ns), sizeof ns), qint64(sizeof ns));
        };
        setBehind(0);
        QProcess probe;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LD_PRELOAD"), QStringLiteral(SUSPEND_CLOCK_LIBRARY));
        env.insert(QStringLiteral("ONIONVOICE_SUSPEND_CLOCK"), clockFile);
        probe.setProcessEnvironment(env);
        probe.start(QStringLiteral(PROBE_EXECUTABLE), {QStringLiteral("20000")});
        QVERIFY(probe.waitForStarted());
        QByteArray said;
        // Gathered: QTRY_VERIFY evaluates its condition once more after it held.
        QTRY_VERIFY_WITH_TIMEOUT((said += probe.readAllStandardOutput()).contains("armed"), 30000);

        constexpr auto stop = 22s; // the lid closed for longer than what is left of the timeout
        // A probe that exited has no pid, and kill(0) would stop this test's whole process group.
        const auto pid = pid_t(probe.processId());
        QVERIFY(probe.state() == QProcess::Running && pid > 0);
        QCOMPARE(::kill(pid, SIGSTOP), 0);
        std::this_thread::sleep_for(stop);
        setBehind(std::chrono::nanoseconds(stop).count());
        QCOMPARE(::kill(pid, SIGCONT), 0);

        QVERIFY(probe.waitForFinished(40000));
        said += probe.readAllStandardOutput();
        const QList<QByteArray> fired = said.mid(said.indexOf("fired")).trimmed().split(' ');
        QCOMPARE(fired.size(), 3);
        QCOMPARE(fired[0], QByteArray("fired"));
        const qint64 monotonicMs = fired[1].toLongLong(), ranMs = fired[2].toLongLong();
        qInfo("fired after %lld ms on the monotonic clock, %lld ms counting the suspend",
              monotonicMs, ranMs);
        // The suspend model worked: the probe's monotonic clock did not count the stop ...
        QVERIFY2(ranMs - monotonicMs >= 20000, fired.join(' ').constData());
        // ... and the timer fired on the clock that did, long before a QTimer would have.
        QVERIFY2(ranMs >= 20000, fired.join(' ').constData());
        QVERIFY2(monotonicMs < 15000, fired.join(' ').constData());
    }
};

QTEST_GUILESS_MAIN(SuspendedTimeoutTest)
#include "tst_suspendedtimeout.moc"
