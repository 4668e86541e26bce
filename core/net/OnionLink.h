// One link of a call: a TCP stream to <onion>:<port> through tor's SOCKS5 port (dialled), or a
// stream tor delivered to our listener (accepted), carrying fixed-size records both ways.
#pragma once

#include "SocksHandshake.h"

#include <QHostAddress>
#include <QObject>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>

namespace onionvoice::net {

struct SocksEndpoint {
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0;
};

class OnionLink : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Connecting, Negotiating, Open, Closed, Failed };
    Q_ENUM(State)
    enum class Failure {
        None,
        ProxyUnreachable, // tor's SOCKS port refused the TCP connection (nobody listening)
        ProxyDropped,     // tor's SOCKS port dropped the connection during the SOCKS exchange
        SocksAuthRefused, // tor did not accept username/password authentication
        SocksReply,       // tor answered the CONNECT with an error code (socksReplyCode())
        ProtocolError,    // the SOCKS answer made no sense
        Timeout,          // not open within the connect timeout
        Closed,           // the open stream was closed by the other side or by tor
        SendBacklog,      // the other side stopped reading: more than maxSendBacklog unsent
    };
    Q_ENUM(Failure)

    // Unsent bytes a link may hold before it is closed (~5 s of records at the usual rate,
    // with the kernel's send buffer kept small so the backlog shows here).
    static constexpr qint64 kDefaultMaxSendBacklog = 64 * 1024;

    explicit OnionLink(std::size_t recordSize, QObject* parent = nullptr);

    // Dials onionHost ("<56 chars>.onion") through tor's SOCKS5 port. The name is sent to tor
    // (ATYP domain name) and never resolved locally. isolationKey becomes the SOCKS username and
    // password, so with IsolateSOCKSAuth every key gets its own circuit.
    void connectToOnion(const SocksEndpoint& socks, const QString& onionHost, quint16 port,
                        const QByteArray& isolationKey, std::chrono::milliseconds timeout);
    // Takes over a socket that a listener accepted; the link is Open at once.
    void adopt(QTcpSocket* socket);

    // Queues one whole record; refuses (returns false) when the link is not open or the size
    // is not the record size. A peer that stops reading cannot make us buffer without end: past
    // maxSendBacklog the link fails with SendBacklog.
    bool sendRecord(std::span<const std::uint8_t> record);
    void setMaxSendBacklog(qint64 bytes) { maxSendBacklog_ = bytes; }
    void close();

    State state() const { return state_; }
    Failure failure() const { return failure_; }
    int socksReplyCode() const { return socksReplyCode_; }
    QString failureText() const { return failureText_; }
    std::size_t recordSize() const { return recordSize_; }

signals:
    void stateChanged(onionvoice::net::OnionLink::State state);
    void opened();
    void failed(onionvoice::net::OnionLink::Failure failure, const QString& reason);
    void recordReceived(const QByteArray& record);

private:
    void setState(State state);
    void fail(Failure failure, const QString& text, int socksReply = 0);
    // What the socket's loss means now: the peer's stream closed, or tor's port gone before or
    // during the SOCKS exchange (after CONNECT tor may already be building a circuit).
    Failure lossFailure() const;
    void attach(QTcpSocket* socket);
    void applySocketOptions();
    void onConnected();
    void onReadyRead();
    bool readHandshake();
    void deliverRecords();

    std::size_t recordSize_;
    QTcpSocket* socket_ = nullptr;
    QTimer timeout_;
    State state_ = State::Idle;
    Failure failure_ = Failure::None;
    int socksReplyCode_ = 0;
    QString failureText_;
    std::optional<SocksHandshake> socks_; // dialled links only
    QByteArray buffer_;
    qint64 maxSendBacklog_ = kDefaultMaxSendBacklog;
};

} // namespace onionvoice::net
