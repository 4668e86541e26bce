// A desktop notification service (org.freedesktop.Notifications) for GUI tests, on a private
// session bus of its own dbus-daemon: records what the app asks it to show.
#pragma once

#include <QDBusConnection>
#include <QDBusError>
#include <QList>
#include <QObject>
#include <QPair>
#include <QProcess>
#include <QString>
#include <QVariantMap>
#include <csignal>
#include <sys/prctl.h>

class NotificationServer : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    QList<QPair<QString, QString>> shown; // summary, body

    // Starts the bus, points this process's session bus at it and registers the service on a
    // connection of its own, so the app's notifications really cross the bus.
    bool start(QString* error) {
        daemon_.setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGTERM); });
        daemon_.start(QStringLiteral("dbus-daemon"),
                      {QStringLiteral("--session"), QStringLiteral("--nofork"),
                       QStringLiteral("--print-address=1")});
        if (!daemon_.waitForReadyRead(10000)) {
            *error = QStringLiteral("dbus-daemon: ") + daemon_.errorString();
            return false;
        }
        const QByteArray address = daemon_.readLine().trimmed();
        qputenv("DBUS_SESSION_BUS_ADDRESS", address);
        QDBusConnection server =
            QDBusConnection::connectToBus(QString::fromUtf8(address), QStringLiteral("server"));
        if (!server.registerObject(QStringLiteral("/org/freedesktop/Notifications"), this,
                                   QDBusConnection::ExportAllSlots) ||
            !server.registerService(QStringLiteral("org.freedesktop.Notifications"))) {
            *error = server.lastError().message();
            return false;
        }
        return true;
    }
    ~NotificationServer() override {
        QDBusConnection::disconnectFromBus(QStringLiteral("server"));
        daemon_.terminate();
        daemon_.waitForFinished(3000);
    }

public slots:
    uint Notify(const QString& /*app*/, uint /*replaces*/, const QString& /*icon*/,
                const QString& summary, const QString& body, const QStringList& /*actions*/,
                const QVariantMap& /*hints*/, int /*timeout*/) {
        shown.append({summary, body});
        return uint(shown.size());
    }

private:
    QProcess daemon_;
};
