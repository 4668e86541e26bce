// The call window.
#include "CallWindow.h"

#include "AddressText.h"
#include "QualityDashboard.h"
#include "Tone.h"

#include <QCloseEvent>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>

namespace onionvoice::ui {

CallWindow::CallWindow(QWidget* parent)
    : QWidget(parent, Qt::Window)
    , peer_(new QLabel(this))
    , state_(new QLabel(this))
    , endDetail_(new QLabel(this))
    , duration_(new QLabel(this))
    , devices_(new QLabel(this))
    , mute_(new QPushButton(tr("&Mute"), this))
    , hangUp_(new QPushButton(tr("&Hang up"), this))
    , close_(new QPushButton(tr("&Close"), this))
    , escape_(new QShortcut(QKeySequence(Qt::Key_Escape), this))
    , dashboard_(new QualityDashboard(this)) {
    setObjectName(QStringLiteral("callWindow"));
    setWindowTitle(tr("Call — OnionVoice"));
    setMinimumSize(640, 560);
    resize(820, 700);
    peer_->setObjectName(QStringLiteral("callPeer"));
    // Plain text: the contact's name (from their contact link), the end reason and the device
    // names (a Bluetooth headset names itself) are not ours to be rendered as HTML.
    peer_->setTextFormat(Qt::PlainText);
    QFont big = peer_->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    peer_->setFont(big);
    state_->setObjectName(QStringLiteral("callState"));
    state_->setTextFormat(Qt::PlainText);
    endDetail_->setObjectName(QStringLiteral("callEndDetail"));
    endDetail_->setTextFormat(Qt::PlainText);
    endDetail_->setWordWrap(true);
    setTone(endDetail_, Tone::Error);
    endDetail_->setVisible(false);
    duration_->setObjectName(QStringLiteral("callDuration"));
    duration_->setFont(big);
    devices_->setObjectName(QStringLiteral("callDevices"));
    devices_->setTextFormat(Qt::PlainText);
    devices_->setWordWrap(true);
    mute_->setObjectName(QStringLiteral("muteButton"));
    mute_->setCheckable(true);
    mute_->setToolTip(tr("Stop sending your voice (the other side hears silence)"));
    hangUp_->setObjectName(QStringLiteral("hangUpButton"));
    hangUp_->setToolTip(tr("End the call"));
    hangUp_->setStyleSheet(QStringLiteral("QPushButton:enabled { background: #c62828; color: "
                                          "white; padding: 4px 14px; }"));
    connect(mute_, &QPushButton::toggled, this, [this](bool muted) {
        mute_->setText(muted ? tr("Un&mute") : tr("&Mute"));
        emit muteToggled(muted);
    });
    connect(hangUp_, &QPushButton::clicked, this, &CallWindow::hangUpRequested);
    close_->setObjectName(QStringLiteral("closeCallButton"));
    close_->setToolTip(tr("Close this window"));
    connect(close_, &QPushButton::clicked, this, &QWidget::close);
    // Esc closes only an ended call's window: during a call it would hang up by accident.
    connect(escape_, &QShortcut::activated, this, &QWidget::close);
    durationTimer_.setInterval(500);
    connect(&durationTimer_, &QTimer::timeout, this, &CallWindow::showDuration);

    auto* header = new QGridLayout;
    header->addWidget(peer_, 0, 0);
    header->addWidget(duration_, 0, 1, Qt::AlignRight);
    header->addWidget(state_, 1, 0);
    header->addWidget(endDetail_, 2, 0, 1, 2);
    header->addWidget(devices_, 3, 0, 1, 2);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(mute_);
    buttons->addStretch(1);
    buttons->addWidget(hangUp_);
    buttons->addWidget(close_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addLayout(buttons);
    layout->addWidget(dashboard_, 1);
    setCallState(call::CallState::Idle, call::EndReason::None);
}

void CallWindow::setPeer(const QString& name, const QString& address) {
    peerAddress_ = address;
    peer_->setText(name.isEmpty() ? shortAddress(address) : name);
    peer_->setToolTip(groupedAddress(address));
    setWindowTitle(tr("Call with %1 — OnionVoice").arg(peer_->text()));
}

void CallWindow::setDevices(const QString& description) {
    devices_->setText(description);
}

void CallWindow::setPreset(const QString& preset) {
    dashboard_->setPreset(preset);
}

bool CallWindow::isMuted() const {
    return mute_->isChecked();
}

void CallWindow::setCallState(call::CallState state, call::EndReason reason,
                              const QString& detail) {
    const bool newCall =
        (callState_ == call::CallState::Idle || callState_ == call::CallState::Ended) &&
        state != call::CallState::Ended;
    if (newCall)
        reset();
    callState_ = state;
    switch (state) {
    case call::CallState::Idle: // a window made before its call: nothing to say yet
        state_->clear();
        break;
    case call::CallState::Dialing:
        state_->setText(tr("Calling… (opening Tor links)"));
        break;
    case call::CallState::Ringing:
        state_->setText(tr("Ringing…"));
        break;
    case call::CallState::Active:
        state_->setText(tr("In call"));
        activeFor_.start();
        durationTimer_.start();
        break;
    case call::CallState::Ended:
        state_->setText(tr("Call ended: %1").arg(call::describe(reason)));
        durationTimer_.stop();
        break;
    }
    endDetail_->setText(state == call::CallState::Ended ? detail : QString());
    endDetail_->setVisible(!endDetail_->text().isEmpty());
    const bool ended = state == call::CallState::Ended;
    hangUp_->setEnabled(!ended);
    mute_->setEnabled(state == call::CallState::Active);
    close_->setVisible(ended);
    escape_->setEnabled(ended);
    // Hang up, now disabled, would hand the focus to the next widget in the chain (the link
    // table); Close is what a keyboard user wants next.
    if (ended)
        close_->setFocus();
}

// Closing the window of a call that has not ended hangs it up, as a call window's ✕ does in
// other calling apps: hidden, the window would come back only on the next state change, and for
// the rest of an active call Hang up and Mute would be out of reach. An ended call's window just
// closes.
void CallWindow::closeEvent(QCloseEvent* event) {
    if (callState_ != call::CallState::Idle && callState_ != call::CallState::Ended)
        emit hangUpRequested();
    event->accept();
}

// Unticking Mute tells the engine too (muteToggled): it keeps the microphone state across calls.
void CallWindow::reset() {
    dashboard_->clear();
    duration_->setText(QStringLiteral("0:00"));
    mute_->setChecked(false);
}

void CallWindow::updateStatistics(const call::CallStatistics& statistics) {
    dashboard_->update(statistics);
}

void CallWindow::showDuration() {
    const qint64 s = activeFor_.elapsed() / 1000;
    duration_->setText(s >= 3600
                           ? QStringLiteral("%1:%2:%3")
                                 .arg(s / 3600)
                                 .arg(s / 60 % 60, 2, 10, QChar('0'))
                                 .arg(s % 60, 2, 10, QChar('0'))
                           : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0')));
}

} // namespace onionvoice::ui
