// Unit tests of IncomingLinks over a real unix-socket LinkListener (the listener behind the onion
// service): silent streams cannot pile up, and cannot keep a genuine caller out; a decoy ring ends
// as a real one does; a displaced ring ends as NoAnswer when its time is up; a decoy ring's twins
// end with it; it says when it is over (its late twins are refused).
#include "call/CallSession.h"
#include "call/IncomingLinks.h"
#include "multipath/Record.h"
#include "net/LinkListener.h"

#include <QDateTime>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <optional>
#include <vector>

using namespace onionvoice;
using namespace onionvoice::call;
using namespace std::chrono_literals;

// A caller and the ephemeral key of its call: each Hello it makes is a new one (its own nonce) of
// the same call, i.e. a twin of the first (RingKey).
struct Caller {
    tor::OnionIdentity identity = tor::OnionIdentity::generate();
    EphemeralKey ephemeral;
};

// Connects to the listener at `path` and sends a fresh, valid Hello of `caller`'s call (of a new
// caller's by default), as a caller's first record.
bool connectAndSayHello(QLocalSocket& socket, const QString& path, const Caller& caller = {}) {
    const SealedRecord hello = encodeHandshake(makeHello(
        caller.identity, tor::OnionIdentity::generate().address(), caller.ephemeral,
        {32000, 40, 4, 4}, 0, std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch())));
    socket.connectToServer(path);
    return socket.waitForConnected(5000) &&
           socket.write(reinterpret_cast<const char*>(hello.data()), qint64(hello.size())) ==
               qint64(hello.size());
}

std::optional<HandshakeMessage> decoded(const QByteArray& record) {
    return decodeHandshake(bytesOf(record)).message;
}

bool isRinging(const QByteArray& record) {
    const auto message = decoded(record);
    return message && std::holds_alternative<Ringing>(*message);
}

bool isRefusal(const QByteArray& record, RefusalReason reason) {
    const auto message = decoded(record);
    const auto* refusal = message ? std::get_if<Refusal>(&*message) : nullptr;
    return refusal && refusal->reason == reason;
}

// The listener of a service's links (a real unix socket) and the IncomingLinks that adopts them.
struct Service {
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("links.sock"));
    net::LinkListener listener{multipath::kRecordSize};
    bool listening = listener.listenLocal(path);
    RefusalCounters counters;
    IncomingLinks incoming{{60s, 32, 8}, counters};
    Service() {
        QObject::connect(&listener, &net::LinkListener::linkAccepted, &incoming,
                         &IncomingLinks::adopt);
    }
    // Every Hello rings as a decoy ring of `length`.
    void ringEveryHello(std::chrono::milliseconds length) {
        QObject::connect(&incoming, &IncomingLinks::helloReceived, &incoming,
                         [this, length](net::OnionLink* link, const Hello& hello) {
                             incoming.ringWithoutAnswer(link, ringKeyOf(hello), length);
                         });
    }
};

class IncomingLinksTest : public QObject {
    Q_OBJECT
private slots:
    // Attack: 40 streams that never say anything. Before the fix all 40 stayed open for the whole
    // proof timeout; now at most 32 exist at once: each newcomer beyond that closes the oldest.
    void boundedUnprovenLinks() {
        Service service;
        QVERIFY2(service.listening, qPrintable(service.listener.errorString()));
        QCOMPARE(service.listener.torTarget(), "unix:" + QFile::encodeName(service.path));
        QSignalSpy accepted(&service.listener, &net::LinkListener::linkAccepted);
        QSignalSpy hellos(&service.incoming, &IncomingLinks::helloReceived);
        std::vector<std::unique_ptr<QLocalSocket>> silent;
        for (int i = 0; i < 40; ++i) {
            silent.push_back(std::make_unique<QLocalSocket>());
            silent.back()->connectToServer(service.path);
            QTRY_COMPARE(accepted.size(), i + 1);
        }
        QTRY_COMPARE(service.counters.linksOverLimit, std::uint64_t(8));
        const auto closed = [&](std::size_t from, std::size_t to) {
            return std::all_of(silent.begin() + long(from), silent.begin() + long(to), [](auto& s) {
                return s->state() == QLocalSocket::UnconnectedState;
            });
        };
        QTRY_VERIFY(closed(0, 8)); // the oldest eight
        // A genuine caller arriving now still gets its Hello through; its link closes the next
        // oldest. That close comes after any the first 40 links made, so once it is seen here,
        // an extra close among the others would have been seen too.
        QLocalSocket genuine;
        QVERIFY(connectAndSayHello(genuine, service.path));
        QTRY_COMPARE(hellos.size(), 1);
        QCOMPARE(service.counters.linksOverLimit, std::uint64_t(9));
        QTRY_VERIFY(closed(0, 9));
        QVERIFY(std::none_of(silent.begin() + 9, silent.end(),
                             [](auto& s) { return s->state() == QLocalSocket::UnconnectedState; }));
        QCOMPARE(genuine.state(), QLocalSocket::ConnectedState);
    }

