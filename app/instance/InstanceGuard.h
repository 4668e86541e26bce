// One running OnionVoice per data directory. The first instance holds the directory's lock
// (DataDirectoryLock, which onionvoice-cli takes too) and listens on a local socket; a later one
// (for example started by the desktop for an onionvoice: link) hands its link to the running
// instance and exits. An onionvoice-cli holding the lock takes no links: the start fails.
#pragma once

#include "DataDirectoryLock.h"

#include <QLocalServer>
#include <QObject>
#include <QString>
#include <chrono>

namespace onionvoice::app {

class InstanceGuard : public QObject {
    Q_OBJECT
public:
    enum class Role {
        Unclaimed, // claim() not called yet
        Primary,   // this process runs the app for the data directory
        Forwarded, // another process runs it and has received the request
        Failed,    // neither: see errorString()
    };
    Q_ENUM(Role)

    static constexpr qsizetype kMaxMessageBytes = 4096;
    static constexpr auto kDefaultTimeout = std::chrono::milliseconds(5000);

    explicit InstanceGuard(QString dataDirectory, QObject* parent = nullptr);
    ~InstanceGuard() override;

    // Becomes the primary instance, or forwards `uri` (an onionvoice: link, or empty to just
    // bring the running window forward) to the primary one. Blocks for at most `timeout` while
    // a primary that is still starting opens its socket.
    Role claim(const QString& uri, std::chrono::milliseconds timeout = kDefaultTimeout);

    Role role() const { return role_; }
    QString errorString() const { return error_; }
    // Where the primary listens (InstanceSocketPath); known once claim() has run.
    QString socketPath() const { return socketPath_; }

signals:
    // In the primary: another start asked to show the window, with `uri` filled in if not empty.
    void activationRequested(const QString& uri);

private:
    Role becomePrimary();
    Role forward(const QString& uri, std::chrono::milliseconds timeout);
    void onNewConnection();

    QString dataDirectory_;
    DataDirectoryLock lock_;
    QLocalServer server_;
    QString socketPath_;
    Role role_ = Role::Unclaimed;
    QString error_;
};

} // namespace onionvoice::app
