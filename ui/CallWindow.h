// The window of one call: who, its state and duration (and why it ended), mute, hang-up, the
// audio devices in use and the quality dashboard. Closing it during a call hangs up; an ended
// call's window offers Close (and Esc).
#pragma once

#include "call/CallTypes.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;
class QShortcut;

namespace onionvoice::ui {

class QualityDashboard;

class CallWindow : public QWidget {
    Q_OBJECT
public:
    explicit CallWindow(QWidget* parent = nullptr);

    void setPeer(const QString& name, const QString& address);
    // The address of the call the window shows (or showed last).
    QString peerAddress() const { return peerAddress_; }
    void setDevices(const QString& description);
    void setPreset(const QString& preset);
    // A call state after Ended (or the first one) starts a new call: the window is cleared and
    // unmuted, whether the call is ours (Dialing) or theirs (Ringing or, answered, Active).
    // `detail`: the engine's own words on why the call ended, where it gave any (an audio error).
    void setCallState(onionvoice::call::CallState state, onionvoice::call::EndReason reason,
                      const QString& detail = {});
    onionvoice::call::CallState callState() const { return callState_; }
    void updateStatistics(const onionvoice::call::CallStatistics& statistics);
    bool isMuted() const;
    QualityDashboard* dashboard() { return dashboard_; }

signals:
    void hangUpRequested();
    void muteToggled(bool muted);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void reset();
    void showDuration();

    QLabel* peer_;
    QLabel* state_;
    QLabel* endDetail_;
    QLabel* duration_;
    QLabel* devices_;
    QPushButton* mute_;
    QPushButton* hangUp_;
    QPushButton* close_;
    QShortcut* escape_;
    QualityDashboard* dashboard_;
    QElapsedTimer activeFor_;
    QTimer durationTimer_;
    call::CallState callState_ = call::CallState::Idle;
    QString peerAddress_;
};

} // namespace onionvoice::ui
