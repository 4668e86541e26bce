// Unit tests of TorController against a scripted control port (a QTcpServer that replies with
// canned, split, garbled or oversized lines).
#include "tor/DescriptorUploads.h"
#include "tor/TorController.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QtTest>
#include <chrono>

using namespace onionvoice::tor;

namespace {

class ScriptedControlPort : public QObject {
public:
    ScriptedControlPort() {
        server.listen(QHostAddress::LocalHost);
        connect(&server, &QTcpServer::newConnection, this, [this] {
            peer = server.nextPendingConnection();
            connect(peer, &QTcpSocket::readyRead, this, [this] {
                buffer += peer->readAll();
                qsizetype end;
                while ((end = buffer.indexOf("\r\n")) >= 0) {
                    received.append(buffer.left(end));
                    buffer.remove(0, end + 2);
                }
            });
        });
    }
    void reply(const QByteArray& bytes) {
        peer->write(bytes);
        peer->flush();
    }

    QTcpServer server;
    QTcpSocket* peer = nullptr;
    QByteArray buffer;
    QList<QByteArray> received;
};

struct Recorder {
    QList<TorReply> replies;
    TorController::ReplyHandler handler() {
        return [this](const TorReply& reply) {
            replies.append(reply);
        };
    }
};

} // namespace

class TestTorController : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<ScriptedControlPort> port;
    std::unique_ptr<TorController> controller;

    void connectController() {
        controller->connectToTor(QHostAddress::LocalHost, port->server.serverPort());
        QTRY_VERIFY(port->peer != nullptr);
        QTRY_COMPARE(controller->state(), TorController::State::Connected);
    }

