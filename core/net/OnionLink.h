// One link of a call: a stream to <onion>:<port> through tor's SOCKS5 port (dialled), or a
// stream tor delivered to our listener (accepted), carrying fixed-size records both ways.
#pragma once

#include "SocksHandshake.h"

#include <QObject>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>

class QLocalSocket;

namespace onionvoice::net {

// Where tor takes SOCKS connections; always on this machine, never an address elsewhere. Where
// the platform has unix sockets, tor's SOCKS port is a socket in its 0700 directory (`path`: only
// our user can connect, so no other local user dials through our tor with our contacts' client
// authorization); on Windows a TCP port on 127.0.0.1 (`port`). Neither set: no tor to dial.
struct SocksEndpoint {
    QString path;     // unix socket; when set, `port` is not used
    quint16 port = 0; // TCP port on 127.0.0.1
    static SocksEndpoint unixSocket(const QString& path) { return {path, 0}; }
    static SocksEndpoint loopbackPort(quint16 port) { return {{}, port}; }
    bool isSet() const { return !path.isEmpty() || port != 0; }
};

class OnionLink : public QObject {
    Q_OBJECT
public:
    // Confirming: tor answered the CONNECT with one of its extended codes, which it also sends
    // for a success (SocksHandshake::Outcome::ExtendedReply); tor closing the connection makes it
    // a failure, the stream's first bytes or kExtendedReplyWait without a close an open link.
    enum class State { Idle, Connecting, Negotiating, Confirming, Open, Closed, Failed };
    Q_ENUM(State)
    enum class Failure {
        None,
        ProxyUnreachable, // tor's SOCKS port refused the connection (nobody listening, none set)
        ProxyDropped,     // tor's SOCKS port dropped the connection during the SOCKS exchange
        SocksAuthRefused, // tor did not accept username/password authentication
        SocksReply,       // tor answered the CONNECT with an error code (socksReplyCode())
        ProtocolError,    // the SOCKS answer made no sense
        Timeout,          // not open within the connect timeout
        Closed,           // the open stream was closed by the other side or by tor
        SendBacklog,      // the other side stopped reading: more than kMaxSendBacklog unsent
    };
    Q_ENUM(Failure)

    // Unsent bytes a link may hold before it is closed (~5 s of records at the usual rate,
    // with the kernel's send buffer kept small so the backlog shows here).
    static constexpr qint64 kMaxSendBacklog = 64 * 1024;
    // How long a link stays Confirming when tor neither closes it nor sends anything: tor closes
    // a failed stream at once, in the same turn of its loop as the reply.
    static constexpr std::chrono::milliseconds kExtendedReplyWait{3000};

    explicit OnionLink(std::size_t recordSize, QObject* parent = nullptr);

    // Dials onionHost ("<56 chars>.onion") through tor's SOCKS5 port (a unix socket or a TCP
    // port on 127.0.0.1: the SOCKS exchange and the records are the same on both). The name is
    // sent to tor (ATYP domain name) and never resolved locally. isolationKey becomes the SOCKS
    // username and password, so with IsolateSOCKSAuth every key gets its own circuit.
    // firstRecord, if any, goes right behind the CONNECT request, before tor answers it: tor
    // sends it in the cell after the stream's BEGIN (optimistic data), so the other side has it
    // the moment its listener takes the stream, a whole circuit round trip earlier than a record
    // sent once the link is open (a listener that closes streams which have not yet spoken, when
    // too many wait, then never closes this one for its silence).
    void connectToOnion(const SocksEndpoint& socks, const QString& onionHost, quint16 port,
                        const QByteArray& isolationKey, std::chrono::milliseconds timeout,
                        const QByteArray& firstRecord = {});
    // Takes over a socket that a listener accepted; the link is Open at once.
    void adopt(QTcpSocket* socket);

    // Queues one whole record; refuses (returns false) when the link is not open or the size
    // is not the record size. A peer that stops reading cannot make us buffer without end: past
    // kMaxSendBacklog the link fails with SendBacklog.
    bool sendRecord(std::span<const std::uint8_t> record);
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
    // The socket was lost: the peer's stream closed, or tor's port gone before or during the
    // SOCKS exchange (after CONNECT tor may already be building a circuit), or tor's extended
    // code was its failure after all.
    void onSocketLost(const QString& text);
    // The stream's transport: a TCP socket (accepted, or dialled to 127.0.0.1) or a unix socket
    // dialled to tor (QLocalSocket); everything above it is shared.
    void attach(QTcpSocket* socket);
    void attach(QLocalSocket* socket);
    void attachDevice(QIODevice* device);
    void dropSocket(bool graceful);
    void applySocketOptions();
    void onConnected();
    void onReadyRead();
    bool readHandshake();
    void open();
    void deliverRecords();

    std::size_t recordSize_;
    QIODevice* socket_ = nullptr; // a QTcpSocket or a QLocalSocket, owned (child)
    QTimer timeout_;
    State state_ = State::Idle;
    Failure failure_ = Failure::None;
    int socksReplyCode_ = 0;
    QString failureText_;
    std::optional<SocksHandshake> socks_; // dialled links only
    QByteArray firstRecord_;              // until it follows the CONNECT request
    QByteArray buffer_;
};

} // namespace onionvoice::net
