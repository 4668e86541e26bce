// The call's first link on the private Tor network (tests/testnet): an attempt that hangs before
// the peer was ever reached gets a second beside it (net::LinkPoolConfig::firstHedgeDelay), and
// when both attempts reach the callee, the later Hello is a twin of the first (call::RingKey):
// it joins the ring, the call goes on over whichever link the caller kept, and nobody hears
// "busy". Attack: a stranger's twins must end with their ring whether we are idle (a real ring)
// or busy (a decoy), or their timing would tell the two apart; a twin that comes once its ring is
// over must not ring again. Fault: calling back into a tor whose state for the peer is stuck
// (call::RelinkRescue) purges it rather than waiting it out.
#include "CallParties.h"
#include "HandshakeRelay.h"
#include "tor/OnionService.h"

#include <QFile>
#include <QLocalSocket>
#include <QScopeGuard>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <csignal>
#include <memory>

using namespace onionvoice;
using namespace onionvoice::call;
using namespace onionvoice::call::testing;
using namespace std::chrono_literals;

// Carol's state when a stranger's ring ends, and how it ends (aTwinOfAnEndedRingIsRefused).
enum class Carol { Idle, Busy, Displaced };
enum class RingEnd { Cancel, Reject, LinkLost };
Q_DECLARE_METATYPE(Carol)
Q_DECLARE_METATYPE(RingEnd)

namespace {

constexpr int kIntroductionFailed = 0xF2; // tor's SOCKS answer (RelinkRescue)

bool isMessage(const QByteArray& record, const HandshakeMessage& expected) {
    const auto decoded = decodeHandshake(bytesOf(record)).message;
    return decoded && *decoded == expected;
}

// A control connection of the test's own to a party's tor.
class TorHand : public QObject {
public:
    explicit TorHand(tor::TorLauncher& tor, const QByteArray& events) {
        QFile portFile(tor.torDirectory() + QStringLiteral("/control-port"));
        QFile cookieFile(tor.torDirectory() + QStringLiteral("/control_auth_cookie"));
        if (!portFile.open(QIODevice::ReadOnly) || !cookieFile.open(QIODevice::ReadOnly))
            return;
        const QByteArray port = portFile.readAll().trimmed().split(':').last();
        connect(&control_, &tor::TorController::eventReceived, this, [this](const auto& event) {
            if (!event.lines.isEmpty())
                onEvent(tor::parseTorArguments(event.lines.first().text));
        });
        control_.connectToTor(QHostAddress::LocalHost, quint16(port.toUInt()));
        control_.send("AUTHENTICATE " + cookieFile.readAll().toHex());
        control_.send("SETEVENTS " + events);
    }

protected:
    virtual void onEvent(const tor::TorArguments& event) = 0;

    tor::TorController control_;
};

// Spoils a party's tor's state for one peer the way a relay that dies on a call's paths does
// (call::RelinkRescue): it closes each introduction circuit to the peer that tor builds, before
// it is built, so tor counts a failure against the peer's introduction points (five make one
// unusable for two minutes). While it lives, every attempt to reach the peer fails; once all
// points are unusable tor answers "introduction failed" at once.
class IntroductionSpoiler : public TorHand {
public:
    IntroductionSpoiler(tor::TorLauncher& tor, const QString& peer)
        : TorHand(tor, "CIRC CIRC_MINOR")
        , peer_(peer.toLatin1()) {}

private:
    void onEvent(const tor::TorArguments& circuit) override {
        const QByteArray status = circuit.positional.value(2);
        if (circuit.keyed.value("PURPOSE") != "HS_CLIENT_INTRO" ||
            circuit.keyed.value("HS_STATE") != "HSCI_CONNECTING" ||
            circuit.keyed.value("REND_QUERY") != peer_ || status == "CLOSED" || status == "FAILED")
            return;
        control_.send("CLOSECIRCUIT " + circuit.positional.value(1));
    }

