// The incoming-call prompt: who calls (their contact name, or "Unknown caller"), the caller's
// address as the handshake verified it, and Accept / Reject / Block.
#pragma once

#include <QDialog>

class QLabel;
class QPushButton;

namespace onionvoice::ui {

class IncomingCallDialog : public QDialog {
    Q_OBJECT
public:
    explicit IncomingCallDialog(QWidget* parent = nullptr);

    void setCaller(const QString& displayName, const QString& verifiedAddress, bool isContact);
    QString caller() const { return address_; }
    // Closing the window or Escape rejects the call, like the Reject button.
    void reject() override;
    // Closes the prompt without answering (the call ended by itself).
    void dismiss();

signals:
    void acceptRequested();
    void rejectRequested();
    void blockRequested(const QString& address);

private:
    QString address_;
    QLabel* name_;
    QLabel* addressLabel_;
    QPushButton* accept_;
    QPushButton* reject_;
    QPushButton* block_;
};

} // namespace onionvoice::ui
