// What a person pasted into the add-contact field, checked before anything is sent anywhere: a
// bare onion address or an `onionvoice:` link, not the user's own address, not already a contact
// (unless the link brings a contact's new access key, which is then taken).
#pragma once

#include "contacts/ContactBook.h"

#include <QCoreApplication>
#include <QString>

namespace onionvoice::ui {

struct ContactInput {
    // NewAccessKey: the address is a contact's, and the link carries an access key (for calling
    // their contacts-only service) other than the one kept for them.
    enum class Verdict { Valid, Invalid, OwnAddress, AlreadyContact, NewAccessKey };
    Verdict verdict = Verdict::Invalid;
    contacts::Contact contact; // address, name from a link, its access key; when actionable
    QString reason;            // a sentence for a person when not Valid
    // A new contact.
    bool isValid() const { return verdict == Verdict::Valid; }
    // Something to do: add the contact, or take its new key.
    bool isActionable() const { return isValid() || verdict == Verdict::NewAccessKey; }
};

class ContactInputCheck {
    Q_DECLARE_TR_FUNCTIONS(ContactInputCheck)
public:
    static ContactInput check(const QString& text, const QString& ownAddress,
                              const QList<contacts::Contact>& existing);
};

} // namespace onionvoice::ui