    QByteArray peer_;
};

// Breaks one link of a party's call to a peer (it closes the rendezvous circuit under it), and
// tells when the attempt that replaces it has been answered.
class LinkBreaker : public TorHand {
public:
    LinkBreaker(tor::TorLauncher& tor, const QString& peer)
        : TorHand(tor, "STREAM")
        , target_(peer.toLatin1() + ".onion:") {
        control_.send("GETINFO circuit-status", [this, peer = peer.toLatin1()](const auto& reply) {
            for (const QByteArray& line : reply.value("circuit-status").split('\n')) {
                const tor::TorArguments circuit = tor::parseTorArguments(line);
                if (circuit.keyed.value("PURPOSE") == "HS_CLIENT_REND" &&
                    circuit.keyed.value("HS_STATE") == "HSCR_JOINED" &&
                    circuit.keyed.value("REND_QUERY") == peer) {
                    control_.send("CLOSECIRCUIT " + circuit.positional.first());
                    broken_ = true;
                    return;
                }
            }
        });
    }
    bool broken() const { return broken_; }
    // A stream to the peer opened after the break has failed or closed.
    bool replacementAnswered() const { return answered_; }

private:
    void onEvent(const tor::TorArguments& stream) override {
        const QByteArray id = stream.positional.value(1);
        const QByteArray status = stream.positional.value(2);
        if (broken_ && status == "NEW" && stream.positional.value(4).startsWith(target_))
            replacements_.insert(id);
        else if (replacements_.contains(id) && (status == "FAILED" || status == "CLOSED"))
            answered_ = true;
    }

    QByteArray target_;
    QSet<QByteArray> replacements_;
    bool broken_ = false;
    bool answered_ = false;
};

} // namespace

class HandshakeTwinsTest : public QObject, public CallParties {
    Q_OBJECT
private:
    HandshakeRelay relay_{[this] {
        return party("alice").engine->torLauncher()->socksSocketPath();
    }};

    // A party's configuration whose handshake slot (0) goes through the relay.
    EngineConfig viaRelay() {
        EngineConfig config = partyConfig();
        config.slotSocksPorts = {relay_.port()};
        return config;
    }

