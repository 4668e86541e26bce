// Unit test of SilentLinkWatch: which links of a call count as dead although their stream is open.
#include "call/SilentLinkWatch.h"

#include <QTest>

using namespace onionvoice::call;
using namespace std::chrono_literals;

class SilentLinkWatchTest : public QObject {
    Q_OBJECT
private slots:
    void aLinkSilentWhileOthersDeliverIsDead() {
        SilentLinkWatch watch(10s);
        const onionvoice::multipath::Time t0 = 1h;
        for (std::uint8_t slot = 0; slot < 3; ++slot)
            watch.heard(slot, t0);
        // Slots 0 and 1 keep delivering; slot 2's far end is gone but its stream stays open.
        for (auto t = t0; t <= t0 + 12s; t += 500ms) {
            watch.heard(0, t);
            watch.heard(1, t);
        }
        QVERIFY(!watch.silent(2, t0 + 9s));
        QVERIFY(watch.silent(2, t0 + 12s));
        QVERIFY(!watch.silent(0, t0 + 12s));
        // Its replacement joins: heard from then on, silent only after the limit again.
        watch.heard(2, t0 + 12s);
        QVERIFY(!watch.silent(2, t0 + 12s));
    }

    void silenceOnEveryLinkIsNotALinksFault() {
        // The peer's process stalled (or ours, or the whole network): closing links would only
        // add work once it is back; the network-loss timeout decides about the call.
        SilentLinkWatch watch(10s);
        const onionvoice::multipath::Time t0 = 1h;
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            watch.heard(slot, t0);
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            QVERIFY(!watch.silent(slot, t0 + 15s));
    }

    void slotsOutsideTheCallAreNeverSilent() {
        SilentLinkWatch watch(10s);
        watch.heard(200, 1h); // ignored
        QVERIFY(!watch.silent(200, 2h));
    }
};

QTEST_GUILESS_MAIN(SilentLinkWatchTest)
#include "tst_silentlinkwatch.moc"
