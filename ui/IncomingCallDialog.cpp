// The incoming-call prompt.
#include "IncomingCallDialog.h"

#include "AddressText.h"
#include "Tone.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace onionvoice::ui {

IncomingCallDialog::IncomingCallDialog(QWidget* parent)
    : QDialog(parent)
    , name_(new QLabel(this))
    , addressLabel_(new QLabel(this))
    , audioWarning_(new QLabel(this))
    , accept_(new QPushButton(tr("&Accept"), this))
    , reject_(new QPushButton(tr("&Reject"), this))
    , block_(new QPushButton(tr("&Block"), this)) {
    setObjectName(QStringLiteral("incomingCallDialog"));
    setWindowTitle(tr("Incoming call — OnionVoice"));
    setMinimumSize(440, 180);
    name_->setObjectName(QStringLiteral("incomingCaller"));
    // Plain text: the name arrived in someone's contact link, and a label guessing "rich text"
    // would draw its markup (a fake "verified ID" line, remote images).
    name_->setTextFormat(Qt::PlainText);
    QFont big = name_->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    big.setBold(true);
    name_->setFont(big);
    name_->setAlignment(Qt::AlignCenter);
    name_->setWordWrap(true); // a long name wraps instead of losing its start
    // The prompt's first focus: who calls, read out by a screen reader, which no key answers.
    // On Accept, the first button, a Space typed for another window answered a stranger.
    name_->setFocusPolicy(Qt::TabFocus);
    addressLabel_->setObjectName(QStringLiteral("incomingAddress"));
    addressLabel_->setTextFormat(Qt::PlainText);
    addressLabel_->setAlignment(Qt::AlignCenter);
    addressLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    audioWarning_->setObjectName(QStringLiteral("incomingAudioProblem"));
    audioWarning_->setTextFormat(Qt::PlainText);
    audioWarning_->setWordWrap(true);
    audioWarning_->setAlignment(Qt::AlignCenter);
    QFont bold = audioWarning_->font();
    bold.setBold(true);
    audioWarning_->setFont(bold);
    audioWarning_->hide();
    accept_->setObjectName(QStringLiteral("acceptCallButton"));
    accept_->setToolTip(tr("Answer the call"));
    accept_->setStyleSheet(QStringLiteral("background: #2e7d32; color: white; padding: 6px 16px;"));
    // No button answers to Enter: the prompt takes the focus when it shows, maybe while the user
    // types elsewhere, and an Enter meant for that would answer a stranger's call and let them
    // hear the room. Space on a focused button, the mnemonics and clicks still answer.
    for (QPushButton* button : {accept_, reject_, block_})
        button->setAutoDefault(false);
    reject_->setObjectName(QStringLiteral("rejectCallButton"));
    reject_->setToolTip(tr("Decline this call; the caller is told it was rejected"));
    block_->setObjectName(QStringLiteral("blockCallerButton"));
    block_->setToolTip(tr("Decline and refuse every future call from this address"));
    connect(accept_, &QPushButton::clicked, this, [this] {
        emit acceptRequested();
        accept();
    });
    connect(reject_, &QPushButton::clicked, this, &IncomingCallDialog::reject);
    connect(block_, &QPushButton::clicked, this, [this] {
        emit blockRequested(address_);
        QDialog::reject();
    });

    auto* heading = new QLabel(tr("Incoming call"), this);
    heading->setAlignment(Qt::AlignCenter);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(block_);
    buttons->addStretch(1);
    buttons->addWidget(reject_);
    buttons->addWidget(accept_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(name_);
    layout->addWidget(addressLabel_);
    layout->addWidget(audioWarning_);
    layout->addSpacing(12);
    layout->addLayout(buttons);
}

QString IncomingCallDialog::callerName(const QString& displayName, bool isContact) {
    // A contact added from a bare ID has no name, and is still not a stranger: "Unknown caller"
    // made a friend's call look like a stranger's while the user chose whether to answer or block.
    return !isContact              ? tr("Unknown caller")
           : displayName.isEmpty() ? tr("A contact without a name")
                                   : displayName;
}

void IncomingCallDialog::setCaller(const QString& displayName, const QString& verifiedAddress,
                                   bool isContact) {
    address_ = verifiedAddress;
    name_->setText(callerName(displayName, isContact));
    addressLabel_->setText(tr("verified ID: %1").arg(shortAddress(verifiedAddress)));
    addressLabel_->setToolTip(groupedAddress(verifiedAddress));
}

void IncomingCallDialog::setAudioProblem(const QString& problem) {
    audioWarning_->setText(
        problem.isEmpty()
            ? QString()
            : tr("Sound problem: %1. Connect a microphone and a speaker before you answer: "
                 "without them the call ends as it starts.")
                  .arg(problem));
    // The error tone of the colours in use now (a fixed dark red was 1.9:1 on a dark theme).
    setTone(audioWarning_, Tone::Error);
    audioWarning_->setVisible(!problem.isEmpty());
}

void IncomingCallDialog::reject() {
    emit rejectRequested();
    QDialog::reject();
}

void IncomingCallDialog::dismiss() {
    done(QDialog::Rejected);
}

} // namespace onionvoice::ui
