// Single instance per data directory: lock file, local socket, and the one-line request protocol
// ("OPEN <uri>\n" or "SHOW\n", answered "OK\n" or "ERR\n").
#include "InstanceGuard.h"

#include "InstanceSocketPath.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QThread>
#include <QTimer>

Q_LOGGING_CATEGORY(lcInstance, "onionvoice.instance")

namespace onionvoice::app {
namespace {

constexpr auto kRetryInterval = std::chrono::milliseconds(100);
constexpr auto kClientTimeout = std::chrono::milliseconds(5000);
const QByteArray kOpen = QByteArrayLiteral("OPEN ");
const QByteArray kShow = QByteArrayLiteral("SHOW");

bool isContactLink(const QString& uri) {
    return uri.startsWith(QLatin1String("onionvoice:"), Qt::CaseInsensitive);
}

} // namespace

InstanceGuard::InstanceGuard(QString dataDirectory, QObject* parent)
    : QObject(parent)
    , dataDirectory_(QDir(dataDirectory).absolutePath())
    , lock_(dataDirectory_) {
    server_.setSocketOptions(QLocalServer::UserAccessOption);
    connect(&server_, &QLocalServer::newConnection, this, &InstanceGuard::onNewConnection);
}

InstanceGuard::~InstanceGuard() {
    server_.close();
}

InstanceGuard::Role InstanceGuard::claim(const QString& uri, std::chrono::milliseconds timeout) {
    if (role_ != Role::Unclaimed)
        return role_;
    if (!uri.isEmpty() && !isContactLink(uri)) {
        error_ = tr("%1 is not an onionvoice: link").arg(uri);
        return role_ = Role::Failed;
    }
    const InstanceSocketPath socket = resolveInstanceSocketPath(dataDirectory_);
    if (socket.path.isEmpty()) {
        error_ = socket.error;
        return role_ = Role::Failed;
    }
    socketPath_ = socket.path;
    switch (lock_.tryAcquire()) {
    case DataDirectoryLock::Result::Acquired:
        return role_ = becomePrimary();
    case DataDirectoryLock::Result::Held:
        return role_ = forward(uri, timeout);
    case DataDirectoryLock::Result::Failed:
        break;
    }
    error_ = lock_.errorString();
    return role_ = Role::Failed;
}

InstanceGuard::Role InstanceGuard::becomePrimary() {
    // We hold the lock, so a socket file left there belongs to a dead instance.
    QLocalServer::removeServer(socketPath_);
    if (!server_.listen(socketPath_)) {
        error_ = tr("cannot listen on %1: %2").arg(socketPath_, server_.errorString());
        return Role::Failed;
    }
    return Role::Primary;
}

InstanceGuard::Role InstanceGuard::forward(const QString& uri, std::chrono::milliseconds timeout) {
    const QByteArray request = (uri.isEmpty() ? kShow : kOpen + uri.toUtf8()) + '\n';
    if (request.size() > kMaxMessageBytes) {
        error_ = tr("the link is too long");
        return Role::Failed;
    }
    const QDeadlineTimer deadline(timeout);
    QLocalSocket socket;
    // The primary may hold the lock but not listen yet: retry until the deadline.
    for (;;) {
        socket.connectToServer(socketPath_);
        if (socket.waitForConnected(int(deadline.remainingTime())))
            break;
        if (deadline.hasExpired()) {
            // The lock's own words name the holder (onionvoice-cli, which takes no links, or a
            // hung app) and its process: what the user needs to find and end it.
            error_ = tr("%1. It does not answer requests to show its window: end it, or wait for "
                        "it to finish, and start OnionVoice again.")
                         .arg(lock_.errorString());
            return Role::Failed;
        }
        QThread::msleep(std::min<qint64>(kRetryInterval.count(), deadline.remainingTime()));
    }
    socket.write(request);
    QByteArray reply;
    while (!reply.contains('\n') && socket.waitForReadyRead(int(deadline.remainingTime())))
        reply += socket.readAll();
    if (reply != "OK\n") {
        error_ = tr("the running OnionVoice refused the request");
        return Role::Failed;
    }
    return Role::Forwarded;
}

void InstanceGuard::onNewConnection() {
    while (QLocalSocket* socket = server_.nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        // A client that never finishes its line is dropped.
        QTimer::singleShot(kClientTimeout, socket, &QLocalSocket::disconnectFromServer);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            if (!socket->canReadLine()) {
                if (socket->bytesAvailable() > kMaxMessageBytes) {
                    qCWarning(lcInstance) << "dropped an over-long request";
                    socket->write("ERR\n");
                    socket->disconnectFromServer();
                }
                return;
            }
            const QByteArray line = socket->readLine(kMaxMessageBytes + 1).chopped(1);
            const QString uri = QString::fromUtf8(line.mid(kOpen.size()));
            const bool show = line == kShow;
            const bool open = line.startsWith(kOpen) && isContactLink(uri);
            socket->write(show || open ? "OK\n" : "ERR\n");
            socket->disconnectFromServer();
            if (show || open)
                emit activationRequested(open ? uri : QString());
            else
                qCWarning(lcInstance) << "dropped a malformed request";
        });
    }
}

} // namespace onionvoice::app
