// Unit test of RelinkRescue: when failing link attempts make the engine purge tor's onion-service
// client state, and how often.
#include "call/RelinkRescue.h"

#include <QTest>
#include <type_traits>

using namespace onionvoice::call;
using namespace std::chrono_literals;

namespace {

// What tor answered a CONNECT with.
RelinkRescue::Failure classify(int socksReplyCode) {
    return RelinkRescue::classify(onionvoice::net::OnionLink::Failure::SocksReply, socksReplyCode);
}

// Fault (found by a review): the limits ran on steady_clock, which stops while the machine is
// suspended on Linux. After a night's sleep a peer called just before still counted as reached
// "within 10 minutes", and the first failed dial to it (offline by now) purged tor's circuits.
// The engine passes Clock::now(), so the clock itself is what must count sleep.
static_assert(std::is_same_v<RelinkRescue::Clock, SleepCountingClock>);

} // namespace

class RelinkRescueTest : public QObject {
    Q_OBJECT
private slots:
    void aSlotFailingRepeatedlyAsksForAPurge() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        QVERIFY(!rescue.attemptFailed(4, t0));
        QVERIFY(!rescue.attemptFailed(4, t0 + 2s));
        QVERIFY(rescue.attemptFailed(4, t0 + 4s));
    }

    void failuresSpreadOverSlotsOrInterruptedBySuccessDoNot() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        // One failure in each of many slots: links are being replaced, not stuck.
        for (std::uint8_t slot = 0; slot < 12; ++slot)
            QVERIFY(!rescue.attemptFailed(slot, t0));
        // A link that opens clears its slot's count.
        QVERIFY(!rescue.attemptFailed(3, t0 + 1s));
        rescue.linkUp(3);
        QVERIFY(!rescue.attemptFailed(3, t0 + 2s));
        QVERIFY(!rescue.attemptFailed(3, t0 + 3s));
        QVERIFY(rescue.attemptFailed(3, t0 + 4s));
    }

    void torSayingItsStateIsStuckAsksForAPurgeAtOnce() {
        // "introduction failed" / "descriptor not found": tor has marked every introduction point
        // of its cached descriptor failed (or asked every HSDir); more attempts only wait.
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        QCOMPARE(classify(0xF2), RelinkRescue::Failure::ClientStateStuck);
        QCOMPARE(classify(0xF0), RelinkRescue::Failure::ClientStateStuck);
        QCOMPARE(classify(0xF3), RelinkRescue::Failure::Other); // one rendezvous
        QCOMPARE(classify(0), RelinkRescue::Failure::Other);    // e.g. a timeout
        QVERIFY(rescue.attemptFailed(7, t0, classify(0xF2)));
        QVERIFY(!rescue.attemptFailed(7, t0 + 5s, classify(0xF2)));
    }

    void aPeerRefusingIntroductionsCannotRotateOurVanguards() {
        // Each purge (NEWNYM) also replaces tor's vanguards-lite layer-2 relays. A peer that
        // keeps our introductions failing, call after call, gets one purge per 10 minutes.
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        const auto stuck = classify(0xF2);
        QVERIFY(rescue.attemptFailed(0, t0, stuck));
        std::uint8_t slot = 0;
        for (auto t = t0 + 15s; t < t0 + 9min; t += 15s, slot = std::uint8_t((slot + 1) % 12))
            QVERIFY(!rescue.attemptFailed(slot, t, stuck));
        rescue.startCall(); // the user calls again
        QVERIFY(!rescue.attemptFailed(0, t0 + 9min + 30s, stuck));
        QVERIFY(rescue.attemptFailed(0, t0 + 10min + 1s, stuck));
    }

    // Fault: our tor died mid-call. Until the new one reports its SOCKS port every slot retries
    // each second and finds no tor; three such failures in one slot asked for a purge, which
    // reached no tor (the control connection was down) and still used up the purge of the next
    // 10 minutes, so a stuck state after the restart could not be purged.
    void attemptsThatFoundNoTorDoNotCount() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        const auto noTor =
            RelinkRescue::classify(onionvoice::net::OnionLink::Failure::ProxyUnreachable, 0);
        QCOMPARE(noTor, RelinkRescue::Failure::NoTor);
        for (int i = 0; i < 10; ++i)
            QVERIFY(!rescue.attemptFailed(2, t0 + std::chrono::seconds(i), noTor));
        // Tor is back, and its state is stuck: the purge is still there to be had.
        QVERIFY(rescue.attemptFailed(2, t0 + 11s, classify(0xF2)));
    }

    // Fault: the peer's tor died in the call. Every link broke at once, and each replacement is
    // answered "introduction failed" (its introduction points died with it) until it is back: a
    // purge then fixed nothing and used up the one of the next 10 minutes, which the call back
    // needed when it met the stuck state (tst_handshaketwins callingBackThroughAStuckTorPurgesIt).
    void attemptsWhileNoLinkWorksDoNotCount() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        const auto stuck = classify(0xF2);
        constexpr auto none = RelinkRescue::CallLinks::NoneWorking;
        for (int i = 0; i < 24; ++i)
            QVERIFY(!rescue.attemptFailed(std::uint8_t(i % 2), t0 + std::chrono::seconds(i), stuck,
                                          none));
        // With a link of the call working again, the same answers are tor's state.
        QVERIFY(rescue.attemptFailed(0, t0 + 30s, stuck, RelinkRescue::CallLinks::Working));

        RelinkRescue callBack;
        for (int i = 0; i < 24; ++i)
            QVERIFY(!callBack.attemptFailed(0, t0 + std::chrono::seconds(i), stuck, none));
        callBack.peerReached(QStringLiteral("bob"), t0 + 30s); // the call ended
        callBack.startCall();
        QVERIFY(callBack.dialAttemptFailed(QStringLiteral("bob"), 0, t0 + 40s, stuck));
    }

    // Fault: the peer's tor died in the call, and the first link to break had its replacement
    // answered "introduction failed" while another link was still up and the peer had been heard
    // a moment ago. The engine asks whether the call still works RelinkRescue::kConfirmDelay
    // later: it does not, the purge is withdrawn, and the call back may purge. A purge made
    // stays spent.
    void aPurgeWithdrawnIsNotSpent() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        const auto stuck = classify(0xF2);
        QVERIFY(rescue.attemptFailed(3, t0, stuck, RelinkRescue::CallLinks::Working));
        rescue.purgeWithdrawn();
        rescue.peerReached(QStringLiteral("bob"), t0 + 20s);
        rescue.startCall();
        QVERIFY(rescue.dialAttemptFailed(QStringLiteral("bob"), 0, t0 + 30s, stuck));

        RelinkRescue made;
        QVERIFY(made.attemptFailed(3, t0, stuck, RelinkRescue::CallLinks::Working));
        made.peerReached(QStringLiteral("bob"), t0 + 20s);
        made.startCall();
        QVERIFY(!made.dialAttemptFailed(QStringLiteral("bob"), 0, t0 + 30s, stuck));
    }

    // A call with bob dropped, and the call back meets tor's stuck state: bob was there a moment
    // ago, so "introduction failed" is our tor's state, and the dial asks for the purge at once.
    void aCallBackAfterACallAsksForAPurge() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        rescue.peerReached(QStringLiteral("bob"), t0);
        QVERIFY(rescue.dialAttemptFailed(QStringLiteral("bob"), 0, t0 + 30s, classify(0xF2)));
    }

    // Anyone we call while they are away makes tor answer "introduction failed" too: a dial to a
    // peer we have not been in a call with lately never asks for a purge (it would replace our
    // layer-2 relays for nothing), and leaves the purge to a call that needs it.
    void aDialToAPeerNotReachedLatelyDoesNot() {
        RelinkRescue rescue;
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        for (int i = 0; i < 5; ++i) {
            const auto t = t0 + std::chrono::seconds(i);
            QVERIFY(!rescue.dialAttemptFailed(QStringLiteral("away"), 0, t, classify(0xF2)));
            QVERIFY(!rescue.dialAttemptFailed(QStringLiteral("away"), 0, t, classify(0)));
        }
        rescue.peerReached(QStringLiteral("bob"), t0);
        QVERIFY(
            !rescue.dialAttemptFailed(QStringLiteral("bob"), 0, t0 + 10min + 1s, classify(0xF2)));
        rescue.startCall();
        QVERIFY(rescue.attemptFailed(0, t0 + 11min, classify(0xF2)));
    }

    void purgesAreSpacedOut() {
        RelinkRescue rescue({3, 15000ms});
        const auto t0 = RelinkRescue::Clock::time_point{} + 1h;
        for (int i = 0; i < 2; ++i)
            QVERIFY(!rescue.attemptFailed(0, t0));
        QVERIFY(rescue.attemptFailed(0, t0));
        // Still failing right after the purge: not again before the interval is over.
        for (int i = 0; i < 5; ++i)
            QVERIFY(!rescue.attemptFailed(0, t0 + 10s));
        QVERIFY(rescue.attemptFailed(0, t0 + 16s));
    }
};

QTEST_GUILESS_MAIN(RelinkRescueTest)
#include "tst_relinkrescue.moc"
