// Integration tests of the course of a call between engines on the private Tor network
// (tests/testnet): a full call with audio both ways, its duration counted from the answer, a
// caller without audio who rings nobody, and every way a call can end: an audio device that
// cannot start, a rejection (by a callee warned while it rang that its microphone is missing), no
// answer, an application that ends the call from the engine's own signals, and a cancel that
// crosses the answer. Who may ring at all is tst_whomayring's; the contacts-only service is
// tst_contactsonly's.
#include "CallParties.h"
#include "media/WavFile.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

using namespace onionvoice;
using namespace onionvoice::call;
using namespace onionvoice::call::testing;
using namespace std::chrono_literals;

namespace {

// Fraction of 20 ms frames of a recording whose level is that of speech, not silence.
double speechFraction(const QString& path) {
    media::WavAudio audio;
    QString error;
    if (!media::readWavFile(path, &audio, &error))
        return 0;
    const std::size_t frame = std::size_t(audio.sampleRate / 50);
    std::size_t frames = 0, loud = 0;
    for (std::size_t i = 0; i + frame <= audio.samples.size(); i += frame, ++frames) {
        double energy = 0;
        for (std::size_t j = 0; j < frame; ++j)
            energy += double(audio.samples[i + j]) * audio.samples[i + j];
        loud += std::sqrt(energy / double(frame)) > 0.01 ? 1 : 0;
    }
    return frames ? double(loud) / double(frames) : 0;
}

enum class Quitter { Caller, Callee };
enum class Phase { Ringing, InCall };

} // namespace

Q_DECLARE_METATYPE(Quitter)
Q_DECLARE_METATYPE(Phase)

