// Unit tests of LinkMonitor: DONAR's out-of-order metric with gap blame, relative one-way delay
// independent of the clock offset, RTT from echoes, the local/remote merge, and what a link in a
// slot is not charged with (what went out on the link it replaced).
#include "multipath/LinkMonitor.h"

#include <QTest>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

namespace {

// A record as the peer would send it: txSeq on some link, sent at peer time sendMs, with the
// links of its previous transmissions.
Record peerRecord(std::uint32_t txSeq, std::uint32_t sendMs, std::vector<LinkId> history = {}) {
    Record r;
    r.txSeq = txSeq;
    r.sendTimeMs = sendMs;
    r.history.fill(kNoLink);
    for (std::size_t k = 0; k < history.size(); ++k)
        r.history[k] = history[k];
    r.freshFrames = 1;
    r.frames = {{txSeq, {1, 2, 3}}};
    return r;
}

} // namespace

class LinkMonitorTest : public QObject {
    Q_OBJECT
private slots:
    void outOfOrderCountsLaterRecordsReceivedFirst() {
        // DONAR §4.1: frame i received after i+1, i+2, i+3 gets a metric of 3.
        LinkMonitor m(2000ms);
        QCOMPARE(m.onRecord(100ms, 1, peerRecord(1, 0)), 0);
        QCOMPARE(m.onRecord(101ms, 1, peerRecord(2, 0)), 0);
        QCOMPARE(m.onRecord(102ms, 1, peerRecord(3, 0)), 0);
        QCOMPARE(m.onRecord(300ms, 0, peerRecord(0, 0)), 3);
        QCOMPARE(m.localScore(300ms, 0)->reorder, 3.0);
        QCOMPARE(m.localScore(300ms, 1)->reorder, 0.0);
    }

    void gapsAreBlamedOnTheLinkNamedInTheHistory() {
        LinkMonitor m(2000ms);
        // Records 0 (link 0) and 1 (link 5) were sent; only 1 arrives so far.
        m.onRecord(150ms, 5, peerRecord(1, 40, {0}));
        const auto stalled = m.localScore(650ms, 0);
        QVERIFY(stalled.has_value());
        // Record 0 left before 40 ms (peer clock); the fastest path took 110 ms; so at 650 ms it
        // is overdue by at least 650 − 40 − 110 = 500 ms.
        QCOMPARE(stalled->currentDelay, 500ms);
        QCOMPARE(stalled->reorder, 1.0);
        // When it does arrive, the link is measured by the record itself.
        m.onRecord(700ms, 0, peerRecord(0, 0));
        QCOMPARE(m.localScore(700ms, 0)->currentDelay, 590ms);
    }

    void relativeDelayIgnoresTheClockOffset() {
        for (std::uint32_t offset : {0u, 5000u, 3000000u}) {
            LinkMonitor m(2000ms);
            m.onRecord(Millis(1000 + 200), 0, peerRecord(0, offset + 1000));
            m.onRecord(Millis(1040 + 260), 1, peerRecord(1, offset + 1040));
            QCOMPARE(m.localScore(1300ms, 0)->currentDelay, 0ms);
            QCOMPARE(m.localScore(1300ms, 1)->currentDelay, 60ms);
        }
    }

    void scoresExpireWithTheWindow() {
        LinkMonitor m(2000ms);
        m.onRecord(100ms, 2, peerRecord(0, 0));
        QVERIFY(m.localScore(2000ms, 2).has_value());
        QVERIFY(!m.localScore(2200ms, 2).has_value());
    }

    void rttFromEcho() {
        LinkMonitor m(2000ms);
        Record r = peerRecord(0, 0);
        r.echoTimeMs = 1000; // our record sent at 1000 ms
        r.echoHoldMs = 30;   // held 30 ms at the peer
        m.onRecord(1430ms, 4, r);
        QCOMPARE(*m.rtt(4), 400ms);
        QVERIFY(!m.rtt(3).has_value());
    }

