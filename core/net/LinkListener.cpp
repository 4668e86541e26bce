// Listener behind ADD_ONION's Port= target: a unix socket (QLocalServer) or 127.0.0.1 (QTcpServer).
#include "LinkListener.h"

#include "NetLog.h"

#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <algorithm>
#include <functional>
#include <optional>

namespace onionvoice::net {

namespace {

// Hands each accepted unix-socket descriptor to a QTcpSocket, as Qt's own QLocalSocket does on
// Unix: OnionLink then treats accepted streams alike whatever the listener.
class UnixSocketServer : public QLocalServer {
public:
    explicit UnixSocketServer(std::function<void(QTcpSocket*)> accepted)
        : accepted_(std::move(accepted)) {}

protected:
    void incomingConnection(quintptr descriptor) override {
        auto* socket = new QTcpSocket(this); // the receiver of accepted_ takes it over (OnionLink)
        if (!socket->setSocketDescriptor(qintptr(descriptor))) {
            qCWarning(lcNet) << "cannot take an accepted stream:" << socket->errorString();
            delete socket;
            QLocalSocket owner; // closes the descriptor when it goes
            owner.setSocketDescriptor(qintptr(descriptor));
            return;
        }
        accepted_(socket);
    }

private:
    std::function<void(QTcpSocket*)> accepted_;
};

// sizeof(sockaddr_un::sun_path) is 108 on Linux, 104 on the BSDs and macOS; with its NUL.
constexpr qsizetype kMaxSocketPathBytes = 103;
// A listening socket answers at once; this only bounds a listener too busy to take us.
constexpr int kProbeTimeoutMs = 1000;

// Why the socket file at `path` must stay, if it must: a process listens there (another
// OnionVoice on the same data directory, whose tor's streams would come to us, and to nobody
// once we removed the file on exit). A file left by a process that died refuses the connection
// and may go, as may a path with nothing there.
std::optional<QString> socketInUse(const QString& path) {
    QLocalSocket probe;
    probe.connectToServer(path);
    if (probe.waitForConnected(kProbeTimeoutMs))
        return QStringLiteral("another process listens on %1").arg(path);
    if (probe.error() == QLocalSocket::ConnectionRefusedError ||
        probe.error() == QLocalSocket::ServerNotFoundError)
        return std::nullopt;
    return QStringLiteral("cannot tell whether %1 is in use: %2").arg(path, probe.errorString());
}

} // namespace

LinkListener::LinkListener(std::size_t recordSize, QObject* parent)
    : QObject(parent)
    , recordSize_(recordSize) {
    connect(&tcp_, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = tcp_.nextPendingConnection())
            adopt(socket);
    });
}

LinkListener::~LinkListener() {
    if (local_) {
        const QString path = local_->fullServerName();
        local_.reset();
        QFile::remove(path); // QLocalServer::close leaves no file behind, but a failed one may
    }
}

void LinkListener::adopt(QTcpSocket* socket) {
    auto* link = new OnionLink(recordSize_, this);
    connect(link, &OnionLink::failed, link, &QObject::deleteLater);
    link->adopt(socket);
    emit linkAccepted(link);
}

bool LinkListener::listen(quint16 port) {
    if (!tcp_.listen(QHostAddress::LocalHost, port)) {
        error_ = tcp_.errorString();
        qCWarning(lcNet) << "cannot listen for links:" << error_;
        return false;
    }
    return true;
}

bool LinkListener::usableSocketPath(const QString& path) {
    const QByteArray encoded = QFile::encodeName(path);
    if (!path.startsWith(QLatin1Char('/')) || encoded.size() > kMaxSocketPathBytes)
        return false;
    // Tor splits ADD_ONION's arguments on spaces and the port spec on commas; a quoted path would
    // need escaping in two grammars at once. Plain paths only.
    return std::all_of(encoded.begin(), encoded.end(), [](char c) {
        return std::uint8_t(c) > 0x20 && std::uint8_t(c) < 0x7f && c != ',' && c != '"' &&
               c != '\\' && c != '#';
    });
}

bool LinkListener::listenLocal(const QString& path) {
    if (!usableSocketPath(path)) {
        error_ =
            QStringLiteral("%1 cannot be tor's target (too long or unusual characters)").arg(path);
        return false;
    }
    if (const auto reason = socketInUse(path)) {
        error_ = *reason;
        qCWarning(lcNet) << "cannot listen for links on a unix socket:" << error_;
        return false;
    }
    local_ = std::make_unique<UnixSocketServer>([this](QTcpSocket* socket) { adopt(socket); });
    // Only our user may connect, even where the directory's mode would allow more.
    local_->setSocketOptions(QLocalServer::UserAccessOption);
    QLocalServer::removeServer(path); // left by a process that died
    if (!local_->listen(path)) {
        error_ = local_->errorString();
        qCWarning(lcNet) << "cannot listen for links on a unix socket:" << error_;
        local_.reset();
        return false;
    }
    return true;
}

QByteArray LinkListener::torTarget() const {
    if (local_)
        return "unix:" + QFile::encodeName(local_->fullServerName());
    if (tcp_.isListening())
        return "127.0.0.1:" + QByteArray::number(tcp_.serverPort());
    return {};
}

} // namespace onionvoice::net
