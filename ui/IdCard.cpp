// The ID card widget.
#include "IdCard.h"

#include "AddressText.h"
#include "QrCode.h"
#include "Tone.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>

namespace onionvoice::ui {
namespace {
constexpr int kQrModule = 3;
} // namespace

IdCard::IdCard(QWidget* parent)
    : QFrame(parent)
    , addressLabel_(new QLabel(this))
    , qrLabel_(new QLabel(this))
    , copyButton_(new QPushButton(tr("Copy I&D"), this))
    , shareButton_(new QPushButton(tr("&Share…"), this)) {
    setObjectName(QStringLiteral("idCard"));
    setFrameShape(QFrame::StyledPanel);
    // A card, not a field: tinted background, no edit frame, a heading that says whose it is.
    // The tint is light in every colour scheme, so its labels' text is dark in every one.
    setStyleSheet(QStringLiteral("#idCard { background: #eef4ee; border: 1px solid #9cb89c; "
                                 "border-radius: 6px; } #idCard QLabel { color: %1; }")
                      .arg(textOnTint().name()));
    auto* title = new QLabel(tr("<b>Your ID</b>"), this);
    auto* hint = new QLabel(tr("Give this to the people who should be able to call you."), this);
    hint->setWordWrap(true);
    addressLabel_->setObjectName(QStringLiteral("ownAddress"));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(mono.pointSizeF() * 1.1);
    addressLabel_->setFont(mono);
    addressLabel_->setWordWrap(true);
    addressLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse |
                                           Qt::TextSelectableByKeyboard);
    addressLabel_->setFocusPolicy(Qt::StrongFocus);
    addressLabel_->setToolTip(tr("Your onion address, in groups of seven for reading aloud"));
    addressLabel_->setText(tr("(starting…)"));
    qrLabel_->setObjectName(QStringLiteral("ownQrCode"));
    qrLabel_->setToolTip(tr("Your contact link as a QR code"));
    qrLabel_->setAccessibleName(tr("Your contact link as a QR code"));
    qrLabel_->setAlignment(Qt::AlignCenter);
    copyButton_->setObjectName(QStringLiteral("copyIdButton"));
    copyButton_->setToolTip(tr("Copy your address to the clipboard"));
    shareButton_->setObjectName(QStringLiteral("shareButton"));
    shareButton_->setToolTip(tr("Copy your contact link to send it to someone"));

    auto* menu = new QMenu(shareButton_);
    QAction* plain = menu->addAction(tr("Copy my contact link"));
    plain->setObjectName(QStringLiteral("shareLinkAction"));
    QAction* withKey = menu->addAction(tr("Copy a link with an access key for a contact…"));
    withKey->setObjectName(QStringLiteral("shareKeyAction"));
    withKey->setToolTip(tr("In contacts-only mode only people holding a key can reach you"));
    shareButton_->setMenu(menu);
    connect(plain, &QAction::triggered, this,
            [this] { copyToClipboard(contactLink(), tr("Your contact link")); });
    connect(withKey, &QAction::triggered, this, &IdCard::shareWithAccessKeyRequested);
    connect(copyButton_, &QPushButton::clicked, this,
            [this] { copyToClipboard(address_, tr("Your ID")); });

    auto* layout = new QGridLayout(this);
    layout->addWidget(title, 0, 0, 1, 2);
    layout->addWidget(hint, 1, 0, 1, 2);
    layout->addWidget(addressLabel_, 2, 0, 1, 2);
    layout->addWidget(copyButton_, 3, 0);
    layout->addWidget(shareButton_, 3, 1);
    layout->addWidget(qrLabel_, 4, 0, 1, 2);
    setAddress({});
}

QString IdCard::contactLink() const {
    return address_.isEmpty() ? QString() : QStringLiteral("onionvoice:") + address_;
}

void IdCard::setAddress(const QString& address) {
    address_ = address;
    const bool known = !address.isEmpty();
    copyButton_->setEnabled(known);
    shareButton_->setEnabled(known);
    addressLabel_->setText(known ? groupedAddress(address) : tr("(starting…)"));
    // Drawn at the screen's pixel density, so the modules stay sharp on high-DPI screens.
    const qreal density = devicePixelRatioF();
    QImage qr = known ? encodeQrCode(contactLink(), qRound(kQrModule * density)) : QImage();
    qr.setDevicePixelRatio(density);
    qrLabel_->setPixmap(QPixmap::fromImage(qr));
}

QList<QWidget*> IdCard::tabStops() const {
    return {addressLabel_, copyButton_, shareButton_};
}

void IdCard::copyToClipboard(const QString& text, const QString& what) {
    QApplication::clipboard()->setText(text);
    emit copied(what);
}

} // namespace onionvoice::ui
