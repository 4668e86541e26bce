// The user's ID card: their onion address grouped for reading (selectable), Copy, a QR code of
// their contact link, and Share. Styled and worded so that it cannot be mistaken for the field
// where someone else's address is pasted.
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace onionvoice::ui {

class IdCard : public QFrame {
    Q_OBJECT
public:
    explicit IdCard(QWidget* parent = nullptr);

    void setAddress(const QString& address);
    QString address() const { return address_; }
    QString contactLink() const;
    // The card's focusable widgets in the order they are laid out.
    QList<QWidget*> tabStops() const;

signals:
    // The user wants a link carrying a contacts-only access key for one of their contacts.
    void shareWithAccessKeyRequested();
    void copied(const QString& what);

private:
    void copyToClipboard(const QString& text, const QString& what);

    QString address_;
    QLabel* addressLabel_;
    QLabel* qrLabel_;
    QPushButton* copyButton_;
    QPushButton* shareButton_;
};

} // namespace onionvoice::ui