class CallsTest : public QObject, public CallParties {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!networkUp())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        startParties({"alice", "bob", "carol"});
    }
    void init() { resetParties(); }
    void cleanup() { reportIfFailed(); }
    void cleanupTestCase() { stopParties(); }

    void fullCallWithAudioBothWays() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        answerNextCall(bob);
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), kCallTimeout);
        QCOMPARE(bob.incoming->size(), 1);
        QCOMPARE(bob.incoming->first().at(0).toString(), alice.engine->address()); // verified
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), 10000);
        // All twelve links join on both sides.
        const auto linksUp = [](const Party& p) {
            return p.statistics->isEmpty() ? 0 : p.lastStatistics().linksUp();
        };
        QTRY_COMPARE_WITH_TIMEOUT(linksUp(alice), 12, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(linksUp(bob), 12, 30000);
        QTest::qWait(20000); // 20 s of audio both ways
        bob.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::HungUpByPeer, 10000);
        QCOMPARE(bob.endReason(), EndReason::HungUpLocally);

        for (const Party* p : {&alice, &bob}) {
            const CallStatistics s = p->lastStatistics();
            QVERIFY2(s.framesReceived > 400, qPrintable(QString::number(s.framesReceived)));
            int carried = 0;
            for (const LinkStatistics& l : s.links)
                carried += l.recordsSent > 0 ? 1 : 0;
            // Every link: the scheduler sends a copy over any link it has not used for 3 s
            // (AdaptivePolicy's exploration), so in 20 s none stays unused.
            QCOMPARE(carried, 12);
            QVERIFY(s.cellsPerSecond < 30); // one record per 40 ms packet, plus a few copies
            QCOMPARE(s.recordsRejected, 0u);
            qInfo("%s: %llu frames, p50 %.0f ms, p99 %.0f ms, MOS %.2f, %d links carried records",
                  qPrintable(p->name), (unsigned long long)s.framesReceived, s.delayP50Ms,
                  s.delayP99Ms, s.mos, carried);
        }
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(alice.recording) && QFile::exists(bob.recording),
                                 5000);
        QVERIFY2(speechFraction(alice.recording) > 0.3, "alice heard no speech");
        QVERIFY2(speechFraction(bob.recording) > 0.3, "bob heard no speech");
        waitIdle({"alice", "bob"});
    }

    // Fault: the callee's audio device cannot start (a machine without a microphone), then the
    // caller's, gone while the callee's phone rang. The call ended as "you hung up" and the audio
    // error, reported just before, was overwritten by that end in the app. It must end as
    // AudioFailed, straight after the error (the app pairs the two), while the other side sees an
    // ordinary hang-up.
    void audioThatCannotStartEndsTheCallAsSuch() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        for (Party* broken : {&bob, &alice}) {
            Party& other = broken == &bob ? alice : bob;
            QStringList said;
            QObject context;
            connect(broken->engine.get(), &CallEngine::errorOccurred, &context,
                    [&](const QString& message) { said.append(message); });
            connect(broken->engine.get(), &CallEngine::callStateChanged, &context,
                    [&](CallState state, const QString&, EndReason reason) {
                        if (state == CallState::Ended)
                            said.append(describe(reason));
                    });
            connect(bob.engine.get(), &CallEngine::incomingCall, &context, [&] {
                *broken->audioFault = QStringLiteral("no input device");
                bob.engine->answer();
            });
            alice.engine->dial(bob.engine->address());
            QTRY_COMPARE_WITH_TIMEOUT(broken->endReason(), EndReason::AudioFailed, kCallTimeout);
            QCOMPARE(said, QStringList({QStringLiteral("Audio could not start: no input device"),
                                        describe(EndReason::AudioFailed)}));
            QTRY_COMPARE_WITH_TIMEOUT(other.endReason(), EndReason::HungUpByPeer, 10000);
            broken->audioFault->clear();
            waitIdle({"alice", "bob"});
        }
    }

    // Fault: the sound device stops mid-call (a headset unplugged: its callbacks stop). The call
    // went on silent both ways, and nobody was told. Now it ends as an audio failure, with the
    // reason first, and the peer hears the hang-up.
    void aDeviceStoppingMidCallEndsTheCallAsSuch() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        QObject context;
        connect(bob.engine.get(), &CallEngine::incomingCall, &context,
                [&] { bob.engine->answer(); });
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active) && bob.reached(CallState::Active),
                                 kCallTimeout);
        QVERIFY(*alice.audioDevice);
        (*alice.audioDevice)->stop();
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::AudioFailed, 20000);
        QVERIFY(!alice.errors->isEmpty());
        QCOMPARE(alice.errors->last().at(0).toString(),
                 QStringLiteral("The microphone stopped working."));
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"alice", "bob"});
    }

    // Fault: a caller without a microphone rang the callee, whose answer then met a hang-up at
    // once (the caller's audio failed on the answer). The dial is refused before anything rings,
    // with the reason.
    void aCallerWithoutAudioRingsNobody() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        *alice.audioFault = QStringLiteral("no microphone found");
        QSignalSpy errors(alice.engine.get(), &CallEngine::errorOccurred);
        const auto statesBefore = alice.states->size();
        alice.engine->dial(bob.engine->address());
        alice.audioFault->clear();
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).toString(), QStringLiteral("Cannot call: no microphone found"));
        QCOMPARE(alice.states->size(), statesBefore); // never Dialing: no link, no ring
        QCOMPARE(alice.engine->callState(), CallState::Idle);
    }

    // A rejection. The callee has no microphone. Fault: nothing said so while it rang, before
    // the answer ended the call ("Audio could not start"); the ring now carries the reason, for
    // the prompt to show.
    void rejected() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        *bob.audioFault = QStringLiteral("no microphone found");
        connect(bob.engine.get(), &CallEngine::incomingCall, bob.engine.get(), &CallEngine::reject,
                Qt::SingleShotConnection);
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::RejectedByPeer, kCallTimeout);
        bob.audioFault->clear();
        QCOMPARE(bob.endReason(), EndReason::RejectedLocally);
        QCOMPARE(bob.incoming->size(), 1);
        QCOMPARE(bob.incoming->first().at(2).toString(), QStringLiteral("no microphone found"));
        waitIdle({"alice", "bob"});
    }

    // Fault (a review found it): a call's duration ran from the dial or the ring, not from the
    // answer. After a ring of a few seconds the first statistics of the call already counted
    // them: the app read "nothing has arrived for two seconds" into the first second of almost
    // every call (its grace is the call's first 3 s), cells per second came out too low, and
    // `duration_ms` of the command line was off by the ring.
    void durationCountsFromTheAnswer() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(bob.incoming->size(), 1, kCallTimeout);
        QTest::qWait(6000); // the phone rings
        bob.engine->answer();
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!alice.statistics->isEmpty() && !bob.statistics->isEmpty(), 10000);
        for (const Party* p : {&alice, &bob}) {
            const auto first = p->statistics->first().at(0).value<CallStatistics>().duration;
            QVERIFY2(first < 3s,
                     qPrintable(QStringLiteral("%1: %2 ms").arg(p->name).arg(first.count())));
        }
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"alice", "bob"});
    }

    void noAnswer() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Ringing), kCallTimeout);
        QTRY_COMPARE(bob.incoming->size(), 1);
        QVERIFY(bob.incoming->first().at(2).toString().isEmpty()); // its devices are there
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::NoAnswer, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::NoAnswer, 10000);
        waitIdle({"alice", "bob"});
    }

    // Fault: an application slot connected directly ends the call while the engine announces its
    // state (hangs up as soon as it dials, rejects as soon as it rings). The engine went on using
    // the call after the announcement and crashed on the null pointer.
    void endingTheCallFromTheStateSignal() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        const auto endAt = [](CallEngine* engine, CallState at, void (CallEngine::*how)()) {
            return connect(
                engine, &CallEngine::callStateChanged, engine,
                [engine, at, how](CallState state) {
                    if (state == at)
                        (engine->*how)();
                },
                Qt::DirectConnection);
        };
        auto hangUp = endAt(alice.engine.get(), CallState::Dialing, &CallEngine::hangUp);
        alice.engine->dial(bob.engine->address());
        QCOMPARE(alice.engine->callState(), CallState::Idle);
        QCOMPARE(alice.endReason(), EndReason::Cancelled);
        disconnect(hangUp);
        waitIdle({"alice"});

        auto reject = endAt(bob.engine.get(), CallState::Ringing, &CallEngine::reject);
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::RejectedByPeer, kCallTimeout);
        QCOMPARE(bob.endReason(), EndReason::RejectedLocally);
        QVERIFY(bob.incoming->isEmpty()); // rejected before it was announced as a call
        disconnect(reject);
        waitIdle({"alice", "bob"});

        // Answered as soon as it rings: the ring timeout armed after the announcement ended the
        // answered call with NoAnswer once it ran out.
        auto answer = endAt(bob.engine.get(), CallState::Ringing, &CallEngine::answer);
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), kCallTimeout);
        disconnect(answer);
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        QTest::qWait(10000); // past bob's ring timeout of 8 s
        QCOMPARE(bob.engine->callState(), CallState::Active);
        QCOMPARE(bob.endReason(), EndReason::None);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, kCallTimeout);
        waitIdle({"alice", "bob"});
    }

    // Fault: an application slot connected directly hangs up when the call's statistics are
    // announced. The engine announced the final statistics from inside end() with the call still
    // in place, so the hang-up ended it again, and again (the stack overflowed); from the
    // periodic announcement it went on with the call it no longer had.
    void endingTheCallFromTheStatisticsSignal() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(bob.incoming->size(), 1, kCallTimeout);
        bob.engine->answer();
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        CallEngine* engine = alice.engine.get();
        auto hangUp = connect(
            engine, &CallEngine::statisticsChanged, engine, [engine] { engine->hangUp(); },
            Qt::DirectConnection);
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::HungUpLocally, kCallTimeout);
        disconnect(hangUp);
        QCOMPARE(alice.engine->callState(), CallState::Idle);
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, kCallTimeout);
        waitIdle({"alice", "bob"});
    }

    // Fault: quitting the app during a call (CallEngine::stop, as closing the window does)
    // stopped tor at once, before it had sent the hang-up the closed links flushed to it: the
    // peer heard silence until its 20-s network-loss timeout, then read "network failure".
    // Quitting while the phone rang (a review found it) sent nothing at all: the caller read
    // "connection lost" instead of "no answer". (A caller that quits while it rings was read as
    // cancelled already; it now says so itself.)
    void quittingHangsUp_data() {
        QTest::addColumn<Quitter>("quitter");
        QTest::addColumn<Phase>("phase");
        QTest::addColumn<EndReason>("peerReads");
        QTest::newRow("the caller quits mid-call")
            << Quitter::Caller << Phase::InCall << EndReason::HungUpByPeer;
        QTest::newRow("the callee quits mid-call")
            << Quitter::Callee << Phase::InCall << EndReason::HungUpByPeer;
        QTest::newRow("the caller quits while it rings")
            << Quitter::Caller << Phase::Ringing << EndReason::Cancelled;
        QTest::newRow("the callee quits while it rings")
            << Quitter::Callee << Phase::Ringing << EndReason::NoAnswer;
    }
    void quittingHangsUp() {
        QFETCH(Quitter, quitter);
        QFETCH(Phase, phase);
        QFETCH(EndReason, peerReads);
        addParty("erin");
        waitReachable({"erin"});
        Party& erin = party("erin");
        Party& bob = party("bob");
        Party& caller = quitter == Quitter::Caller ? erin : bob;
        Party& callee = quitter == Quitter::Caller ? bob : erin;
        if (phase == Phase::InCall) {
            answeredCall(caller, callee);
            QTRY_VERIFY_WITH_TIMEOUT(!bob.statistics->isEmpty(), 10000); // audio flows
        } else {
            caller.engine->dial(callee.engine->address());
            QTRY_VERIFY_WITH_TIMEOUT(callee.reached(CallState::Ringing), kCallTimeout);
            QTRY_VERIFY_WITH_TIMEOUT(caller.reached(CallState::Ringing), 10000);
        }
        erin.engine->stop();
        dropParty("erin");
        // Well within the 20-s network-loss timeout that ends a call whose hang-up was lost.
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), peerReads, 10000);
        waitIdle({"bob"});
    }

    // Fault (a review found it): two users calling each other at once each heard the other's
    // "busy" (contacts) or rang the other as a decoy for 30 s (strangers), and each waited for
    // the other. The lower address's call goes on on both sides, answered by the other engine,
    // and neither user sees a call end or a refusal on the way.
    void callingEachOtherAtOnceMakesOneCall() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        alice.engine->dial(bob.engine->address());
        bob.engine->dial(alice.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), kCallTimeout);
        for (Party* p : {&alice, &bob}) {
            QVERIFY2(!p->reached(CallState::Ended), qPrintable(p->name));
            QVERIFY2(p->refused->isEmpty(), qPrintable(p->name));
            QVERIFY2(p->incoming->isEmpty(), qPrintable(p->name)); // no prompt to answer
        }
        QTRY_VERIFY_WITH_TIMEOUT(!alice.statistics->isEmpty() && !bob.statistics->isEmpty(),
                                 10000); // audio flows both ways
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"alice", "bob"});
    }

    // The peer of our answered call calling us (its crossing call's late Hello after it answered
    // ours, or a peer that lost the call redialling before our network-loss timeout): Busy, at
    // once and without a missed-call notice about the one we talk to. A review found it answered
    // "crossed", which left the redialling peer waiting for a call that would never come.
    void thePeerOfOurCallCallingHearsBusyQuietly() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        answeredCall(alice, bob);
        auto link = rawLink("bob", "alice", 31);
        QTRY_COMPARE_WITH_TIMEOUT(link->state(), net::OnionLink::State::Open, kCallTimeout);
        QSignalSpy heard(link.get(), &net::OnionLink::recordReceived);
        QString error;
        const auto bobId = partyIdentity("bob", &error);
        QVERIFY2(bobId, qPrintable(error));
        EphemeralKey e;
        link->sendRecord(encodeHandshake(
            makeHello(*bobId, alice.engine->address(), e, {32000, 40, 4, 4}, 0,
                      std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch()))));
        QTRY_COMPARE_WITH_TIMEOUT(heard.size(), 1, kCallTimeout);
        const HandshakeDecode answer = decodeHandshake(bytesOf(heard.first().at(0).toByteArray()));
        QVERIFY(answer.message &&
                *answer.message == HandshakeMessage(Refusal{RefusalReason::Busy}));
        QVERIFY(alice.refused->isEmpty());
        QVERIFY(alice.engine->callState() == CallState::Active);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"alice", "bob"});
    }

    // A cancel that crosses the answer: the caller's plain Refusal arrives on the control link
    // after bob answered. Before the fix bob took it for a forged record and stayed "Active"
    // until the 20 s network-loss timeout.
    void cancelCrossingTheAnswerEndsTheCall() {
        Party& bob = party("bob");
        answerNextCall(bob);
        auto link = rawLink("carol", "bob", 30);
        QTRY_COMPARE_WITH_TIMEOUT(link->state(), net::OnionLink::State::Open, kCallTimeout);
        QSignalSpy control(link.get(), &net::OnionLink::recordReceived);
        QString error;
        const auto carolId = partyIdentity("carol", &error);
        QVERIFY(carolId);
        EphemeralKey e;
        link->sendRecord(encodeHandshake(
            makeHello(*carolId, bob.engine->address(), e, {32000, 40, 4, 4}, 0,
                      std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch()))));
        QTRY_VERIFY_WITH_TIMEOUT(control.size() >= 2, kCallTimeout); // Ringing, Accept
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), 10000);
        link->sendRecord(encodeHandshake(Refusal{RefusalReason::Cancelled}));
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::Cancelled, 10000);
        waitIdle({"bob"});
    }
};

QTEST_GUILESS_MAIN(CallsTest)
#include "tst_calls.moc"
