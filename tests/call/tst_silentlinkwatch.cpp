// Unit test of SilentLinkWatch: which links of a call count as dead although their stream is open.
#include "call/SilentLinkWatch.h"

#include <QTest>

using namespace onionvoice::call;
using namespace std::chrono_literals;

namespace {

const onionvoice::multipath::Time t0 = 1h;

// Slots 0-2 heard at t0; then slots 0 and 1 keep delivering every 500 ms for `span` while slot
// 2's far end is gone but its stream stays open.
void twoOfThreeKeepDelivering(SilentLinkWatch& watch, onionvoice::multipath::Time span) {
    for (std::uint8_t slot = 0; slot < 3; ++slot)
        watch.heard(slot, t0);
    for (auto t = t0; t <= t0 + span; t += 500ms) {
        watch.heard(0, t);
        watch.heard(1, t);
    }
}

} // namespace

class SilentLinkWatchTest : public QObject {
    Q_OBJECT
private slots:
    void aLinkSilentWhileOthersDeliverIsDead() {
        SilentLinkWatch watch(10s);
        twoOfThreeKeepDelivering(watch, 12s);
        QVERIFY(!watch.silent(2, t0 + 9s));
        QVERIFY(watch.silent(2, t0 + 12s));
        QVERIFY(!watch.silent(0, t0 + 12s));
        // Its replacement joins: heard from then on, silent only after the limit again.
        watch.heard(2, t0 + 12s);
        QVERIFY(!watch.silent(2, t0 + 12s));
    }

    void aSilentLinkThePeerDoesNotAcknowledgeIsDeadSooner() {
        // relay_kill: the peer's end of slot 2 closed, ours stayed open; the peer's reports, on
        // the other links, acknowledge nothing we sent on it since.
        SilentLinkWatch watch(30s, 10s);
        twoOfThreeKeepDelivering(watch, 12s);
        QVERIFY(!watch.silent(2, t0 + 9s, 9s));
        QVERIFY(watch.silent(2, t0 + 10s, 10s));
        // Silent but with nothing outstanding (an idle link), or acknowledged: only the 30 s.
        QVERIFY(!watch.silent(2, t0 + 12s));
        QVERIFY(!watch.silent(2, t0 + 12s, 200ms));
        // Records unacknowledged for 10 s on a link the peer still sends on: a slow link, not
        // a dead one.
        QVERIFY(!watch.silent(0, t0 + 12s, 11s));
    }

    void aLinkStalledForAFewSecondsIsNotDead() {
        // relay_stop: a relay on the link's path stopped for 5 s; the link resumes afterwards.
        SilentLinkWatch watch;
        watch.heard(0, t0);
        watch.heard(1, t0);
        watch.heard(1, t0 + 6s);
        QVERIFY(!watch.silent(0, t0 + 6s, 6s));
    }

    void silenceOnEveryLinkIsNotALinksFault() {
        // The peer's process stalled (or ours, or the whole network): closing links would only
        // add work once it is back; the network-loss timeout decides about the call.
        SilentLinkWatch watch(10s);
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            watch.heard(slot, t0);
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            QVERIFY(!watch.silent(slot, t0 + 15s));
    }

    // Fault: the peer's app stalls (its tor does not): nothing is heard on any link, and a
    // replacement link opens, since the peer's tor takes the stream. Counted as hearing the peer,
    // that join made the other eleven links, silent and unacknowledged for 10 s, look dead, and
    // the engine closed them all while the peer was only paused.
    void aLinkJoiningDuringSilenceEverywhereIsNotThePeerHeard() {
        SilentLinkWatch watch(30s, 10s);
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            watch.heard(slot, t0);
        watch.joined(5, t0 + 12s);
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            QVERIFY(!watch.silent(slot, t0 + 12s, 12s));
        // The joined link's silence counts from its join.
        for (const auto t : {t0 + 40s, t0 + 43s})
            for (std::uint8_t slot = 0; slot < 12; ++slot)
                if (slot != 5)
                    watch.heard(slot, t);
        QVERIFY(!watch.silent(5, t0 + 40s));
        QVERIFY(watch.silent(5, t0 + 43s));
    }

    void slotsOutsideTheCallAreNeverSilent() {
        SilentLinkWatch watch(10s);
        watch.heard(200, 1h); // ignored
        QVERIFY(!watch.silent(200, 2h));
    }
};

QTEST_GUILESS_MAIN(SilentLinkWatchTest)
#include "tst_silentlinkwatch.moc"