    // Attack: a blocked contact (or a stranger while we are busy) hears the decoy ring, then sends
    // its Cancel, or any other record, and keeps its stream open. A real ring ends at that record
    // and its stream closes a moment later; the decoy went on ringing until NoAnswer, 30 s later,
    // which told the caller it was blocked, or that we were in a call.
    void decoyRingEndsAtTheCallersRecordLikeARealOne_data() {
        QTest::addColumn<QByteArray>("sent");
        const SealedRecord cancel = encodeHandshake(Refusal{RefusalReason::Cancelled});
        QTest::newRow("cancel") << QByteArray(reinterpret_cast<const char*>(cancel.data()),
                                              qsizetype(cancel.size()));
        QTest::newRow("garbage") << QByteArray(qsizetype(multipath::kRecordSize), '\x5a');
    }

    void decoyRingEndsAtTheCallersRecordLikeARealOne() {
        QFETCH(QByteArray, sent);
        Service service;
        QVERIFY2(service.listening, qPrintable(service.listener.errorString()));
        service.ringEveryHello(30s);

        QLocalSocket prober;
        QVERIFY(connectAndSayHello(prober, service.path));
        QTRY_COMPARE(prober.bytesAvailable(), qint64(multipath::kRecordSize));
        QVERIFY(isRinging(prober.readAll()));
        QCOMPARE(service.counters.decoyRings, std::uint64_t(1));

        prober.write(sent);
        QTRY_COMPARE_WITH_TIMEOUT(prober.state(), QLocalSocket::UnconnectedState, 5000);
        QCOMPARE(prober.readAll(), QByteArray()); // no NoAnswer: a real ring says nothing more
    }

    // Attack: a stranger's ring displaced by a contact's call heard NoAnswer at once, where an
    // unanswered ring lasts its full time, and so learnt the moment a contact of ours called. Two
    // rings are let ring on, the one that rang first with time left, the other with none: the one
    // without time answers NoAnswer first, while the other still says nothing, then the other.
    void displacedRingAnswersNoAnswerWhenItsTimeIsUp() {
        Service service;
        QVERIFY2(service.listening, qPrintable(service.listener.errorString()));
        // Each Hello rings for real (as CallEngine::ring answers), before it is displaced.
        std::vector<net::OnionLink*> rings;
        std::vector<RingKey> keys;
        connect(&service.incoming, &IncomingLinks::helloReceived, &service.incoming,
                [&](net::OnionLink* link, const Hello& hello) {
                    link->sendRecord(encodeHandshake(Ringing{}));
                    rings.push_back(link);
                    keys.push_back(ringKeyOf(hello));
                });
        QLocalSocket early, late;
        for (QLocalSocket* caller : {&early, &late}) {
            QVERIFY(connectAndSayHello(*caller, service.path));
            QTRY_COMPARE(caller->bytesAvailable(), qint64(multipath::kRecordSize));
            QVERIFY(isRinging(caller->readAll()));
        }
        QCOMPARE(rings.size(), std::size_t(2));

        QStringList heard;
        bool earlySpokeFirst = false;
        connect(&early, &QLocalSocket::readyRead, this, [&] { heard << QStringLiteral("early"); });
        connect(&late, &QLocalSocket::readyRead, this, [&] {
            heard << QStringLiteral("late");
            // Whatever the early ring was sent is in its socket by now (sent first).
            earlySpokeFirst = early.bytesAvailable() > 0 || early.waitForReadyRead(0);
        });
        service.incoming.letRingOn({rings[0]}, keys[0], 0, 1s);
        service.incoming.letRingOn({rings[1]}, keys[1], 0, 0ms);
        QTRY_COMPARE(heard, QStringList({QStringLiteral("late"), QStringLiteral("early")}));
        QVERIFY2(!earlySpokeFirst, "the ring with time left ended at once");
        QTRY_COMPARE(early.bytesAvailable(), qint64(multipath::kRecordSize));
        QVERIFY(isRefusal(late.readAll(), RefusalReason::NoAnswer));
        QVERIFY(isRefusal(early.readAll(), RefusalReason::NoAnswer));
        QCOMPARE(service.counters.decoyRings, std::uint64_t(2));
    }

