// The sound test dialog.
#include "SoundTestDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

namespace onionvoice::ui {
namespace {
constexpr auto kRecording = std::chrono::seconds(5);
}

SoundTestDialog::SoundTestDialog(SoundCheck* check, const QString& devices, QWidget* parent)
    : QDialog(parent)
    , check_(check)
    , level_(new QProgressBar(this))
    , status_(new QLabel(this))
    , record_(new QPushButton(tr("&Record 5 seconds and play them back"), this)) {
    setObjectName(QStringLiteral("soundTestDialog"));
    setWindowTitle(tr("Sound test — OnionVoice"));
    setMinimumWidth(460);
    level_->setObjectName(QStringLiteral("micLevel"));
    level_->setRange(0, 100);
    level_->setTextVisible(false);
    level_->setToolTip(tr("How loud the microphone hears you; speak and it should move"));
    status_->setObjectName(QStringLiteral("soundTestStatus"));
    status_->setWordWrap(true);
    record_->setObjectName(QStringLiteral("recordPlayBackButton"));
    record_->setToolTip(tr("Say something; you hear it back from the speaker"));
    connect(record_, &QPushButton::clicked, this,
            [this] { check_->recordAndPlayBack(kRecording); });
    connect(check_, &SoundCheck::phaseChanged, this, &SoundTestDialog::showPhase);
    meter_.setInterval(50);
    connect(&meter_, &QTimer::timeout, this, [this] {
        // A dB scale from -60 dBFS to 0, as level meters show it.
        const double peak = check_->takeLevel();
        const double db = peak > 0 ? 20 * std::log10(peak) : -60;
        level_->setValue(int(std::clamp((db + 60) / 60 * 100, 0.0, 100.0)));
    });

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    auto* deviceLabel = new QLabel(devices, this);
    deviceLabel->setWordWrap(true);
    layout->addWidget(deviceLabel);
    layout->addWidget(new QLabel(tr("Microphone level:"), this));
    layout->addWidget(level_);
    layout->addWidget(record_);
    layout->addWidget(status_);
    layout->addWidget(buttons);

    QString error;
    if (check_->start(&error)) {
        meter_.start();
        showPhase(SoundCheck::Phase::Listening);
    } else {
        record_->setEnabled(false);
        status_->setText(tr("The sound devices could not be opened: %1").arg(error));
    }
}

SoundTestDialog::~SoundTestDialog() {
    check_->stop();
}

void SoundTestDialog::showPhase(SoundCheck::Phase phase) {
    record_->setEnabled(phase == SoundCheck::Phase::Listening);
    switch (phase) {
    case SoundCheck::Phase::Stopped:
        status_->clear();
        break;
    case SoundCheck::Phase::Listening:
        status_->setText(tr("Speak: the bar shows your microphone's level."));
        break;
    case SoundCheck::Phase::Recording:
        status_->setText(tr("Recording… say a sentence."));
        break;
    case SoundCheck::Phase::Playing:
        status_->setText(tr("Playing back what was recorded…"));
        break;
    }
}

} // namespace onionvoice::ui
