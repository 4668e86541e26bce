// SOCKS5 client (RFC 1928 / RFC 1929 as tor implements it) and record framing of a link.
#include "OnionLink.h"

#include "NetLog.h"

#include <QNetworkProxy>

namespace onionvoice::net {

// Debug output is off unless enabled (QT_LOGGING_RULES): it may describe peers in detail.
Q_LOGGING_CATEGORY(lcNet, "onionvoice.net", QtInfoMsg)

OnionLink::OnionLink(std::size_t recordSize, QObject* parent)
    : QObject(parent)
    , recordSize_(recordSize) {
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, [this] {
        fail(Failure::Timeout, QStringLiteral("not connected within the connect timeout"));
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
    if (socket_) {
        socket_->disconnect(this);
        socket_->abort();
    }
    qCDebug(lcNet) << "link failed:" << failure << text;
    setState(State::Failed);
    emit failed(failure, text);
}

void OnionLink::attach(QTcpSocket* socket) {
    socket_ = socket;
    socket_->setParent(this);
    // Options reach the kernel only once the socket exists: an accepted socket now, a dialled
    // one when it has connected (Qt drops options set before that without a word).
    if (socket_->state() == QAbstractSocket::ConnectedState)
        applySocketOptions();
    connect(socket_, &QTcpSocket::readyRead, this, &OnionLink::onReadyRead);
    connect(socket_, &QTcpSocket::disconnected, this,
            [this] { fail(lossFailure(), QStringLiteral("the connection was closed")); });
    connect(socket_, &QTcpSocket::errorOccurred, this,
            [this](QAbstractSocket::SocketError) { fail(lossFailure(), socket_->errorString()); });
}

OnionLink::Failure OnionLink::lossFailure() const {
    switch (state_) {
    case State::Open:
        return Failure::Closed;
    case State::Negotiating:
        return Failure::ProxyDropped;
    default:
        return Failure::ProxyUnreachable;
    }
}

void OnionLink::connectToOnion(const SocksEndpoint& socks, const QString& onionHost, quint16 port,
                               const QByteArray& isolationKey, std::chrono::milliseconds timeout) {
    Q_ASSERT(state_ == State::Idle);
    socks_.emplace(onionHost.toLatin1(), port, isolationKey);
    auto* socket = new QTcpSocket(this);
    // Belt and braces: this socket talks to the SOCKS port itself, never through a proxy.
    socket->setProxy(QNetworkProxy::NoProxy);
    attach(socket);
    connect(socket_, &QTcpSocket::connected, this, &OnionLink::onConnected);
    setState(State::Connecting);
    timeout_.start(timeout);
    socket_->connectToHost(socks.address, socks.port);
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
    // Records are small and due at once: with Nagle a record waits for the ACK of the one
    // before, which the receiver's delayed ACK holds back up to 40 ms.
    socket_->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    // A small kernel buffer: what a peer does not read piles up where we can see and bound it.
    socket_->setSocketOption(QAbstractSocket::SendBufferSizeSocketOption, 16 * 1024);
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
    if (state_ == State::Open)
        deliverRecords();
}

bool OnionLink::readHandshake() {
    QByteArray out;
    const SocksHandshake::Outcome outcome = socks_->consume(buffer_, out);
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
    case SocksHandshake::Outcome::Open:
        timeout_.stop();
        setState(State::Open);
        emit opened();
        return true;
    }
    return false;
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
    if (socket_->bytesToWrite() + qint64(record.size()) > maxSendBacklog_) {
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
    if (socket_) {
        socket_->disconnect(this);
        socket_->flush();
        socket_->disconnectFromHost();
    }
    setState(State::Closed);
}

} // namespace onionvoice::net