    // A twin of a decoy ring (the caller's second attempt, a Hello of the same call) joins it as a
    // twin joins a real ring: it hears Ringing and ends with the ring, not a ring's time after
    // it arrived. Attack: a stranger sending twins a while apart told us busy (decoy, each twin
    // ringing its own time) from idle (a real ring, which a twin joins). Here the twin ends while
    // a separate ring that started with it still rings; a third twin is closed without a word;
    // and the caller's record on one link of a ring ends it on all.
    void twinsJoinADecoyRingAndEndWithIt() {
        Service service;
        QVERIFY2(service.listening, qPrintable(service.listener.errorString()));
        connect(&service.incoming, &IncomingLinks::helloReceived, &service.incoming,
                [&](net::OnionLink* link, const Hello& hello) {
                    if (service.incoming.ringing(ringKeyOf(hello)))
                        service.incoming.joinRing(link, ringKeyOf(hello));
                    else
                        service.incoming.ringWithoutAnswer(link, ringKeyOf(hello), 3s);
                });
        const auto hearsRinging = [&](QLocalSocket& socket, const Caller& caller) {
            QVERIFY(connectAndSayHello(socket, service.path, caller));
            QTRY_COMPARE(socket.bytesAvailable(), qint64(multipath::kRecordSize));
            QVERIFY(isRinging(socket.readAll()));
        };
        const Caller stranger, other;
        QLocalSocket first, twin, secondTwin, thirdTwin, separate;
        hearsRinging(first, stranger);
        QTest::qWait(1000);
        hearsRinging(twin, stranger);
        hearsRinging(separate, other);
        hearsRinging(secondTwin, stranger);
        QVERIFY(connectAndSayHello(thirdTwin, service.path, stranger));
        QTRY_COMPARE(thirdTwin.state(), QLocalSocket::UnconnectedState);
        QCOMPARE(thirdTwin.readAll(), QByteArray());
        QCOMPARE(service.counters.decoyRings, std::uint64_t(2)); // twins are not rings of their own

        bool separateSpokeFirst = false;
        connect(&twin, &QLocalSocket::readyRead, this, [&] {
            separateSpokeFirst = separate.bytesAvailable() > 0 || separate.waitForReadyRead(0);
        });
        QTRY_COMPARE(twin.bytesAvailable(), qint64(multipath::kRecordSize));
        QVERIFY2(!separateSpokeFirst, "the twin rang its own time, not its ring's");
        QVERIFY(isRefusal(twin.readAll(), RefusalReason::NoAnswer));
        for (QLocalSocket* ringing : {&first, &secondTwin, &separate}) {
            QTRY_COMPARE(ringing->bytesAvailable(), qint64(multipath::kRecordSize));
            QVERIFY(isRefusal(ringing->readAll(), RefusalReason::NoAnswer));
        }

        const Caller canceller;
        QLocalSocket rang, cancelling;
        hearsRinging(rang, canceller);
        hearsRinging(cancelling, canceller);
        const SealedRecord cancel = encodeHandshake(Refusal{RefusalReason::Cancelled});
        cancelling.write(reinterpret_cast<const char*>(cancel.data()), qint64(cancel.size()));
        for (QLocalSocket* closing : {&rang, &cancelling}) {
            QTRY_COMPARE_WITH_TIMEOUT(closing->state(), QLocalSocket::UnconnectedState, 5000);
            QCOMPARE(closing->readAll(), QByteArray());
        }
    }

