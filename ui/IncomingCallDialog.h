// The incoming-call prompt: who calls (their contact name, or "Unknown caller"), the caller's
// address as the handshake verified it, a warning when the call's audio could not start, and
// Accept / Reject / Block.
#pragma once

#include <QDialog>

class QLabel;
class QPushButton;

namespace onionvoice::ui {

class IncomingCallDialog : public QDialog {
    Q_OBJECT
public:
    explicit IncomingCallDialog(QWidget* parent = nullptr);

    // Who calls, in words: the contact's name, "A contact without a name", or "Unknown caller".
    // The prompt and the desktop notification both say it, so a contact never reads as a stranger.
    static QString callerName(const QString& displayName, bool isContact);
    void setCaller(const QString& displayName, const QString& verifiedAddress, bool isContact);
    // Why the call's audio could not start now (the engine's words), or empty: shown as a warning.
    void setAudioProblem(const QString& problem);
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
    QLabel* audioWarning_;
    QPushButton* accept_;
    QPushButton* reject_;
    QPushButton* block_;
};

} // namespace onionvoice::ui
