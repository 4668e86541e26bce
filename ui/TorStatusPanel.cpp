// The Tor status panel.
#include "TorStatusPanel.h"

#include "Tone.h"

#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>

namespace onionvoice::ui {
namespace {
constexpr int kKeptLogLines = 200;
}

using State = tor::TorLauncher::State;

TorStatusPanel::TorStatusPanel(QWidget* parent)
    : QFrame(parent)
    , headline_(new QLabel(this))
    , progress_(new QProgressBar(this))
    , service_(new QLabel(this))
    , hint_(new QLabel(this))
    , retry_(new QPushButton(tr("&Retry"), this))
    , bridges_(new QPushButton(tr("Use &bridges…"), this))
    , showLog_(new QPushButton(tr("Show &tor's messages"), this))
    , log_(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("torStatus"));
    setFrameShape(QFrame::StyledPanel);
    headline_->setObjectName(QStringLiteral("torHeadline"));
    headline_->setWordWrap(true);
    // Plain text: the headline and the hint quote tor's own words (bootstrap summary, failure).
    headline_->setTextFormat(Qt::PlainText);
    progress_->setObjectName(QStringLiteral("torProgress"));
    progress_->setRange(0, 100);
    progress_->setToolTip(tr("How far tor has got connecting to the Tor network"));
    progress_->setAccessibleName(tr("Tor's progress")); // for screen readers: it has no label
    service_->setObjectName(QStringLiteral("serviceState"));
    service_->setWordWrap(true);
    service_->setTextFormat(Qt::PlainText);
    hint_->setObjectName(QStringLiteral("torHint"));
    hint_->setWordWrap(true);
    hint_->setTextFormat(Qt::PlainText);
    setTone(hint_, Tone::Warning);
    retry_->setObjectName(QStringLiteral("torRetryButton"));
    retry_->setToolTip(tr("Stop tor and start it again"));
    bridges_->setObjectName(QStringLiteral("torBridgesButton"));
    bridges_->setToolTip(tr("Bridges are unlisted Tor relays that help where Tor is blocked"));
    showLog_->setObjectName(QStringLiteral("torLogButton"));
    showLog_->setCheckable(true);
    showLog_->setToolTip(tr("What tor itself reports, newest last"));
    log_->setObjectName(QStringLiteral("torLog"));
    log_->setAccessibleName(tr("Tor's messages")); // for screen readers: it has no label
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(kKeptLogLines);
    log_->setVisible(false);
    log_->setMinimumHeight(120);
    connect(showLog_, &QPushButton::toggled, log_, &QWidget::setVisible);
    connect(retry_, &QPushButton::clicked, this, &TorStatusPanel::retryRequested);
    connect(bridges_, &QPushButton::clicked, this, &TorStatusPanel::bridgesRequested);

    slowTimer_.setSingleShot(true);
    slowTimer_.setInterval(std::chrono::seconds(40));
    connect(&slowTimer_, &QTimer::timeout, this, &TorStatusPanel::showSlowHint);

    auto* layout = new QGridLayout(this);
    // The log toggle has a row of its own: three buttons in one row were wider than the left
    // pane in German, and were cut off.
    layout->addWidget(new QLabel(tr("<b>Tor</b>"), this), 0, 0, 1, 2);
    layout->addWidget(headline_, 1, 0, 1, 2);
    layout->addWidget(progress_, 2, 0, 1, 2);
    layout->addWidget(service_, 3, 0, 1, 2);
    layout->addWidget(hint_, 4, 0, 1, 2);
    layout->addWidget(retry_, 5, 0);
    layout->addWidget(bridges_, 5, 1);
    layout->addWidget(showLog_, 6, 0, 1, 2, Qt::AlignLeft);
    layout->addWidget(log_, 7, 0, 1, 2);
    setTorState(State::NotStarted, 0, {});
    setServiceState(tor::OnionService::State::Unpublished);
}

void TorStatusPanel::setSlowBootstrapAfter(std::chrono::milliseconds after) {
    slowTimer_.setInterval(after);
}