private slots:
    void init() {
        port = std::make_unique<ScriptedControlPort>();
        controller = std::make_unique<TorController>();
        connectController();
    }
    void cleanup() {
        controller.reset();
        port.reset();
    }

    void repliesMatchCommandsInOrder() {
        Recorder r;
        controller->send("GETINFO version", r.handler());
        controller->send("SIGNAL NEWNYM", r.handler());
        QTRY_COMPARE(port->received.size(), 2);
        QCOMPARE(port->received.at(0), QByteArray("GETINFO version"));
        port->reply("250-version=0.4.9.11\r\n250 OK\r\n250 OK\r\n");
        QTRY_COMPARE(r.replies.size(), 2);
        QVERIFY(r.replies.at(0).isOk());
        QCOMPARE(r.replies.at(0).value("version"), QByteArray("0.4.9.11"));
        QCOMPARE(r.replies.at(1).lines().size(), 1);
    }

    void multiLineDataReply() {
        Recorder r;
        controller->send("GETINFO circuit-status", r.handler());
        port->reply("250+circuit-status=\r\n1 BUILT $A~a,$B~b PURPOSE=GENERAL\r\n"
                    "..dotted line\r\n2 BUILT $C~c\r\n.\r\n250 OK\r\n");
        QTRY_COMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).value("circuit-status"),
                 QByteArray("1 BUILT $A~a,$B~b PURPOSE=GENERAL\n.dotted line\n2 BUILT $C~c"));
    }

    // A data body's empty lines are part of the value (a torrc from GETINFO config-text, a
    // descriptor): lost, the value tor sent would arrive changed.
    void dataBodyKeepsEmptyLines_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("empty lines around a line")
            << QByteArray("\r\nsecond\r\n\r\n") << QByteArray("\nsecond\n");
        QTest::newRow("two empty lines") << QByteArray("\r\n\r\n") << QByteArray("\n");
        QTest::newRow("empty line between lines")
            << QByteArray("a\r\n\r\nb\r\n") << QByteArray("a\n\nb");
        QTest::newRow("no lines") << QByteArray() << QByteArray();
    }
    void dataBodyKeepsEmptyLines() {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, value);
        Recorder r;
        controller->send("GETINFO x", r.handler());
        port->reply("250+x=\r\n" + body + ".\r\n250 OK\r\n");
        QTRY_COMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).value("x"), value);
    }

    void replySplitIntoSingleBytes() {
        Recorder r;
        controller->send("GETINFO version", r.handler());
        QTRY_COMPARE(port->received.size(), 1);
        for (const char c : QByteArray("250-version=1\r\n250 OK\r\n")) {
            port->reply(QByteArray(1, c));
            QTest::qWait(1);
        }
        QTRY_COMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).value("version"), QByteArray("1"));
    }

    void eventsInterleaveWithReplies() {
        Recorder r;
        QSignalSpy events(controller.get(), &TorController::eventReceived);
        // Events arrive between whole replies (control-spec 2.3: a reply is one message).
        controller->send("GETINFO version", r.handler());
        controller->send("GETINFO other", r.handler());
        port->reply("650 STATUS_CLIENT NOTICE BOOTSTRAP PROGRESS=50 TAG=loading_descriptors "
                    "SUMMARY=\"Loading relay descriptors\"\r\n250-version=1\r\n250 OK\r\n");
        port->reply("650-HS_DESC UPLOADED abc UNKNOWN $F~n\r\n650 extra\r\n250 OK\r\n");
        QTRY_COMPARE(r.replies.size(), 2);
        QCOMPARE(r.replies.at(0).value("version"), QByteArray("1"));
        QCOMPARE(events.size(), 2);
        const auto first = events.at(0).at(0).value<TorEvent>();
        QCOMPARE(first.type, QByteArray("STATUS_CLIENT"));
        const TorArguments args = parseTorArguments(first.lines.at(0).text);
        QCOMPARE(args.keyed.value("PROGRESS"), QByteArray("50"));
        QCOMPARE(args.keyed.value("SUMMARY"), QByteArray("Loading relay descriptors"));
        const auto second = events.at(1).at(0).value<TorEvent>();
        QCOMPARE(second.type, QByteArray("HS_DESC"));
        QCOMPARE(second.lines.size(), 2);
    }

    void errorRepliesAreTyped() {
        Recorder r;
        controller->send("ADD_ONION bogus", r.handler());
        controller->send("GETINFO x", r.handler());
        port->reply("512 Bad arguments to ADD_ONION\r\n451 Resource exhausted\r\n");
        QTRY_COMPARE(r.replies.size(), 2);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::CommandError);
        QCOMPARE(r.replies.at(0).code(), 512);
        QCOMPARE(r.replies.at(0).errorMessage(), QStringLiteral("512 Bad arguments to ADD_ONION"));
        QCOMPARE(r.replies.at(1).kind(), TorReply::Kind::TemporaryError);
        QCOMPARE(controller->state(), TorController::State::Connected);
    }

    void garbageClosesWithError_data() {
        QTest::addColumn<QByteArray>("garbage");
        QTest::newRow("text") << QByteArray("hello there\r\n");
        QTest::newRow("short") << QByteArray("25\r\n");
        QTest::newRow("bad separator") << QByteArray("250*OK\r\n");
        QTest::newRow("code out of range") << QByteArray("999 OK\r\n");
        QTest::newRow("binary") << QByteArray("\x00\xff\x01\r\n", 5);
        QTest::newRow("code changes") << QByteArray("250-a\r\n550 b\r\n");
    }

    void garbageClosesWithError() {
        QFETCH(QByteArray, garbage);
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO version", r.handler());
        controller->send("GETINFO other", r.handler());
        QTRY_COMPARE(port->received.size(), 2);
        port->reply(garbage);
        QTRY_COMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::ProtocolError);
        QCOMPARE(r.replies.size(), 2);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::ConnectionLost);
        QCOMPARE(controller->state(), TorController::State::Disconnected);
    }

    void overlongLineClosesWithError() {
        controller->setMaxLineLength(1024);
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO version", r.handler());
        port->reply("250-version=" + QByteArray(2000, 'x') + "\r\n250 OK\r\n");
        QTRY_COMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::LineTooLong);
        QCOMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::ConnectionLost);
    }

    void endlessLineWithoutNewlineClosesWithError() {
        controller->setMaxLineLength(4096);
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        for (int i = 0; i < 10 && errors.isEmpty(); ++i) {
            port->reply(QByteArray(1000, 'y'));
            QTest::qWait(5);
        }
        QTRY_COMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::LineTooLong);
    }

    void unsolicitedReplyIsAProtocolError() {
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        port->reply("250 OK\r\n");
        QTRY_COMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::ProtocolError);
    }

    void commandWithLineBreakIsRefused() {
        Recorder r;
        QVERIFY(!controller->send("GETINFO version\r\nSIGNAL HALT", r.handler()));
        QVERIFY(controller->send("GETINFO version", r.handler()));
        QTRY_COMPARE(port->received.size(), 1);
        QCOMPARE(port->received.at(0), QByteArray("GETINFO version"));
    }

    void peerClosingFailsPendingCommands() {
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO version", r.handler());
        QTRY_COMPARE(port->received.size(), 1);
        port->peer->close();
        QTRY_COMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::ConnectionLost);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::SocketError);
    }

    // Fault: tor stops answering (a frozen process, a deadlock). The kernel keeps the connection,
    // so nothing fails: the old controller waited for the reply for ever, and so did whatever
    // waited on it (a publish, a purge). A reply owed through a whole timeout of silence now
    // fails the connection, and the command with it.
    void aReplyOwedThroughTheTimeoutFailsTheConnection() {
        controller->setReplyTimeout(std::chrono::milliseconds(300));
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO version", r.handler());
        QTRY_COMPARE_WITH_TIMEOUT(r.replies.size(), 1, 10000);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::ConnectionLost);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::ReplyTimeout);
        QCOMPARE(controller->state(), TorController::State::Disconnected);
    }

    // A tor that sends a long reply slowly is alive: only silence counts, not the reply's age.
    void aReplyThatKeepsComingIsNotLate() {
        controller->setReplyTimeout(std::chrono::milliseconds(2000));
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO config-text", r.handler());
        QTRY_COMPARE(port->received.size(), 1);
        for (const char* line : {"250+config-text=\r\n", "SocksPort 0\r\n", ".\r\n"}) {
            port->reply(line);
            QTest::qWait(800);
        }
        port->reply("250 OK\r\n");
        QTRY_COMPARE(r.replies.size(), 1);
        QVERIFY(r.replies.at(0).isOk());
        QVERIFY(errors.isEmpty());
    }

    // Silence is only a fault while a reply is owed: tor has nothing to say to an idle controller.
    void anIdleConnectionIsNotLate() {
        controller->setReplyTimeout(std::chrono::milliseconds(200));
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        QTest::qWait(1000);
        QVERIFY(errors.isEmpty());
        QCOMPARE(controller->state(), TorController::State::Connected);
    }

    // Fault on our side: this process and tor stalled together for longer than the timeout
    // (both stopped, as the fault tests stop a machine, or starved of CPU), and tor answers a
    // moment after both run again. A timeout is confirmed over a second of our running first.
    void aReplyAfterAStallOfOursIsNotLate() {
        controller->setReplyTimeout(std::chrono::milliseconds(1000));
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO version", r.handler());
        QTRY_COMPARE(port->received.size(), 1);
        QThread::msleep(3500);
        QTimer::singleShot(100, port.get(),
                           [this] { port->reply("250-version=0.4.9.11\r\n250 OK\r\n"); });
        QTRY_COMPARE(r.replies.size(), 1);
        QVERIFY(r.replies.at(0).isOk());
        QVERIFY(errors.isEmpty());
    }

    void sendWhileDisconnectedAnswersAtOnce() {
        controller->disconnectFromTor();
        Recorder r;
        controller->send("GETINFO version", r.handler());
        QCOMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::ConnectionLost);
    }

    void descriptorUploadsAreCountedPerAddress() {
        DescriptorUploads uploads(controller.get(), QStringLiteral("abc"));
        QSignalSpy first(&uploads, &DescriptorUploads::firstUploaded);
        port->reply("650 HS_DESC UPLOAD abc UNKNOWN $A~a descid HSDIR_INDEX=1\r\n"
                    "650 HS_DESC UPLOAD abc UNKNOWN $B~b descid HSDIR_INDEX=2\r\n"
                    "650 HS_DESC UPLOAD abc UNKNOWN $C~c descid HSDIR_INDEX=3\r\n"
                    "650 HS_DESC UPLOAD other UNKNOWN $C~c descid HSDIR_INDEX=3\r\n"
                    "650 HS_DESC UPLOADED abc UNKNOWN $B~b\r\n");
        QTRY_COMPARE(first.size(), 1);
        QCOMPARE(uploads.launched(), 3);
        QVERIFY(!uploads.allSettled());
        port->reply("650 HS_DESC FAILED abc UNKNOWN $A~a REASON=UPLOAD_REJECTED\r\n"
                    "650 HS_DESC UPLOADED other UNKNOWN $C~c\r\n"
                    "650 HS_DESC UPLOADED abc UNKNOWN $C~c\r\n");
        QTRY_VERIFY(uploads.allSettled());
        QCOMPARE(uploads.uploaded(), 2);
        QCOMPARE(uploads.failed(), 1);
        QCOMPARE(first.size(), 1);
        uploads.reset();
        QVERIFY(!uploads.allSettled());
        // Fault: the service was republished (a new access key) while an upload of the old
        // descriptor was in flight. Its late confirmation made the new service "reachable"
        // before any of its own descriptors was uploaded.
        port->reply("650 HS_DESC UPLOADED abc UNKNOWN $A~a\r\n"
                    "650 HS_DESC UPLOAD abc UNKNOWN $D~d descid HSDIR_INDEX=4\r\n");
        QTRY_COMPARE(uploads.launched(), 1);
        QCOMPARE(uploads.uploaded(), 0);
        QCOMPARE(first.size(), 1);
        port->reply("650 HS_DESC UPLOADED abc UNKNOWN $D~d\r\n");
        QTRY_COMPARE(first.size(), 2);
        QVERIFY(uploads.allSettled());
    }

    void argumentParsing() {
        const TorArguments args =
            parseTorArguments("NOTICE BOOTSTRAP PROGRESS=10 TAG=conn SUMMARY=\"a \\\"b\\\" c\" X=");
        QCOMPARE(args.positional, (QList<QByteArray>{"NOTICE", "BOOTSTRAP"}));
        QCOMPARE(args.keyed.value("SUMMARY"), QByteArray("a \"b\" c"));
        QCOMPARE(args.keyed.value("TAG"), QByteArray("conn"));
        QVERIFY(args.keyed.contains("X"));
        // An unterminated quoted value is not taken, nor anything after it.
        const TorArguments unterminated = parseTorArguments("A=\"open B=1");
        QVERIFY(!unterminated.keyed.contains("A") && !unterminated.keyed.contains("B"));
    }

    // control-spec 2.1.1: before the fix only \\ and \" were known; \n arrived as "n" and octal
    // escapes as digits.
    void quotedStringsAreFullyDecoded_data() {
        QTest::addColumn<QByteArray>("quoted");
        QTest::addColumn<QByteArray>("decoded");
        QTest::newRow("plain") << QByteArray("\"abc\"") << QByteArray("abc");
        QTest::newRow("quote and backslash")
            << QByteArray("\"a\\\"b\\\\c\"") << QByteArray("a\"b\\c");
        QTest::newRow("controls") << QByteArray("\"l1\\nl2\\r\\t\"") << QByteArray("l1\nl2\r\t");
        QTest::newRow("octal") << QByteArray("\"\\101\\0\\7x\\377\"")
                               << QByteArray("A\0\ax\xff", 5);
        QTest::newRow("empty") << QByteArray("\"\"") << QByteArray("");
    }
    void quotedStringsAreFullyDecoded() {
        QFETCH(QByteArray, quoted);
        QFETCH(QByteArray, decoded);
        qsizetype pos = 0;
        const auto out = decodeQuotedString(quoted, &pos);
        QVERIFY(out.has_value());
        QCOMPARE(*out, decoded);
        QCOMPARE(pos, quoted.size());
        QCOMPARE(parseTorArguments("K=" + quoted).keyed.value("K"), decoded);
    }
    void brokenQuotedStringsAreRefused() {
        for (const QByteArray& bad :
             {QByteArray("\"open"), QByteArray("\"a\\"), QByteArray("\"\\8\""),
              QByteArray("\"\\400\""), QByteArray("noquote")}) {
            qsizetype pos = 0;
            QVERIFY2(!decodeQuotedString(bad, &pos).has_value(), bad.constData());
        }
    }

    // Attack: a control port that never ends a reply (many short lines, each within the line
    // limit). Before the fix the lines piled up without bound; now the connection fails.
    void endlessReplyClosesWithError() {
        controller->setMaxReplySize(64 * 1024);
        Recorder r;
        QSignalSpy errors(controller.get(), &TorController::errorOccurred);
        controller->send("GETINFO circuit-status", r.handler());
        for (int i = 0; i < 200 && errors.isEmpty(); ++i) {
            QByteArray chunk;
            for (int j = 0; j < 10; ++j)
                chunk += "250-x=" + QByteArray(100, 'z') + "\r\n";
            port->reply(chunk);
            QTest::qWait(1);
        }
        QTRY_COMPARE(errors.size(), 1);
        QCOMPARE(errors.at(0).at(0).value<TorController::Error>(),
                 TorController::Error::ReplyTooLarge);
        QCOMPARE(r.replies.size(), 1);
        QCOMPARE(r.replies.at(0).kind(), TorReply::Kind::ConnectionLost);
    }
};

QTEST_GUILESS_MAIN(TestTorController)
#include "tst_torcontroller.moc"
