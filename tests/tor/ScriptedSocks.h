// A scripted SOCKS5 server that plays tor's SOCKS port (over TCP, or a unix socket as on Linux
// and macOS) and, once a link is connected, the remote peer: what tst_onionlink and tst_linkpool
// dial through instead of a tor.
#pragma once

#include "net/OnionLink.h"

#include <QLocalServer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <vector>

namespace onionvoice::net::testing {

constexpr std::size_t kRecord = 498;
const QString kHost =
    QStringLiteral("aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53sdgiesvgg4bqead.onion");

class ScriptedSocks : public QObject {
public:
    // Reply: answers the CONNECT with replyCode and closes the connection, as tor fails a stream.
    // StaleCodeOnSuccess: tor's success reply to a CONNECT that succeeded after an earlier try
    // failed (a descriptor fetched from a second HSDir after a 404): it carries the code that try
    // left, replyCode, and the stream stays open (see net::SocksHandshake::Outcome).
    // DropAfterConnect: closes the connection once the CONNECT request is in, without an answer.
    enum class Behaviour {
        Accept,
        Reply,
        StaleCodeOnSuccess,
        Silent,
        RefuseMethod,
        RefuseAuth,
        DropAfterConnect
    };

    struct Session {
        QTcpSocket* socket = nullptr;
        QByteArray in;
        int step = 0;
        QByteArray username, host;
        quint16 port = 0;
        QByteArray received; // after the handshake
        std::size_t index = 0;
    };

    // Takes each accepted unix-socket descriptor as a QTcpSocket (as LinkListener does), so the
    // script runs alike on both transports.
    class UnixServer : public QLocalServer {
    public:
        std::function<void(QTcpSocket*)> accepted;

    protected:
        void incomingConnection(quintptr descriptor) override {
            auto* socket = new QTcpSocket(this);
            if (socket->setSocketDescriptor(qintptr(descriptor)))
                accepted(socket);
        }
    };

    Behaviour behaviour = Behaviour::Accept;
    int replyCode = 0;
    std::set<std::size_t> silent;  // sessions (by order of arrival) that get no answer at all
    bool closeOnceOpen = false;    // the peer closes each link right after it opened
    bool holdConnectReply = false; // takes what follows the CONNECT request, never answers it
    QTcpServer server;
    QTemporaryDir unixDirectory;
    UnixServer unixServer;
    std::vector<std::unique_ptr<Session>> sessions;

    // overUnixSocket: listens where tor's SOCKS port is on Linux and macOS, a unix socket.
    explicit ScriptedSocks(bool overUnixSocket = false) {
        const auto take = [this](QTcpSocket* socket) {
            auto session = std::make_unique<Session>();
            session->socket = socket;
            session->index = sessions.size();
            Session* s = session.get();
            sessions.push_back(std::move(session));
            connect(s->socket, &QTcpSocket::readyRead, this, [this, s] { step(s); });
        };
        if (overUnixSocket) {
            unixServer.accepted = take;
            unixServer.listen(unixDirectory.filePath(QStringLiteral("socks.sock")));
            return;
        }
        server.listen(QHostAddress::LocalHost);
        connect(&server, &QTcpServer::newConnection, this, [this, take] {
            while (QTcpSocket* socket = server.nextPendingConnection())
                take(socket);
        });
    }
    SocksEndpoint endpoint() const {
        return unixServer.isListening() ? SocksEndpoint::unixSocket(unixServer.fullServerName())
                                        : SocksEndpoint::loopbackPort(server.serverPort());
    }

    void step(Session* s) {
        s->in += s->socket->readAll();
        if (behaviour == Behaviour::Silent || silent.contains(s->index))
            return;
        if (s->step == 0 && s->in.size() >= 3) {
            QVERIFY(s->in.startsWith(QByteArray("\x05\x01\x02", 3)));
            s->in.remove(0, 3);
            s->socket->write(behaviour == Behaviour::RefuseMethod ? QByteArray("\x05\xff", 2)
                                                                  : QByteArray("\x05\x02", 2));
            s->step = 1;
        }
        if (s->step == 1 && s->in.size() >= 2) {
            const int ulen = std::uint8_t(s->in.at(1));
            if (s->in.size() < 2 + ulen + 1)
                return;
            const int plen = std::uint8_t(s->in.at(2 + ulen));
            if (s->in.size() < 3 + ulen + plen)
                return;
            s->username = s->in.mid(2, ulen);
            s->in.remove(0, 3 + ulen + plen);
            s->socket->write(behaviour == Behaviour::RefuseAuth ? QByteArray("\x01\x01", 2)
                                                                : QByteArray("\x01\x00", 2));
            s->step = 2;
        }
        if (s->step == 2 && s->in.size() >= 5) {
            QCOMPARE(s->in.left(4), QByteArray("\x05\x01\x00\x03", 4)); // CONNECT, domain name
            const int len = std::uint8_t(s->in.at(4));
            if (s->in.size() < 5 + len + 2)
                return;
            s->host = s->in.mid(5, len);
            s->port =
                quint16(std::uint8_t(s->in.at(5 + len)) << 8 | std::uint8_t(s->in.at(6 + len)));
            s->in.remove(0, 7 + len);
            if (behaviour == Behaviour::DropAfterConnect) {
                s->socket->disconnectFromHost();
                return;
            }
            const bool failure = behaviour == Behaviour::Reply;
            const char code =
                char(failure || behaviour == Behaviour::StaleCodeOnSuccess ? replyCode : 0);
            if (holdConnectReply) {
                s->step = 3;
                s->received += s->in;
                s->in.clear();
                return;
            }
            // Tor answers with an IPv4 address; a first record follows in the same segment.
            QByteArray answer("\x05", 1);
            answer += code;
            answer += QByteArray("\x00\x01\x00\x00\x00\x00\x00\x00", 8);
            s->socket->write(answer);
            s->step = 3;
            if (closeOnceOpen || failure) {
                s->socket->disconnectFromHost();
                return;
            }
        }
        if (s->step == 3) {
            s->received += s->in;
            s->in.clear();
        }
    }
};

inline QByteArray record(char fill) {
    return QByteArray(kRecord, fill);
}

inline std::span<const std::uint8_t> bytes(const QByteArray& b) {
    return {reinterpret_cast<const std::uint8_t*>(b.constData()), std::size_t(b.size())};
}

} // namespace onionvoice::net::testing
