// A relay between a caller's engine and its tor's SOCKS socket that plays the faults of the call's
// first link (tst_handshaketwins): an attempt swallowed, an answer held back, a Hello held back.
#pragma once

#include <QHostAddress>
#include <QLocalSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace onionvoice::call::testing {

using namespace std::chrono_literals;

// Between alice's engine and her tor's SOCKS socket, for the slot of the handshake: each attempt,
// by order of arrival since the last plan, is relayed, swallowed (tor never hears of it: an
// attempt tor keeps waiting), relayed with tor's answer to its CONNECT held back (the stream,
// and the Hello that travels with the request, reach the callee; the caller never learns it), or
// relayed with its Hello held back until kHelloHeld after tor's answer (the stream opens at both
// ends, and the callee reads the Hello late, as when the callee's event loop or the Hello's
// circuit is slow). Attempts beyond the plan are relayed.
class HandshakeRelay : public QObject {
public:
    enum class Attempt { Relayed, Swallowed, AnswerHeld, HelloHeld };
    static constexpr auto kHelloHeld = 2s;

    explicit HandshakeRelay(std::function<QString()> socks)
        : socks_(std::move(socks)) {
        server_.listen(QHostAddress::LocalHost);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* in = server_.nextPendingConnection()) {
                const std::size_t index = arrived_++;
                relay(in, index < plan_.size() ? plan_[index] : Attempt::Relayed);
            }
        });
    }
    quint16 port() const { return server_.serverPort(); }
    std::size_t arrived() const { return arrived_; }
    void plan(std::vector<Attempt> attempts) {
        plan_ = std::move(attempts);
        arrived_ = 0;
    }

private:
    // Tor's answers to the method and to the username (the isolation key) come first, 2 bytes
    // each; what follows is its answer to the CONNECT (10 bytes), and then the peer's records.
    static constexpr qsizetype kBeforeConnectAnswer = 4;
    static constexpr qsizetype kConnectAnswered = kBeforeConnectAnswer + 10;

    // How much of what the engine has sent so far is its part of the SOCKS exchange (greeting,
    // username and password, CONNECT): all of it until the CONNECT is complete; the Hello follows.
    static qsizetype socksBytes(const QByteArray& sent) {
        qsizetype length = 0;
        const auto field = [&](qsizetype header, qsizetype lengthAt, qsizetype trailer) {
            if (sent.size() <= length + lengthAt)
                return false;
            length += header + qsizetype(std::uint8_t(sent.at(length + lengthAt))) + trailer;
            return sent.size() >= length;
        };
        const bool known = field(2, 1, 0)     // version, methods
                           && field(2, 1, 0)  // version, username
                           && field(1, 0, 0)  // password
                           && field(5, 4, 2); // CONNECT, the name, the port
        return known ? length : sent.size();
    }

    void relay(QTcpSocket* in, Attempt how) {
        connect(in, &QTcpSocket::disconnected, in, &QObject::deleteLater);
        if (how == Attempt::Swallowed) {
            connect(in, &QTcpSocket::readyRead, in, [in] { in->readAll(); });
            return;
        }
        struct Stream {
            QByteArray sent;         // by the engine
            qsizetype forwarded = 0; // of it, to tor
            qsizetype answered = 0;  // by tor, to the engine
            bool helloHeld = false;
        };
        const auto stream = std::make_shared<Stream>();
        stream->helloHeld = how == Attempt::HelloHeld;
        auto* out = new QLocalSocket(in);
        const auto forward = [in, out, stream] {
            stream->sent.append(in->readAll());
            if (out->state() != QLocalSocket::ConnectedState)
                return;
            const qsizetype until =
                stream->helloHeld ? socksBytes(stream->sent) : stream->sent.size();
            if (until > stream->forwarded) {
                out->write(stream->sent.mid(stream->forwarded, until - stream->forwarded));
                stream->forwarded = until;
            }
        };
        connect(in, &QTcpSocket::readyRead, out, forward);
        connect(out, &QLocalSocket::connected, out, forward);
        connect(out, &QLocalSocket::readyRead, in, [in, out, how, stream, forward] {
            QByteArray bytes = out->readAll();
            const qsizetype before = stream->answered;
            if (how == Attempt::AnswerHeld)
                bytes.truncate(std::max<qsizetype>(0, kBeforeConnectAnswer - before));
            stream->answered += bytes.size();
            in->write(bytes);
            if (stream->helloHeld && before < kConnectAnswered &&
                stream->answered >= kConnectAnswered)
                QTimer::singleShot(kHelloHeld, out, [stream, forward] {
                    stream->helloHeld = false;
                    forward();
                });
        });
        connect(out, &QLocalSocket::disconnected, in, &QTcpSocket::disconnectFromHost);
        connect(in, &QTcpSocket::disconnected, out, &QLocalSocket::disconnectFromServer);
        out->connectToServer(socks_());
    }

    QTcpServer server_;
    std::function<QString()> socks_;
    std::vector<Attempt> plan_;
    std::size_t arrived_ = 0;
};

} // namespace onionvoice::call::testing
