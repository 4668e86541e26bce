// SOCKS5 client (RFC 1928 / RFC 1929 as tor implements it) and record framing of a link.
#include "OnionLink.h"

#include "NetLog.h"

#include <QHostAddress>
#include <QLocalSocket>
#include <QNetworkProxy>

#ifndef Q_OS_WIN
#include <sys/socket.h>
#endif

namespace onionvoice::net {

// Debug output is off unless enabled (QT_LOGGING_RULES): it may describe peers in detail.
Q_LOGGING_CATEGORY(lcNet, "onionvoice.net", QtInfoMsg)

OnionLink::OnionLink(std::size_t recordSize, QObject* parent)
    : QObject(parent)
    , recordSize_(recordSize) {
    timeout_.setSingleShot(true);
    // The deadline of the phase the link is in: the connect timeout, or for a Confirming link
    // kExtendedReplyWait, after which tor's silence means the stream is open.
    connect(&timeout_, &QTimer::timeout, this, [this] {
        if (state_ != State::Confirming) {
            fail(Failure::Timeout, QStringLiteral("not connected within the connect timeout"));
            return;
        }
        qCInfo(lcNet) << "tor's answer carried" << socks_->failureText()
                      << "and the stream stayed open: taken as open";
        open();
    });
}

void OnionLink::setState(State state) {
    if (state_ == state)
        return;
    state_ = state;
    emit stateChanged(state);
}

void OnionLink::fail(Failure failure, const QString& text, int socksReply) {
    if (state_ == State::Failed || state_ == State::Closed)
        return;
    timeout_.stop();
    failure_ = failure;
    failureText_ = text;
    socksReplyCode_ = socksReply;
    dropSocket(false);
    qCDebug(lcNet) << "link failed:" << failure << text;
    setState(State::Failed);
    emit failed(failure, text);
}

void OnionLink::attachDevice(QIODevice* device) {
    socket_ = device;
    socket_->setParent(this);
    connect(socket_, &QIODevice::readyRead, this, &OnionLink::onReadyRead);
}

void OnionLink::attach(QTcpSocket* socket) {
    attachDevice(socket);
    // Options reach the kernel only once the socket exists: an accepted socket now, a dialled
    // one when it has connected (Qt drops options set before that without a word).
    if (socket->state() == QAbstractSocket::ConnectedState)
        applySocketOptions();
    connect(socket, &QTcpSocket::disconnected, this,
            [this] { onSocketLost(QStringLiteral("the connection was closed")); });
    connect(socket, &QTcpSocket::errorOccurred, this,
            [this, socket](QAbstractSocket::SocketError) { onSocketLost(socket->errorString()); });
}

void OnionLink::attach(QLocalSocket* socket) {
    attachDevice(socket);
    connect(socket, &QLocalSocket::disconnected, this,
            [this] { onSocketLost(QStringLiteral("the connection was closed")); });
    connect(
        socket, &QLocalSocket::errorOccurred, this,
        [this, socket](QLocalSocket::LocalSocketError) { onSocketLost(socket->errorString()); });
}

// graceful: what is queued still goes out before the stream closes (close()); otherwise the
// stream is cut at once (a failure).
void OnionLink::dropSocket(bool graceful) {
    if (!socket_)
        return;
    socket_->disconnect(this);
    if (auto* tcp = qobject_cast<QTcpSocket*>(socket_)) {
        if (graceful) {
            tcp->flush();
            tcp->disconnectFromHost();
        } else {
            tcp->abort();
        }
    } else if (auto* local = qobject_cast<QLocalSocket*>(socket_)) {
        if (graceful) {
            local->flush();
            local->disconnectFromServer();
        } else {
            local->abort();
        }
    }
}

void OnionLink::onSocketLost(const QString& text) {
    switch (state_) {
    case State::Open:
        fail(Failure::Closed, text);
        break;
    case State::Negotiating:
        fail(Failure::ProxyDropped, text);
        break;
    case State::Confirming:
        fail(Failure::SocksReply, socks_->failureText(), socks_->replyCode());
        break;
    default:
        fail(Failure::ProxyUnreachable, text);
        break;
    }
}

void OnionLink::connectToOnion(const SocksEndpoint& socks, const QString& onionHost, quint16 port,
                               const QByteArray& isolationKey, std::chrono::milliseconds timeout,
                               const QByteArray& firstRecord) {
    Q_ASSERT(state_ == State::Idle);
    Q_ASSERT(firstRecord.isEmpty() || firstRecord.size() == qsizetype(recordSize_));
    socks_.emplace(onionHost.toLatin1(), port, isolationKey);
    firstRecord_ = firstRecord;
    setState(State::Connecting);
    timeout_.start(timeout);
    if (!socks.isSet()) {
        // No tor to dial (starting or restarting): nothing is connected to. Failed from the event
        // loop, as a refused connection would be, so the caller has taken the link in first.
        QTimer::singleShot(0, this, [this] {
            if (state_ == State::Connecting)
                fail(Failure::ProxyUnreachable,
                     QStringLiteral("tor's SOCKS port is not known yet (tor is starting)"));
        });
        return;
    }
    if (!socks.path.isEmpty()) {
        auto* socket = new QLocalSocket(this);
        attach(socket);
        connect(socket, &QLocalSocket::connected, this, &OnionLink::onConnected);
        // QLocalSocket may report a missing or refused socket from inside connectToServer; from
        // the event loop, the link's failure comes after the caller has taken the link in.
        QTimer::singleShot(0, socket, [this, socket, path = socks.path] {
            if (state_ == State::Connecting && socket_ == socket)
                socket->connectToServer(path);
        });
        return;
    }
    auto* socket = new QTcpSocket(this);
    // Belt and braces: this socket talks to the SOCKS port itself, never through a proxy.
    socket->setProxy(QNetworkProxy::NoProxy);
    attach(socket);
    connect(socket, &QTcpSocket::connected, this, &OnionLink::onConnected);
    socket->connectToHost(QHostAddress(QHostAddress::LocalHost), socks.port);
}

void OnionLink::adopt(QTcpSocket* socket) {
    Q_ASSERT(state_ == State::Idle);
    attach(socket);
    setState(State::Open);
    emit opened();
    if (socket_->bytesAvailable() > 0)
        onReadyRead();
}

void OnionLink::applySocketOptions() {
    // A small kernel buffer: what a peer does not read piles up where we can see and bound it.
    constexpr int kSendBuffer = 16 * 1024;
    if (auto* tcp = qobject_cast<QTcpSocket*>(socket_)) {
        // Records are small and due at once: with Nagle a record waits for the ACK of the one
        // before, which the receiver's delayed ACK holds back up to 40 ms.
        tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        tcp->setSocketOption(QAbstractSocket::SendBufferSizeSocketOption, kSendBuffer);
    }
#ifndef Q_OS_WIN
    else if (auto* local = qobject_cast<QLocalSocket*>(socket_)) {
        // A unix socket has no Nagle; its send buffer is bounded the same way.
        const int size = kSendBuffer;
        ::setsockopt(int(local->socketDescriptor()), SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    }
#endif
}

void OnionLink::onConnected() {
    applySocketOptions();
    setState(State::Negotiating);
    socket_->write(socks_->greeting());
}

void OnionLink::onReadyRead() {
    buffer_.append(socket_->readAll());
    if (state_ == State::Negotiating && !readHandshake())
        return;
    if (state_ == State::Confirming && !buffer_.isEmpty())
        open(); // a stream tor failed carries nothing
    if (state_ == State::Open)
        deliverRecords();
}

bool OnionLink::readHandshake() {
    QByteArray out;
    const SocksHandshake::Outcome outcome = socks_->consume(buffer_, out);
    if (socks_->connectSent() && !firstRecord_.isEmpty()) {
        out.append(firstRecord_);
        firstRecord_.clear();
    }
    if (!out.isEmpty())
        socket_->write(out);
    switch (outcome) {
    case SocksHandshake::Outcome::NeedMore:
        return false;
    case SocksHandshake::Outcome::Failed:
        switch (socks_->failure()) {
        case SocksHandshake::Failure::AuthRefused:
            fail(Failure::SocksAuthRefused, socks_->failureText());
            break;
        case SocksHandshake::Failure::Reply:
            fail(Failure::SocksReply, socks_->failureText(), socks_->replyCode());
            break;
        default:
            fail(Failure::ProtocolError, socks_->failureText());
            break;
        }
        return false;
    case SocksHandshake::Outcome::ExtendedReply:
        // tor 0.4.x: connection_ap_handshake_socks_reply() sends the extended code an entry
        // connection was given earlier whatever the outcome, and client_dir_fetch_404() gives
        // one to every stream waiting for a descriptor as it retries at another HSDir. A dial
        // just after the peer published was told "descriptor not found" by the reply to a
        // CONNECT that succeeded: its Hello rang the callee, which then saw the link closed (a
        // ring cut short in tst_guirestart, in CI).
        setState(State::Confirming);
        timeout_.start(kExtendedReplyWait);
        return !buffer_.isEmpty();
    case SocksHandshake::Outcome::Open:
        open();
        return true;
    }
    return false;
}

void OnionLink::open() {
    timeout_.stop();
    setState(State::Open);
    emit opened();
}

void OnionLink::deliverRecords() {
    const auto size = qsizetype(recordSize_);
    qsizetype offset = 0;
    while (state_ == State::Open && buffer_.size() - offset >= size) {
        const QByteArray record = buffer_.mid(offset, size);
        offset += size;
        emit recordReceived(record);
    }
    buffer_.remove(0, offset);
}

bool OnionLink::sendRecord(std::span<const std::uint8_t> record) {
    if (state_ != State::Open || record.size() != recordSize_)
        return false;
    if (socket_->bytesToWrite() + qint64(record.size()) > kMaxSendBacklog) {
        // Failed from the event loop: the caller may be in the middle of sending on all links.
        QTimer::singleShot(0, this, [this] {
            fail(Failure::SendBacklog, QStringLiteral("the other side stopped reading"));
        });
        return false;
    }
    socket_->write(reinterpret_cast<const char*>(record.data()), qint64(record.size()));
    return true;
}

void OnionLink::close() {
    if (state_ == State::Closed || state_ == State::Failed)
        return;
    timeout_.stop();
    dropSocket(true);
    setState(State::Closed);
}

} // namespace onionvoice::net