    void echoNamesTheNewestRecordOnThatLink() {
        LinkMonitor m(2000ms);
        QCOMPARE(m.echoFor(0ms, 1).timeMs, kNoEcho);
        m.onRecord(500ms, 1, peerRecord(0, 777));
        const Echo e = m.echoFor(520ms, 1);
        QCOMPARE(e.timeMs, 777u);
        QCOMPARE(e.holdMs, std::uint16_t(20));
        QCOMPARE(m.echoFor(520ms, 2).timeMs, kNoEcho);
    }

    void mergesLocalAndRemoteAsDonar() {
        LinkMonitor m(2000ms);
        Record r = peerRecord(0, 0);
        // The peer measured our direction on link 3 (reorder 2, delay 80 ms) and link 7.
        r.scores = {{3, 2 * kReorderUnitsPerRecord, 20, 0}, {7, 0, 5, 0}};
        m.onRecord(100ms, 3, r);
        m.onRecord(140ms, 3, peerRecord(1, 0)); // relative delay 40 ms locally
        // Link 3: both views → average; link 7: remote only; link 9: none.
        const auto s3 = m.score(140ms, 3);
        QCOMPARE(s3->reorder, 1.0);
        QCOMPARE(s3->currentDelay, 60ms);
        QCOMPARE(m.score(140ms, 7)->currentDelay, 20ms);
        QVERIFY(!m.score(140ms, 9).has_value());
        // The local reports carry this side's view with its acknowledgement.
        const auto reports = m.localReports(140ms);
        QCOMPARE(reports.size(), std::size_t(1));
        QCOMPARE(reports[0].link, LinkId(3));
        QCOMPARE(reports[0].newestTxSeq, std::uint8_t(1));
        QCOMPARE(reports[0].currentDelay, std::uint8_t(10));
    }

    void hostileSequenceNumbersTerminate() {
        // The largest transmission number, then the one below it: counting must not wrap.
        LinkMonitor m(2000ms);
        m.onRecord(100ms, 0, peerRecord(0xFFFFFFFF, 0));
        QCOMPARE(m.onRecord(110ms, 1, peerRecord(0xFFFFFFFE, 0, {0})), 1);
        QVERIFY(m.localScore(120ms, 1).has_value());
    }

    void aReplacementIsNotChargedWithWhatWasSentBeforeIt() {
        LinkMonitor m(2000ms);
        // Transmission 0 went out on link 2 and is lost; 1, on link 5, names it.
        m.onRecord(100ms, 5, peerRecord(1, 40, {2}));
        m.resetLink(2); // a new link in slot 2
        // Transmission 0 left before 1, which arrived before the new link came up: it was sent
        // on the old link and can never arrive on the new one, however often the peer's
        // history names it.
        m.onRecord(140ms, 5, peerRecord(2, 80, {5, 2}));
        QVERIFY(!m.localScore(1000ms, 2).has_value());
    }

    void aRecordOnALinkSettlesEverythingSentBeforeItThere() {
        LinkMonitor m(2000ms);
        // Transmissions 0 and 2 went out on link 2 (the peer's end of a link whose our end had
        // closed and been replaced: the peer had not heard of it yet); 1 and 3 on link 5.
        m.onRecord(100ms, 5, peerRecord(1, 40, {2}));
        m.onRecord(180ms, 5, peerRecord(3, 120, {2, 5, 2}));
        QVERIFY(m.localScore(180ms, 2)->currentDelay > 0ms);
        // 4 is the first record the peer sent on the new link. A link is one TCP stream:
        // anything sent on it before 4 would have arrived first, so 0 and 2 never will.
        m.onRecord(220ms, 2, peerRecord(4, 160, {5, 2, 5, 2}));
        QCOMPARE(m.localScore(220ms, 2)->currentDelay, 0ms);
        QCOMPARE(m.localScore(220ms, 2)->reorder, 0.0);
        QVERIFY(!m.localScore(5000ms, 2).has_value());
    }

    void resetForgetsTheLink() {
        LinkMonitor m(2000ms);
        m.onRecord(100ms, 2, peerRecord(0, 0));
        m.resetLink(2);
        QVERIFY(!m.localScore(100ms, 2).has_value());
        QVERIFY(m.localReports(100ms).empty());
    }
};

QTEST_APPLESS_MAIN(LinkMonitorTest)
#include "tst_linkmonitor.moc"