    // A stranger's Hello to carol over a raw link through bob's tor: `ephemeral` makes it the
    // call's, so a second one with the same key is a twin of the first.
    std::unique_ptr<net::OnionLink> strangerRings(const tor::OnionIdentity& stranger,
                                                  const EphemeralKey& ephemeral, int tag) {
        const SealedRecord hello = encodeHandshake(
            makeHello(stranger, party("carol").engine->address(), ephemeral, {}, 0,
                      std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch())));
        auto link = std::make_unique<net::OnionLink>(multipath::kRecordSize);
        link->connectToOnion(
            torSocksEndpoint(*party("bob").engine->torLauncher()),
            party("carol").engine->address() + ".onion", EngineConfig{}.servicePort,
            "twin-" + QByteArray::number(tag), 60s,
            QByteArray(reinterpret_cast<const char*>(hello.data()), qsizetype(hello.size())));
        return link;
    }

    // Attack, for one state of carol's: stranger S rings (one), another stranger T rings two
    // seconds later (separate), S's twin two seconds after that (twin), then a second twin, and a
    // third, which is closed without a word (at most two per ring). The twins hear Ringing, and
    // then NoAnswer with S's ring, before T's ring ends; before, a twin rang its own full time.
    // (S's links are on circuits of their own: they hear NoAnswer in either order.)
    void twinEndsWithItsRing() {
        const auto s = tor::OnionIdentity::generate();
        const auto t = tor::OnionIdentity::generate();
        EphemeralKey sKey, tKey;
        std::array<std::unique_ptr<net::OnionLink>, 5> links;
        std::array<std::unique_ptr<QSignalSpy>, 5> heard;
        static int tags = 0;
        const auto dial = [&](std::size_t i, const tor::OnionIdentity& who,
                              const EphemeralKey& key) {
            links[i] = strangerRings(who, key, ++tags);
            heard[i] =
                std::make_unique<QSignalSpy>(links[i].get(), &net::OnionLink::recordReceived);
        };
        const auto ring = [&](std::size_t i, const tor::OnionIdentity& who,
                              const EphemeralKey& key) {
            dial(i, who, key);
            QTRY_COMPARE_WITH_TIMEOUT(heard[i]->size(), 1, kCallTimeout);
            QVERIFY(isMessage(heard[i]->first().at(0).toByteArray(), Ringing{}));
        };
        ring(0, s, sKey);
        QTest::qWait(2000);
        ring(1, t, tKey);
        QTest::qWait(2000);
        ring(2, s, sKey);
        ring(3, s, sKey);
        dial(4, s, sKey);
        QSignalSpy opened(links[4].get(), &net::OnionLink::opened);
        QTRY_VERIFY_WITH_TIMEOUT(links[4]->state() == net::OnionLink::State::Closed ||
                                     links[4]->state() == net::OnionLink::State::Failed,
                                 kCallTimeout);
        QCOMPARE(opened.size(), 1); // it reached carol, who closed it
        QCOMPARE(heard[4]->size(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(heard[2]->size(), 2, kCallTimeout);
        QVERIFY2(heard[1]->size() == 1, "the twin rang on after its ring ended");
        for (const std::size_t i : {2, 0, 3}) {
            QTRY_COMPARE_WITH_TIMEOUT(heard[i]->size(), 2, 10000);
            QVERIFY(
                isMessage(heard[i]->at(1).at(0).toByteArray(), Refusal{RefusalReason::NoAnswer}));
        }
        QTRY_COMPARE_WITH_TIMEOUT(heard[1]->size(), 2, kCallTimeout);
    }

    // Alice dials bob through the relay's plan for her attempts; bob answers once both attempts
    // have reached the relay and alice hears the ring.
    void dialAnswered(std::vector<HandshakeRelay::Attempt> plan) {
        Party& alice = party("alice");
        Party& bob = party("bob");
        relay_.plan(std::move(plan));
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(bob.incoming->size(), 1, kCallTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(
            alice.reached(CallState::Ringing) || alice.reached(CallState::Ended), kCallTimeout);
        QVERIFY2(alice.reached(CallState::Ringing), qPrintable(describe(alice.endReason())));
        QVERIFY(relay_.arrived() >= 2);
        QVERIFY(bob.engine->callState() == CallState::Ringing);
        bob.engine->answer();
        QTRY_VERIFY_WITH_TIMEOUT(
            alice.reached(CallState::Active) || alice.reached(CallState::Ended), kCallTimeout);
        QVERIFY2(alice.reached(CallState::Active), qPrintable(describe(alice.endReason())));
    }

private slots:
    void initTestCase() {
        if (!networkUp())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        addParty("alice", viaRelay());
        EngineConfig longRing = partyConfig();
        // Bob's outlasts alice's first attempt and its hedge; carol's, the three rings of a
        // stranger's probe, however slowly their links open.
        longRing.ringTimeout = 25s;
        addParty("bob", longRing);
        addParty("carol", longRing);
        waitReachable({"alice", "bob", "carol"});
    }
    void init() { resetParties(); }
    void cleanup() { reportIfFailed(); }
    void cleanupTestCase() { stopParties(); }

    // Leaves `who`'s tor stuck for `peer` (IntroductionSpoiler): its next attempt to reach the
    // peer is answered "introduction failed" at once. The tor may be stuck already: then the
    // first probe says so.
    void makeStuck(const char* who, const char* peer) {
        {
            IntroductionSpoiler spoiler(*party(who).engine->torLauncher(),
                                        party(peer).engine->address());
            for (int tag = 0; tag < 20; ++tag) {
                const auto probe = rawLink(who, peer, 7000 + tag);
                QTRY_VERIFY_WITH_TIMEOUT(probe->state() == net::OnionLink::State::Failed ||
                                             probe->state() == net::OnionLink::State::Open,
                                         kCallTimeout);
                if (probe->socksReplyCode() == kIntroductionFailed)
                    break;
            }
        }
        const auto stuck = rawLink(who, peer, 7100);
        QTRY_VERIFY_WITH_TIMEOUT(stuck->state() == net::OnionLink::State::Failed ||
                                     stuck->state() == net::OnionLink::State::Open,
                                 kCallTimeout);
        QVERIFY2(stuck->socksReplyCode() == kIntroductionFailed, "the tor is not stuck");
    }

    // Fault: carol's call with bob is lost as bob's tor dies in it (his app crashed, say), and
    // once he is back her tor's state for bob is stuck as a relay's death leaves it
    // (IntroductionSpoiler): every attempt at the first link of her call back is answered
    // "introduction failed" for two minutes. Before, the dial retried until its 40 s were up and
    // ended unreachable; now the first such answer purges tor's state (bob was in a call with her
    // a moment ago), and the call back connects.
    //
    // While bob was gone her call's replacement links were answered the same; those answers must
    // not spend the purge (one per 10 minutes) when there is nobody to reach. The test makes the
    // hardest case of it: her tor is stuck for bob already, and a link of the call breaks just
    // before bob's tor dies, so its replacement is answered "introduction failed" while the call
    // still works and bob was heard a moment ago (RelinkRescue::kConfirmDelay). Before, that
    // answer spent the purge (in one run of ten, as bob's links closed one by one), and the call
    // back found it used up.
    void callingBackThroughAStuckTorPurgesIt() {
        Party& carol = party("carol");
        Party& bob = party("bob");
        answeredCall(carol, bob);
        if (QTest::currentTestFailed())
            return;
        // All links up first: an attempt still opening would be spoiled, and its failure is the
        // case for a purge (the call works), which would leave her tor unstuck.
        QTRY_COMPARE_WITH_TIMEOUT(
            carol.statistics->isEmpty() ? 0 : carol.lastStatistics().linksUp(), 12, kCallTimeout);
        makeStuck("carol", "bob");
        if (QTest::currentTestFailed())
            return;
        const int published = bob.engine->service()->publishCount();
        {
            LinkBreaker breaker(*carol.engine->torLauncher(), bob.engine->address());
            QTRY_VERIFY_WITH_TIMEOUT(breaker.broken(), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(breaker.replacementAnswered(), kCallTimeout);
            QTest::qWait(300); // carol's engine has the answer, and bob is heard still
        }
        ::kill(pid_t(bob.engine->torLauncher()->processId()), SIGKILL);
        waitRepublished(bob, published);
        carol.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(carol.engine->callState(), CallState::Idle, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(bob.engine->callState(), CallState::Idle, 20000);
        waitIdle({"carol", "bob"});
        makeStuck("carol", "bob");
        if (QTest::currentTestFailed())
            return;

        answerNextCall(bob);
        carol.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(
            carol.reached(CallState::Active) || carol.reached(CallState::Ended), kCallTimeout);
        QVERIFY2(carol.reached(CallState::Active), qPrintable(describe(carol.endReason())));
        carol.engine->hangUp();
    }

    // Alice's first attempt hangs (tor never hears of it). Before, the dial waited for the
    // attempt's connect timeout (a minute) and ended unreachable after its own 40 s; now a second
    // attempt beside it rings bob, and the call is answered.
    void aFirstLinkThatHangsIsHedged() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        relay_.plan({HandshakeRelay::Attempt::Swallowed});
        answerNextCall(bob);
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(
            alice.reached(CallState::Active) || alice.reached(CallState::Ended), kCallTimeout);
        QVERIFY2(alice.reached(CallState::Active), qPrintable(describe(alice.endReason())));
        QVERIFY(relay_.arrived() >= 2);
        QCOMPARE(bob.incoming->size(), 1);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
    }

    // Both of alice's attempts reach bob: the first rings him, but tor's answer to it never
    // reaches alice, so after the hedge delay her second attempt opens and she closes the first.
    // Bob takes the second Hello as a twin of the first: it hears Ringing, takes the first link's
    // place, and carries the answer. Before, bob told alice (a stranger) it was ringing with a
    // decoy, his ring ended "cancelled" when the first link closed, and alice never got an
    // answer (a contact would have heard "busy").
    void twinsOfOneCallMakeOneCall() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        dialAnswered({HandshakeRelay::Attempt::AnswerHeld});
        if (QTest::currentTestFailed())
            return;
        QTRY_COMPARE_WITH_TIMEOUT(bob.engine->callState(), CallState::Active, kCallTimeout);
        // Sound flows both ways over the call's links, the handshake slot's included.
        QTRY_VERIFY_WITH_TIMEOUT(!alice.statistics->isEmpty() && !bob.statistics->isEmpty() &&
                                     alice.lastStatistics().framesReceived > 50 &&
                                     bob.lastStatistics().framesReceived > 50,
                                 kCallTimeout);
        QCOMPARE(bob.incoming->size(), 1);
        QCOMPARE(bob.refused->size(), 0);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        QCOMPARE(alice.endReason(), EndReason::HungUpLocally);
    }

    // Both of alice's attempts reach bob, as above, but bob reads the second one's Hello only
    // kHelloHeld after it opened. Alice keeps her first attempt open until bob has answered on
    // the second, so the Hello joins the ring that the first started: one ring, and bob's answer
    // reaches alice. Before, she closed the first attempt as the second opened; bob's ring ended
    // "cancelled", the late Hello rang anew, and an answer given in between would have been lost.
    void aTwinHeardLateJoinsTheRing() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        dialAnswered({HandshakeRelay::Attempt::AnswerHeld, HandshakeRelay::Attempt::HelloHeld});
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(bob.incoming->size(), 1);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
    }

    // Crossing calls (tst_calls callingEachOtherAtOnceMakesOneCall) where the call that goes on,
    // the lower address's, has its Hello held back: the other caller hears "crossed" for its own
    // call first, waits for the other call without ending its own, and answers it when its Hello
    // comes. Two fresh parties play them, the lower one dialling through the relay; fresh pairs
    // are made until the one through the relay has the lower address (half of them do; a fixed
    // party with an address near the top of the alphabet made this fail in a third of the runs).
    void crossingCallsWhereTheCallThatGoesOnIsLate() {
        QString keeperName, yielderName;
        for (int tries = 0; keeperName.isEmpty(); ++tries) {
            QVERIFY2(tries < 16, "no pair with the lower address through the relay");
            const QString k = QStringLiteral("keeper%1").arg(tries);
            const QString y = QStringLiteral("yielder%1").arg(tries);
            addParty(k, viaRelay());
            addParty(y, partyConfig());
            if (party(k).engine->address() < party(y).engine->address()) {
                keeperName = k;
                yielderName = y;
            } else {
                dropParty(k);
                dropParty(y);
            }
        }
        const QByteArray k = keeperName.toUtf8(), y = yielderName.toUtf8();
        waitReachable({k.constData(), y.constData()});
        Party& keeper = party(keeperName);
        Party& yielder = party(yielderName);
        relay_.plan({HandshakeRelay::Attempt::HelloHeld});
        keeper.engine->dial(yielder.engine->address());
        yielder.engine->dial(keeper.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(keeper.reached(CallState::Active), kCallTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(yielder.reached(CallState::Active), kCallTimeout);
        for (Party* p : {&keeper, &yielder}) {
            QVERIFY2(!p->reached(CallState::Ended), qPrintable(p->name));
            QVERIFY2(p->refused->isEmpty() && p->incoming->isEmpty(), qPrintable(p->name));
        }
        keeper.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(yielder.endReason(), EndReason::HungUpByPeer, 10000);
        dropParty(keeperName);
        dropParty(yielderName);
    }

    void aStrangersTwinEndsWithItsRingWhenIdle() {
        twinEndsWithItsRing();
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(party("carol").incoming->size(), 1); // S's ring was a real one
    }

    void aStrangersTwinEndsWithItsRingWhenBusy() {
        Party& alice = party("alice");
        Party& carol = party("carol");
        relay_.plan({});
        answerNextCall(carol);
        alice.engine->dial(carol.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        twinEndsWithItsRing();
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(carol.incoming->size(), 1); // only alice's call rang
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(carol.endReason(), EndReason::HungUpByPeer, 10000);
    }

    // Attack: a twin of a ring that is over. A stranger rings carol and ends the ring (its Cancel,
    // as a caller that hangs up sends; or carol rejects), and then a twin of that call arrives, as
    // the caller's second attempt does when its Hello was late on its circuit. Before, the twin
    // rang anew: carol's phone rang a second time for a call its caller had given up, and a
    // rejected caller rang again. Now it hears BadRequest, as a replay does, whether carol is idle
    // (a real ring), busy (a decoy) or the stranger's ring was displaced by a contact's call (a
    // decoy since), so the answer tells these apart no more than the ring did. A ring whose link
    // was lost before the caller said anything is not over for the caller (its attempt may never
    // have opened on its side, and the next one carries a Hello of the same call): that twin rings
    // anew, in every state (a displaced ring taken for over at once refused it, and told the
    // stranger that a contact had called).
    void aTwinOfAnEndedRingIsRefused_data() {
        QTest::addColumn<Carol>("carolIs");
        QTest::addColumn<RingEnd>("end");
        QTest::newRow("idle, cancelled") << Carol::Idle << RingEnd::Cancel;
        QTest::newRow("idle, rejected") << Carol::Idle << RingEnd::Reject;
        QTest::newRow("idle, link lost") << Carol::Idle << RingEnd::LinkLost;
        QTest::newRow("busy, cancelled") << Carol::Busy << RingEnd::Cancel;
        QTest::newRow("busy, link lost") << Carol::Busy << RingEnd::LinkLost;
        QTest::newRow("displaced, cancelled") << Carol::Displaced << RingEnd::Cancel;
        QTest::newRow("displaced, link lost") << Carol::Displaced << RingEnd::LinkLost;
    }

    void aTwinOfAnEndedRingIsRefused() {
        QFETCH(Carol, carolIs);
        QFETCH(RingEnd, end);
        Party& alice = party("alice");
        Party& carol = party("carol");
        relay_.plan({});
        QString error;
        if (carolIs == Carol::Busy) {
            answerNextCall(carol);
            alice.engine->dial(carol.engine->address());
            QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        } else if (carolIs == Carol::Displaced) {
            QVERIFY(carol.engine->contacts().add(
                {alice.engine->address(), "Alice", {}, false, false, {}, {}}, &error));
        }
        const int rangBefore = int(carol.incoming->size());
        const auto stranger = tor::OnionIdentity::generate();
        const EphemeralKey key;
        static int tags = 100;
        auto first = strangerRings(stranger, key, ++tags);
        QSignalSpy firstHeard(first.get(), &net::OnionLink::recordReceived);
        QTRY_COMPARE_WITH_TIMEOUT(firstHeard.size(), 1, kCallTimeout);
        QVERIFY(isMessage(firstHeard.first().at(0).toByteArray(), Ringing{}));
        if (carolIs == Carol::Displaced) {
            alice.engine->dial(carol.engine->address());
            QTRY_COMPARE_WITH_TIMEOUT(int(carol.incoming->size()), rangBefore + 2, kCallTimeout);
            QCOMPARE(firstHeard.size(), 1); // the stranger's ring rings on
        }
        switch (end) {
        case RingEnd::Cancel:
            first->sendRecord(encodeHandshake(Refusal{RefusalReason::Cancelled}));
            QTRY_VERIFY_WITH_TIMEOUT(first->state() == net::OnionLink::State::Closed ||
                                         first->state() == net::OnionLink::State::Failed,
                                     kCallTimeout);
            break;
        case RingEnd::Reject:
            QTRY_COMPARE_WITH_TIMEOUT(carol.engine->callState(), CallState::Ringing, kCallTimeout);
            carol.engine->reject();
            QTRY_COMPARE_WITH_TIMEOUT(firstHeard.size(), 2, kCallTimeout);
            QVERIFY(
                isMessage(firstHeard.at(1).at(0).toByteArray(), Refusal{RefusalReason::Rejected}));
            break;
        case RingEnd::LinkLost:
            first.reset();
            break;
        }
        if (carolIs == Carol::Idle)
            QTRY_COMPARE_WITH_TIMEOUT(carol.engine->callState(), CallState::Idle, kCallTimeout);
        else
            QTest::qWait(2000); // the decoy's end, which carol does not show
        const auto decoys = carol.engine->refusals().decoyRings;
        auto twin = strangerRings(stranger, key, ++tags);
        QSignalSpy twinHeard(twin.get(), &net::OnionLink::recordReceived);
        QTRY_COMPARE_WITH_TIMEOUT(twinHeard.size(), 1, kCallTimeout);
        const QByteArray answer = twinHeard.first().at(0).toByteArray();
        const int rang = int(carol.incoming->size()) - rangBefore;
        if (end == RingEnd::LinkLost) {
            QVERIFY2(isMessage(answer, Ringing{}), "the call's next attempt did not ring");
            // A ring of its own, not a twin of a decoy that was still there.
            QCOMPARE(carol.engine->refusals().decoyRings,
                     decoys + (carolIs == Carol::Idle ? 0 : 1));
            QCOMPARE(rang, carolIs == Carol::Busy ? 0 : 2);
        } else {
            QVERIFY2(isMessage(answer, Refusal{RefusalReason::BadRequest}),
                     "the twin of a ring that was over rang anew");
            QCOMPARE(rang, carolIs == Carol::Busy ? 0 : carolIs == Carol::Idle ? 1 : 2);
        }
        twin.reset();
        if (carolIs != Carol::Idle)
            alice.engine->hangUp();
        if (carolIs == Carol::Displaced)
            QVERIFY(carol.engine->contacts().remove(alice.engine->address()));
        QTRY_COMPARE_WITH_TIMEOUT(carol.engine->callState(), CallState::Idle, kCallTimeout);
    }

    // Fault: bob's tor froze (SIGSTOP, as a suspended laptop's does) and his service is back on
    // another tor with a newer descriptor (carol's tor publishes it with bob's key, as bob's own
    // new tor would). The introduction points of the descriptor that erin's tor cached in her last
    // call with bob still hold the frozen tor's circuits: they acknowledge every introduction and
    // pass it to a tor that never answers, so erin's tor waits for a rendezvous that never comes
    // and, its introductions all acknowledged, never fetches the new descriptor. Before, the dial
    // and its hedge waited so until the dial timed out (the call back that hung after a restart
    // of the callee's tor in tst_manycalls: the callee's new tor never heard of the introductions).
    // Now the hedge finds the first attempt introduced and left waiting: erin's tor purges its
    // state for bob (he was in a call with her a moment ago) and the slot is dialled afresh.
    // Last of the functions: bob's tor is thawed after it, with a moment of news to catch up on.
    void aCallBackPastIntroductionPointsThatNeverAnswerPurges() {
        if (!has("erin")) {
            addParty("erin"); // a caller whose one purge per 10 minutes is unspent
            waitReachable({"erin"});
        }
        Party& erin = party("erin");
        Party& bob = party("bob");
        Party& carol = party("carol");
        answeredCall(erin, bob);
        if (QTest::currentTestFailed())
            return;
        erin.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"erin", "bob"});
        erin.clear();
        bob.clear();

        // Bob's own launcher would find the frozen tor silent and start another (which takes the
        // frozen one's circuits down with it): bob's app stands for the rest of a machine whose
        // tor froze alone, so its watch is off while the tor is frozen.
        tor::TorLauncher* bobsLauncher = bob.engine->torLauncher();
        bobsLauncher->controller()->setReplyTimeout(0ms);
        QSignalSpy bobsRestarts(bobsLauncher, &tor::TorLauncher::restarting);
        const auto bobsTor = pid_t(bobsLauncher->processId());
        ::kill(bobsTor, SIGSTOP);
        const auto thaw = qScopeGuard([bobsTor] { ::kill(bobsTor, SIGCONT); });
        QString error;
        auto bobsIdentity = partyIdentity("bob", &error);
        QVERIFY2(bobsIdentity, qPrintable(error));
        tor::OnionService::Config service;
        service.virtualPort = EngineConfig{}.servicePort;
        service.target = bob.engine->serviceTarget();
        tor::OnionService elsewhere(carol.engine->torLauncher(), std::move(*bobsIdentity), service);
        const auto unpublish = qScopeGuard([&carol, address = bob.engine->address()] {
            carol.engine->torLauncher()->controller()->send("DEL_ONION " + address.toLatin1());
        });
        QTRY_COMPARE_WITH_TIMEOUT(elsewhere.state(), tor::OnionService::State::Reachable,
                                  kStartTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(elsewhere.uploads().allSettled(), kStartTimeout);

        answerNextCall(bob);
        erin.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(erin.reached(CallState::Active) || erin.reached(CallState::Ended),
                                 kCallTimeout);
        QVERIFY2(erin.reached(CallState::Active), qPrintable(describe(erin.endReason())));
        QVERIFY(bobsRestarts.isEmpty()); // the frozen tor held its circuits throughout
        erin.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
    }
};

QTEST_GUILESS_MAIN(HandshakeTwinsTest)
#include "tst_handshaketwins.moc"
