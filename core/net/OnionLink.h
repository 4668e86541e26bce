// One link of a call: a TCP stream to <onion>:<port> through tor's SOCKS5 port (dialled), or a
// stream tor delivered to our listener (accepted), carrying fixed-size records both ways.
#pragma once

#include <QHostAddress>
#include <QObject>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <cstdint>
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
        ProxyUnreachable, // tor's SOCKS port refused or dropped the TCP connection
        SocksAuthRefused, // tor did not accept username/password authentication
        SocksReply,       // tor answered the CONNECT with an error code (socksReplyCode())
        ProtocolError,    // the SOCKS answer made no sense
        Timeout,          // not open within the connect timeout
        Closed,           // the open stream was closed by the other side or by tor
    };
    Q_ENUM(Failure)

    explicit OnionLink(std::size_t recordSize, QObject* parent = nullptr);

    // Dials onionHost ("<56 chars>.onion") through tor's SOCKS5 port. The name is sent to tor
    // (ATYP domain name) and never resolved locally. isolationKey becomes the SOCKS username and
    // password, so with IsolateSOCKSAuth every key gets its own circuit.
    void connectToOnion(const SocksEndpoint& socks, const QString& onionHost, quint16 port,
                        const QByteArray& isolationKey, std::chrono::milliseconds timeout);
    // Takes over a socket that a listener accepted; the link is Open at once.
    void adopt(QTcpSocket* socket);

    // Queues one whole record; refuses (returns false) when the link is not open or the size
    // is not the record size.
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
    enum class Handshake { Greeting, Authentication, ConnectReply };

    void setState(State state);
    void fail(Failure failure, const QString& text, int socksReply = 0);
    void attach(QTcpSocket* socket);
    void onConnected();
    void onReadyRead();
    bool readHandshake();
    void deliverRecords();

    std::size_t recordSize_;
    QTcpSocket* socket_ = nullptr;
    QTimer timeout_;
    State state_ = State::Idle;
    Handshake handshake_ = Handshake::Greeting;
    Failure failure_ = Failure::None;
    int socksReplyCode_ = 0;
    QString failureText_;
    QByteArray target_; // host name sent in CONNECT
    quint16 targetPort_ = 0;
    QByteArray isolationKey_;
    QByteArray buffer_;
};

// Human-readable meaning of a SOCKS5 reply code, including tor's extended codes (0xF0-0xF7).
QString describeSocksReply(int code);

} // namespace onionvoice::net