void TorStatusPanel::setTorState(State state, int percent, const QString& summary) {
    if (state != state_ && state != State::Failed)
        failure_.clear();
    if (state != State::Starting && state != State::Bootstrapping)
        restartReason_.clear();
    state_ = state;
    progress_->setValue(percent);
    switch (state) {
    case State::NotStarted:
        headline_->setText(tr("Tor is not running."));
        break;
    case State::Starting:
        headline_->setText(tr("Starting tor…"));
        break;
    case State::Bootstrapping:
        headline_->setText(
            summary.isEmpty()
                ? tr("Connecting to the Tor network (%1 %)").arg(percent)
                : tr("Connecting to the Tor network: %1 (%2 %)").arg(summary).arg(percent));
        break;
    case State::Ready:
        headline_->setText(tr("Connected to the Tor network."));
        break;
    case State::Failed:
        headline_->setText(tr("Tor stopped working."));
        break;
    }
    const bool connecting = state == State::Starting || state == State::Bootstrapping;
    if (connecting && slowHint_ == SlowHint::Off) {
        slowHint_ = SlowHint::Pending;
        slowTimer_.start();
    }
    if (!connecting) {
        slowTimer_.stop();
        slowHint_ = SlowHint::Off;
    }
    // A failed tor is not on its way: no progress bar held at its last value.
    progress_->setVisible(state != State::Ready && state != State::Failed);
    setServiceState(serviceState_); // its words depend on whether tor failed
    refreshHint();
}

void TorStatusPanel::setServiceState(tor::OnionService::State state) {
    using S = tor::OnionService::State;
    serviceState_ = state;
    switch (state) {
    case S::Unpublished:
        // "Not online yet" promised that waiting helps; with tor failed it does not.
        service_->setText(state_ == State::Failed
                              ? tr("Your ID is offline while tor is not working.")
                              : tr("Your ID is not online yet."));
        break;
    case S::Publishing:
    case S::Published:
        service_->setText(tr("Putting your ID online…"));
        break;
    case S::Reachable:
        service_->setText(tr("Your ID is online: people can call you."));
        break;
    case S::Failed:
        service_->setText(tr("Your ID could not be put online."));
        break;
    case S::Withheld:
        // For as long as it lasts: the engine's one status-bar message about it is gone after
        // 15 s, and "not online yet" would promise that waiting helps.
        service_->setText(tr("Nobody can reach you yet: contacts-only mode needs at least one "
                             "contact with an access key. Use Share → \"Copy a link with an "
                             "access key for a contact…\" and send that link to them."));
        break;
    }
}

void TorStatusPanel::setFailure(const QString& reason) {
    failure_ = reason;
    refreshHint();
}

void TorStatusPanel::setRestarting(const QString& reason) {
    restartReason_ = reason;
    refreshHint();
}

void TorStatusPanel::appendLog(const QString& line) {
    log_->appendPlainText(line); // the oldest lines go beyond the block limit
}

QList<QWidget*> TorStatusPanel::tabStops() const {
    return {retry_, bridges_, showLog_, log_};
}

void TorStatusPanel::showSlowHint() {
    slowHint_ = SlowHint::Shown;
    refreshHint();
}

void TorStatusPanel::refreshHint() {
    QString text;
    if (!failure_.isEmpty())
        text = tr("Tor could not start or connect: %1").arg(failure_);
    else if (slowHint_ == SlowHint::Shown)
        text = tr("Connecting is taking longer than it should. This network may be offline or "
                  "block Tor. Check the connection, look at tor's messages, or try bridges.");
    // Not trouble for the user to act on: the app is already starting tor again.
    const bool trouble = !text.isEmpty() || state_ == State::Failed;
    if (text.isEmpty() && !restartReason_.isEmpty())
        text = tr("Tor stopped working and is being started again: %1. Calls work again once "
                  "it has reconnected.")
                   .arg(restartReason_);
    hint_->setText(text);
    hint_->setVisible(!text.isEmpty());
    retry_->setVisible(trouble);
    bridges_->setVisible(trouble);
    if (trouble && !showLog_->isChecked())
        showLog_->setChecked(true);
}

} // namespace onionvoice::ui
