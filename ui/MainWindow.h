// The main window: the user's ID card, Tor status and the contact list; it opens the incoming-call
// prompt and the call window. It reaches the engine only through EngineHost.
#pragma once

#include "ContactActivity.h"
#include "call/CallTypes.h"
#include "tor/TorLauncher.h"

#include <QMainWindow>
#include <functional>
#include <memory>

namespace onionvoice::ui {

class CallWindow;
class ContactListPanel;
class DesktopNotifier;
class EngineHost;
class IdCard;
class IncomingCallDialog;
class TorStatusPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(EngineHost* host, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Turned on while a call rings (a ringtone on the output device), off when it stops.
    void setRinger(std::function<void(bool ringing)> ringer) { ringer_ = std::move(ringer); }
    void setPresetDescription(const QString& preset) { preset_ = preset; }
    void setDeviceDescription(const QString& devices) { devices_ = devices; }
    TorStatusPanel* torStatus() { return torStatus_; }
    CallWindow* callWindow() const;
    IncomingCallDialog* incomingCallDialog() const;
    DesktopNotifier* notifier() { return notifier_; }

public slots:
    // Shows `uri` (an onionvoice: link or an address from outside, e.g. a clicked link) in the
    // add-contact field, checked, for the user to confirm with Add.
    void openAddContact(const QString& uri);

signals:
    void settingsRequested();
    void soundTestRequested();
    // Tor should be started again (Retry), or bridges configured.
    void retryRequested();
    void bridgesRequested();
    // The user accepted an incoming call; the engine is told right after.
    void answering();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void onCallState(onionvoice::call::CallState state, const QString& peer,
                     onionvoice::call::EndReason reason);
    void onIncomingCall(const QString& peer, const QString& displayName,
                        const QString& audioProblem);
    void onPhase();
    // Tor restarts (Retry, a settings change): the old engine's call is over.
    void endCallUi();
    void blockCaller(const QString& address);
    void shareWithAccessKey();
    void showCallWindow(const QString& peer);
    void ring(bool on);
    void showNotes();
    void updateCalling();

    EngineHost* host_;
    IdCard* idCard_;
    TorStatusPanel* torStatus_;
    ContactListPanel* contacts_;
    // Top-level windows without a parent (see showCallWindow), so owned here.
    std::unique_ptr<CallWindow> callWindow_;
    std::unique_ptr<IncomingCallDialog> incoming_;
    DesktopNotifier* notifier_ = nullptr;
    std::function<void(bool)> ringer_;
    bool ringing_ = false;
    // The peer of the call we dialled, until it ends: the engine says Ringing for it and for an
    // incoming call alike, and only ours shows the call window while it rings.
    QString dialled_;
    tor::TorLauncher::State torState_ = tor::TorLauncher::State::NotStarted;
    ContactActivity activity_;
    QString preset_;
    QString devices_;
    // The engine's latest error: an audio failure is reported just before the end it causes.
    QString lastError_;
};

} // namespace onionvoice::ui
