// Tor status for a person: bootstrap progress with the step in words, the state of the user's
// onion service, errors with Retry, tor's own notices on demand, and — when connecting takes too
// long — a plain statement that tor may be blocked here, with a way to bridges.
#pragma once

#include "tor/OnionService.h"
#include "tor/TorLauncher.h"

#include <QFrame>
#include <QTimer>
#include <chrono>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace onionvoice::ui {

class TorStatusPanel : public QFrame {
    Q_OBJECT
public:
    explicit TorStatusPanel(QWidget* parent = nullptr);

    // After this long without a full bootstrap the panel says that tor may be blocked.
    void setSlowBootstrapAfter(std::chrono::milliseconds after);

    void setTorState(onionvoice::tor::TorLauncher::State state, int percent,
                     const QString& summary);
    void setServiceState(onionvoice::tor::OnionService::State state);
    void setFailure(const QString& reason);
    // tor died or hung and is being started again: said until it is connected again (a call
    // that broke meanwhile has its reason here).
    void setRestarting(const QString& reason);
    void appendLog(const QString& line);
    // The panel's focusable widgets in the order they are laid out.
    QList<QWidget*> tabStops() const;

signals:
    void retryRequested();
    void bridgesRequested();

private:
    void showSlowHint();
    void refreshHint();

    QLabel* headline_;
    QProgressBar* progress_;
    QLabel* service_;
    QLabel* hint_;
    QPushButton* retry_;
    QPushButton* bridges_;
    QPushButton* showLog_;
    QPlainTextEdit* log_;
    QTimer slowTimer_;
    // The "taking longer than it should" hint: none while tor is not connecting, its timer
    // running, then shown until tor connects or stops.
    enum class SlowHint { Off, Pending, Shown };
    SlowHint slowHint_ = SlowHint::Off;
    QString failure_;
    QString restartReason_;
    tor::TorLauncher::State state_ = tor::TorLauncher::State::NotStarted;
    tor::OnionService::State serviceState_ = tor::OnionService::State::Unpublished;
};

} // namespace onionvoice::ui
