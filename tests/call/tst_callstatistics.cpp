// The network's share of a call's estimated mouth-to-ear delay (the delay behind its MOS): the
// fastest path's one-way delay, from the smallest round trip of the call's links.
#include "call/CallStatisticsSnapshot.h"

#include <QTest>

using namespace onionvoice;
using namespace std::chrono_literals;

class CallStatisticsTest : public QObject {
    Q_OBJECT
private slots:
    // The control link (slot 0 here) may be a slow circuit: in an impaired call its round trip
    // put 400 ms more into the estimate (766 ms against 369 ms measured, README "Desktop app").
    void theFastestLinkSetsTheNetworkShare() {
        const std::optional<multipath::Millis> rtts[] = {900ms, 250ms, std::nullopt, 360ms};
        QCOMPARE(call::fastestOneWay(rtts), 125ms);
    }

    void withoutAMeasuredRoundTripTorsUsualDelayStandsIn() {
        const std::optional<multipath::Millis> none[] = {std::nullopt, std::nullopt};
        QCOMPARE(call::fastestOneWay(none), 200ms);
        QCOMPARE(call::fastestOneWay({}), 200ms);
    }
};

QTEST_APPLESS_MAIN(CallStatisticsTest)
#include "tst_callstatistics.moc"
