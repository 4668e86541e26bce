// Desktop notifications: org.freedesktop.Notifications, else the tray.
#include "DesktopNotifier.h"

#include <QApplication>
#include <QLoggingCategory>
#include <QSystemTrayIcon>
#include <QWidget>

#ifdef ONIONVOICE_HAVE_DBUS
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#endif

Q_LOGGING_CATEGORY(lcNotify, "onionvoice.ui.notify")

namespace onionvoice::ui {
namespace {

// How long a notification stays up: a ringing call gives up after about 20 s anyway.
constexpr int kShownForMs = 10000;

} // namespace

DesktopNotifier::DesktopNotifier(QWidget* window)
    : QObject(window)
    , window_(window) {
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        tray_ = new QSystemTrayIcon(window->windowIcon(), this);
        tray_->setToolTip(QApplication::applicationName());
        tray_->show();
    }
}

void DesktopNotifier::notify(const QString& title, const QString& text) {
    QApplication::alert(window_);
#ifdef ONIONVOICE_HAVE_DBUS
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (bus.isConnected()) {
        // The body is escaped: notification servers may read it as markup (the specification's
        // body-markup), and a caller's name holding <img src="http://…"> would make the desktop
        // fetch it, outside tor. The tray balloon shows plain text.
        QDBusMessage message = QDBusMessage::createMethodCall(
            QStringLiteral("org.freedesktop.Notifications"),
            QStringLiteral("/org/freedesktop/Notifications"),
            QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("Notify"));
        message << QApplication::applicationName() << 0u
                << QStringLiteral("org.onionvoice.OnionVoice") << title << text.toHtmlEscaped()
                << QStringList()
                << QVariantMap{{QStringLiteral("urgency"), QVariant::fromValue(uchar(2))},
                               {QStringLiteral("category"), QStringLiteral("im.received")}}
                << kShownForMs;
        auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(message), this);
        connect(watcher, &QDBusPendingCallWatcher::finished, this,
                [this, title, text](QDBusPendingCallWatcher* call) {
                    call->deleteLater();
                    const QDBusPendingReply<uint> reply = *call;
                    if (reply.isError()) {
                        qCInfo(lcNotify, "no desktop notification service (%s); using the tray",
                               qPrintable(reply.error().name()));
                        notifyThroughTray(title, text);
                        return;
                    }
                    emit delivered(title, text, Channel::DBus);
                });
        return;
    }
#endif
    notifyThroughTray(title, text);
}

void DesktopNotifier::notifyThroughTray(const QString& title, const QString& text) {
    if (!tray_) {
        emit delivered(title, text, Channel::None);
        return;
    }
    tray_->showMessage(title, text, QSystemTrayIcon::Information, kShownForMs);
    emit delivered(title, text, Channel::Tray);
}

} // namespace onionvoice::ui
