// The contact list: search, add (pasted ID or link, or a QR image file, and a name) with the reason
// when the input is refused, or a contact's new access key taken from their link, and per contact
// call, rename, block and remove, with what happened with each contact in this session in the
// Status column. The panel only checks input and asks; the engine thread changes the book and the
// panel shows the copy it sends back.
#pragma once

#include "ContactActivity.h"
#include "contacts/ContactBook.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace onionvoice::ui {

class ContactListPanel : public QWidget {
    Q_OBJECT
public:
    explicit ContactListPanel(QWidget* parent = nullptr);

    void setOwnAddress(const QString& address) { ownAddress_ = address; }
    void setContacts(const QList<contacts::Contact>& contacts);
    // What happened with the contacts in this session (ContactActivity), in the Status column; a
    // blocked contact's says so instead.
    void setNotes(const QHash<QString, ContactNote>& notes);
    // Whether Call can start a call now, and if not, why (its tooltip says so).
    enum class Calling { TorConnecting, TorFailed, CallUnderWay, Possible };
    void setCalling(Calling calling);
    // Puts `text` (an address or link from outside, e.g. a clicked onionvoice: link) into the
    // add field and checks it, without adding it yet.
    void prefill(const QString& text);
    QString selectedAddress() const;
    // The panel's focusable widgets in the order they are laid out, top to bottom; the search
    // first, where the main window starts.
    QList<QWidget*> tabStops() const;

signals:
    void addRequested(const onionvoice::contacts::Contact& contact);
    // A contact's link brought a new key for calling their contacts-only service.
    void accessKeyReceived(const QString& address, const QByteArray& outboundAuthPrivateKey);
    void callRequested(const QString& address);
    void renameRequested(const QString& address, const QString& name);
    void blockRequested(const QString& address, bool blocked);
    void removeRequested(const QString& address);

private:
    void tryAdd();
    void addFromQrImage();
    // True when the fields hold something that may be added (or a new key), with a name the
    // contact book takes.
    bool showCheck();
    void applyFilter();
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showStatus(QTreeWidgetItem* item, const contacts::Contact& contact) const;
    void updateButtons();
    void rename();
    void remove();

    QString ownAddress_;
    QList<contacts::Contact> contacts_;
    QHash<QString, ContactNote> notes_;
    Calling calling_ = Calling::TorConnecting;
    QLineEdit* addField_;
    QLineEdit* nameField_;
    QPushButton* addButton_;
    QPushButton* qrButton_;
    QLabel* addError_;
    QLineEdit* search_;
    QTreeWidget* list_;
    QPushButton* callButton_;
    QPushButton* renameButton_;
    QPushButton* blockButton_;
    QPushButton* removeButton_;
};

} // namespace onionvoice::ui