    // A decoy ring says when it is over, as a real ring's end does (CallEngine::end), so that a
    // late twin of it is refused: at the caller's record, and when its time is up; not when its
    // links were lost before the caller said anything (the caller may still be dialling that call).
    void aDecoyRingSaysWhenItIsOverNotWhenItsLinksAreLost() {
        Service service;
        QVERIFY2(service.listening, qPrintable(service.listener.errorString()));
        service.ringEveryHello(2s);
        std::vector<RingKey> over;
        connect(&service.incoming, &IncomingLinks::ringEnded, this,
                [&](const RingKey& ring) { over.push_back(ring); });
        const auto ring = [&](QLocalSocket& socket, const Caller& caller) {
            QVERIFY(connectAndSayHello(socket, service.path, caller));
            QTRY_COMPARE(socket.bytesAvailable(), qint64(multipath::kRecordSize));
            QVERIFY(isRinging(socket.readAll()));
        };
        const Caller cancelling, unanswered, lost;
        QLocalSocket cancelled, timedOut, gone;
        ring(cancelled, cancelling);
        ring(timedOut, unanswered);
        ring(gone, lost);
        const SealedRecord cancel = encodeHandshake(Refusal{RefusalReason::Cancelled});
        cancelled.write(reinterpret_cast<const char*>(cancel.data()), qint64(cancel.size()));
        gone.abort();
        QTRY_COMPARE(over.size(), std::size_t(1));
        QCOMPARE(over.front().caller, cancelling.identity.address());
        QCOMPARE(over.front().ephemeral, cancelling.ephemeral.publicKey());
        QTRY_COMPARE_WITH_TIMEOUT(timedOut.bytesAvailable(), qint64(multipath::kRecordSize), 5000);
        QVERIFY(isRefusal(timedOut.readAll(), RefusalReason::NoAnswer));
        QCOMPARE(over.size(), std::size_t(2));
        QCOMPARE(over.back().caller, unanswered.identity.address());
        QTest::qWait(500);
        QCOMPARE(over.size(), std::size_t(2)); // the lost ring's time is up too: it said nothing
    }

    // Attack: a record on the link of a decoy ring that has ended (its stream lingers a moment
    // before it closes) ended the ring that had been made next, silently: the ended ring was
    // named by its address, and the next ring is usually made at the same one. The caller of that
    // ring, which a real ring would have kept ringing, learnt that it had heard a decoy.
    void anEndedRingsLingeringLinkEndsNoOtherRing() {
        Service service;
        QVERIFY2(service.listening, qPrintable(service.listener.errorString()));
        service.ringEveryHello(2s);
        QLocalSocket ended, next;
        QVERIFY(connectAndSayHello(ended, service.path));
        QTRY_COMPARE(ended.bytesAvailable(), qint64(multipath::kRecordSize));
        QVERIFY(isRinging(ended.readAll()));
        const SealedRecord cancel = encodeHandshake(Refusal{RefusalReason::Cancelled});
        const QByteArray cancelRecord(reinterpret_cast<const char*>(cancel.data()),
                                      qsizetype(cancel.size()));
        ended.write(cancelRecord);
        QVERIFY(ended.waitForBytesWritten(1000));

        QVERIFY(connectAndSayHello(next, service.path));
        QTRY_COMPARE(next.bytesAvailable(), qint64(multipath::kRecordSize));
        QVERIFY(isRinging(next.readAll()));
        QCOMPARE(service.counters.decoyRings, std::uint64_t(2));
        QCOMPARE(ended.state(), QLocalSocket::ConnectedState); // still lingering
        ended.write(cancelRecord);
        QVERIFY(ended.waitForBytesWritten(1000));

        QTRY_COMPARE_WITH_TIMEOUT(ended.state(), QLocalSocket::UnconnectedState, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(next.bytesAvailable(), qint64(multipath::kRecordSize), 5000);
        QVERIFY(isRefusal(next.readAll(), RefusalReason::NoAnswer));
    }
};

QTEST_GUILESS_MAIN(IncomingLinksTest)
#include "tst_incominglinks.moc"
