// Unit test of InterruptWatcher: each SIGINT or SIGTERM counts, also when several arrive before the
// event loop reads them (the second Ctrl-C ends onionvoice-cli at once instead of waiting for the
// peer's hang-up).
#include "InterruptWatcher.h"

#include <QSignalSpy>
#include <QTest>
#include <csignal>

using onionvoice::app::InterruptWatcher;

class InterruptWatcherTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: two signals before the event loop runs. The old code counted reads of the pipe, not
    // the bytes in it, and reported one.
    void signalsThatArriveTogetherCountEach() {
        InterruptWatcher watcher;
        QSignalSpy interrupted(&watcher, &InterruptWatcher::interrupted);
        std::raise(SIGINT);
        std::raise(SIGTERM);
        QTRY_VERIFY(!interrupted.isEmpty());
        QCOMPARE(interrupted.last().at(0).toInt(), 2);
        std::raise(SIGINT);
        QTRY_COMPARE(interrupted.last().at(0).toInt(), 3);
        QCOMPARE(watcher.count(), 3);
    }
};

QTEST_GUILESS_MAIN(InterruptWatcherTest)
#include "tst_interruptwatcher.moc"
