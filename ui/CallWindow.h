// The window of one call: who, its state and duration, mute, hang-up, the audio devices in use
// and the quality dashboard.
#pragma once

#include "call/CallTypes.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;

namespace onionvoice::ui {

class QualityDashboard;

class CallWindow : public QWidget {
    Q_OBJECT
public:
    explicit CallWindow(QWidget* parent = nullptr);

    void setPeer(const QString& name, const QString& address);
    void setDevices(const QString& description);
    void setPreset(const QString& preset);
    void setCallState(onionvoice::call::CallState state, onionvoice::call::EndReason reason);
    void updateStatistics(const onionvoice::call::CallStatistics& statistics);
    bool isMuted() const;
    QualityDashboard* dashboard() { return dashboard_; }

signals:
    void hangUpRequested();
    void muteToggled(bool muted);

private:
    void showDuration();

    QLabel* peer_;
    QLabel* state_;
    QLabel* duration_;
    QLabel* devices_;
    QPushButton* mute_;
    QPushButton* hangUp_;
    QualityDashboard* dashboard_;
    QElapsedTimer activeFor_;
    QTimer durationTimer_;
};

} // namespace onionvoice::ui
