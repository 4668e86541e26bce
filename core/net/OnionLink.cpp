// SOCKS5 client (RFC 1928 / RFC 1929 as tor implements it) and record framing of a link.
#include "OnionLink.h"

#include "NetLog.h"

#include <QNetworkProxy>

namespace onionvoice::net {

Q_LOGGING_CATEGORY(lcNet, "onionvoice.net")

namespace {

constexpr char kSocksVersion = 0x05;
constexpr char kMethodUserPass = 0x02;
constexpr char kUserPassVersion = 0x01;
constexpr char kCommandConnect = 0x01;
constexpr char kAddressDomain = 0x03;

} // namespace

QString describeSocksReply(int code) {
    switch (code) {
    case 0x01:
        return QStringLiteral("general failure");
    case 0x02:
        return QStringLiteral("not allowed by tor's rules");
    case 0x03:
        return QStringLiteral("network unreachable");
    case 0x04:
        return QStringLiteral("host unreachable");
    case 0x05:
        return QStringLiteral("connection refused");
    case 0x06:
        return QStringLiteral("timed out inside tor");
    case 0x07:
        return QStringLiteral("command not supported");
    case 0x08:
        return QStringLiteral("address type not supported");
    case 0xF0:
        return QStringLiteral("onion service descriptor not found");
    case 0xF1:
        return QStringLiteral("onion service descriptor is invalid");
    case 0xF2:
        return QStringLiteral("onion service introduction failed");
    case 0xF3:
        return QStringLiteral("onion service rendezvous failed");
    case 0xF4:
        return QStringLiteral("onion service needs client authorization");
    case 0xF5:
        return QStringLiteral("onion service client authorization is wrong");
    case 0xF6:
        return QStringLiteral("invalid onion address");
    case 0xF7:
        return QStringLiteral("introduction timed out");
    default:
        return QStringLiteral("unknown SOCKS reply 0x%1").arg(code, 2, 16, QLatin1Char('0'));
    }
}

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
    socket_->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(socket_, &QTcpSocket::readyRead, this, &OnionLink::onReadyRead);
    connect(socket_, &QTcpSocket::disconnected, this, [this] {
        fail(state_ == State::Open ? Failure::Closed : Failure::ProxyUnreachable,
             QStringLiteral("the connection was closed"));
    });
    connect(socket_, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
        fail(state_ == State::Open ? Failure::Closed : Failure::ProxyUnreachable,
             socket_->errorString());
    });
}

void OnionLink::connectToOnion(const SocksEndpoint& socks, const QString& onionHost, quint16 port,
                               const QByteArray& isolationKey, std::chrono::milliseconds timeout) {
    Q_ASSERT(state_ == State::Idle);
    target_ = onionHost.toLatin1();
    targetPort_ = port;
    isolationKey_ = isolationKey.left(255);
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

void OnionLink::onConnected() {
    setState(State::Negotiating);
    handshake_ = Handshake::Greeting;
    const char greeting[] = {kSocksVersion, 0x01, kMethodUserPass};
    socket_->write(greeting, sizeof greeting);
}

void OnionLink::onReadyRead() {
    buffer_.append(socket_->readAll());
    if (state_ == State::Negotiating && !readHandshake())
        return;
    if (state_ == State::Open)
        deliverRecords();
}

bool OnionLink::readHandshake() {
    while (state_ == State::Negotiating) {
        switch (handshake_) {
        case Handshake::Greeting: {
            if (buffer_.size() < 2)
                return false;
            if (buffer_.at(0) != kSocksVersion || buffer_.at(1) != kMethodUserPass) {
                fail(Failure::SocksAuthRefused,
                     QStringLiteral("tor's SOCKS port did not accept username/password"));
                return false;
            }
            buffer_.remove(0, 2);
            QByteArray auth(1, kUserPassVersion);
            auth.append(char(isolationKey_.size())).append(isolationKey_);
            auth.append(char(isolationKey_.size())).append(isolationKey_);
            socket_->write(auth);
            handshake_ = Handshake::Authentication;
            break;
        }
        case Handshake::Authentication: {
            if (buffer_.size() < 2)
                return false;
            if (buffer_.at(1) != 0x00) {
                fail(Failure::SocksAuthRefused,
                     QStringLiteral("tor refused the SOCKS credentials"));
                return false;
            }
            buffer_.remove(0, 2);
            const char header[] = {kSocksVersion, kCommandConnect, 0x00, kAddressDomain};
            QByteArray request(header, sizeof header);
            request.append(char(target_.size())).append(target_);
            request.append(char(targetPort_ >> 8)).append(char(targetPort_ & 0xff));
            socket_->write(request);
            handshake_ = Handshake::ConnectReply;
            break;
        }
        case Handshake::ConnectReply: {
            if (buffer_.size() < 5)
                return false;
            if (buffer_.at(0) != kSocksVersion) {
                fail(Failure::ProtocolError, QStringLiteral("malformed SOCKS reply"));
                return false;
            }
            const int reply = std::uint8_t(buffer_.at(1));
            if (reply != 0x00) {
                fail(Failure::SocksReply,
                     QStringLiteral("tor could not connect: %1").arg(describeSocksReply(reply)),
                     reply);
                return false;
            }
            qsizetype length = 0;
            switch (buffer_.at(3)) {
            case 0x01:
                length = 4 + 4 + 2;
                break;
            case 0x04:
                length = 4 + 16 + 2;
                break;
            case 0x03:
                length = 4 + 1 + std::uint8_t(buffer_.at(4)) + 2;
                break;
            default:
                fail(Failure::ProtocolError, QStringLiteral("unknown address type in SOCKS reply"));
                return false;
            }
            if (buffer_.size() < length)
                return false;
            buffer_.remove(0, length);
            timeout_.stop();
            setState(State::Open);
            emit opened();
            break;
        }
        }
    }
    return true;
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
