// Desktop notifications of the main window (an incoming or missed call while the window is not
// focused): the freedesktop notification service on the session D-Bus where there is one,
// otherwise the system-tray balloon; the taskbar entry is flagged either way. Never blocks the
// GUI thread: the D-Bus call is asynchronous and falls back to the tray when it fails.
#pragma once

#include <QObject>
#include <QString>

class QSystemTrayIcon;
class QWidget;

namespace onionvoice::ui {

class DesktopNotifier : public QObject {
    Q_OBJECT
public:
    enum class Channel { DBus, Tray, None };
    Q_ENUM(Channel)

    explicit DesktopNotifier(QWidget* window);

    // `text` is plain text (escaped for servers that read markup).
    void notify(const QString& title, const QString& text);

signals:
    // A notification reached the desktop (the D-Bus service answered, or the tray showed it), or
    // could not be shown anywhere (Channel::None).
    void delivered(const QString& title, const QString& text,
                   onionvoice::ui::DesktopNotifier::Channel channel);

private:
    void notifyThroughTray(const QString& title, const QString& text);

    QWidget* window_;
    QSystemTrayIcon* tray_ = nullptr;
};

} // namespace onionvoice::ui
