// The sound test dialog.
#include "SoundTestDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
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
    , record_(new QPushButton(tr("&Record 5 seconds and play them back"), this))
    , profile_(new QComboBox(this))
    , torPath_(new QPushButton(tr("Record 5 seconds and hear them through a &Tor path"), this))
    , report_(new QLabel(this)) {
    setObjectName(QStringLiteral("soundTestDialog"));
    setWindowTitle(tr("Sound test — OnionVoice"));
    setMinimumWidth(460);
    level_->setObjectName(QStringLiteral("micLevel"));
    level_->setRange(0, 100);
    level_->setTextVisible(false);
    level_->setToolTip(tr("How loud the microphone hears you; speak and it should move"));
    level_->setAccessibleName(tr("Microphone level"));
    status_->setObjectName(QStringLiteral("soundTestStatus"));
    status_->setWordWrap(true);
    // Plain text: device names and errors come from the sound system (a Bluetooth device names
    // itself).
    status_->setTextFormat(Qt::PlainText);
    record_->setObjectName(QStringLiteral("recordPlayBackButton"));
    record_->setToolTip(tr("Say something; you hear it back from the speaker"));
    connect(record_, &QPushButton::clicked, this,
            [this] { check_->recordAndPlayBack(kRecording); });
    profile_->setObjectName(QStringLiteral("torPathProfile"));
    profile_->addItem(tr("a calm path"), QStringLiteral("calm"));
    profile_->addItem(tr("a typical path"), QStringLiteral("default"));
    profile_->addItem(tr("a congested path"), QStringLiteral("congested"));
    profile_->addItem(tr("a hostile path"), QStringLiteral("hostile"));
    profile_->setCurrentIndex(2);
    profile_->setToolTip(tr("A generated Tor link trace of this kind: the recording goes through "
                            "the call's own pipeline and scheduler over twelve such links"));
    torPath_->setObjectName(QStringLiteral("torPathButton"));
    connect(torPath_, &QPushButton::clicked, this, [this] {
        report_->clear();
        check_->recordThroughTorPath(kRecording, profile_->currentData().toString());
    });
    report_->setObjectName(QStringLiteral("torPathReport"));
    report_->setWordWrap(true);
    report_->setTextFormat(Qt::PlainText);
    connect(check_, &SoundCheck::report, report_, &QLabel::setText);
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
    deviceLabel->setTextFormat(Qt::PlainText);
    layout->addWidget(deviceLabel);
    layout->addWidget(new QLabel(tr("Microphone level:"), this));
    layout->addWidget(level_);
    layout->addWidget(record_);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(torPath_, 1);
    pathRow->addWidget(profile_);
    layout->addLayout(pathRow);
    layout->addWidget(status_);
    layout->addWidget(report_);
    layout->addWidget(buttons);

    QString error;
    if (check_->start(&error)) {
        meter_.start();
        showPhase(SoundCheck::Phase::Listening);
    } else {
        record_->setEnabled(false);
        torPath_->setEnabled(false);
        status_->setText(tr("The sound devices could not be opened: %1").arg(error));
    }
}

SoundTestDialog::~SoundTestDialog() {
    check_->stop();
}

void SoundTestDialog::showPhase(SoundCheck::Phase phase) {
    record_->setEnabled(phase == SoundCheck::Phase::Listening);
    torPath_->setEnabled(phase == SoundCheck::Phase::Listening);
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
    case SoundCheck::Phase::Processing:
        status_->setText(tr("Sending it through the simulated Tor path…"));
        break;
    case SoundCheck::Phase::Playing:
        status_->setText(tr("Playing back what was recorded…"));
        break;
    }
}

} // namespace onionvoice::ui
