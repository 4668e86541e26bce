// Unit tests of DeliveryTracker: per-link cumulative acknowledgements of 8 bits, wrap, reset.
#include "multipath/DeliveryTracker.h"

#include <QTest>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

class DeliveryTrackerTest : public QObject {
    Q_OBJECT
private slots:
    void acknowledgementCoversEverythingEarlierOnTheLink() {
        DeliveryTracker t;
        t.onSent(0ms, 1, 10);
        t.onSent(40ms, 1, 12);
        t.onSent(80ms, 1, 14);
        t.onSent(80ms, 2, 15);
        QCOMPARE(*t.oldestUnacknowledged(500ms, 1), 500ms);
        t.onAcknowledged(1, 12);
        QCOMPARE(*t.oldestUnacknowledged(500ms, 1), 420ms);
        t.onAcknowledged(1, 11); // an older, reordered acknowledgement changes nothing
        QCOMPARE(*t.oldestUnacknowledged(500ms, 1), 420ms);
        t.onAcknowledged(1, 14);
        QVERIFY(!t.oldestUnacknowledged(500ms, 1).has_value());
        QCOMPARE(*t.oldestUnacknowledged(500ms, 2), 420ms);
    }

    void eightBitWrap() {
        DeliveryTracker t;
        t.onSent(0ms, 0, 0x1FE);
        t.onSent(1ms, 0, 0x201);
        t.onAcknowledged(0, 0xFE);
        QCOMPARE(*t.oldestUnacknowledged(2ms, 0), 1ms);
        t.onAcknowledged(0, 0x01);
        QVERIFY(!t.oldestUnacknowledged(2ms, 0).has_value());
    }

    void acknowledgementMatchesTheNewestOutstandingRecord() {
        // 8 bits name a record among those outstanding on the link; the newest one with those
        // bits is meant (older ones would have been acknowledged long before).
        DeliveryTracker t;
        t.onSent(0ms, 4, 0x305);
        t.onSent(10ms, 4, 0x340);
        t.onSent(20ms, 4, 0x405);
        t.onSent(30ms, 4, 0x406);
        t.onAcknowledged(4, 0x05);
        QCOMPARE(*t.oldestUnacknowledged(100ms, 4), 70ms);
    }

    void repeatedStaleAcknowledgementDoesNotHideAStall() {
        // The peer repeats the newest transmission it has on the link in every report. While the
        // link is stalled that number stays put; a record sent 256 transmissions later carries
        // the same low 8 bits and must not count as delivered by the stale repeat.
        DeliveryTracker t;
        t.onSent(0ms, 1, 0x210);
        t.onAcknowledged(1, 0x10);
        QVERIFY(!t.oldestUnacknowledged(100ms, 1).has_value());
        t.onSent(1000ms, 1, 0x240);
        t.onSent(2000ms, 1, 0x310);
        t.onAcknowledged(1, 0x10);
        QCOMPARE(*t.oldestUnacknowledged(3000ms, 1), 2000ms);
        t.onAcknowledged(1, 0x40); // the link moves again: real progress is taken
        QCOMPARE(*t.oldestUnacknowledged(3000ms, 1), 1000ms);
        t.onAcknowledged(1, 0x10); // ... and then the same bits acknowledge the newer record
        QVERIFY(!t.oldestUnacknowledged(3000ms, 1).has_value());
    }

    void resetAndOutOfRange() {
        DeliveryTracker t;
        t.onSent(0ms, 3, 1);
        t.resetLink(3);
        QVERIFY(!t.oldestUnacknowledged(1s, 3).has_value());
        t.onSent(0ms, 200, 1);
        t.onAcknowledged(200, 1);
        QVERIFY(!t.oldestUnacknowledged(1s, 200).has_value());
    }
};

QTEST_APPLESS_MAIN(DeliveryTrackerTest)
#include "tst_deliverytracker.moc"
