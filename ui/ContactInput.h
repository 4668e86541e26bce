// What a person pasted into the add-contact field, checked before anything is sent anywhere: a
// bare onion address or an `onionvoice:` link, not the user's own address, not already a contact.
#pragma once

#include "contacts/ContactBook.h"

#include <QCoreApplication>
#include <QString>

namespace onionvoice::ui {

struct ContactInput {
    enum class Verdict { Valid, Invalid, OwnAddress, AlreadyContact };
    Verdict verdict = Verdict::Invalid;
    contacts::Contact contact; // address, name from a link, its access key; when Valid
    QString reason;            // a sentence for a person when not Valid
    bool isValid() const { return verdict == Verdict::Valid; }
};

class ContactInputCheck {
    Q_DECLARE_TR_FUNCTIONS(ContactInputCheck)
public:
    static ContactInput check(const QString& text, const QString& ownAddress,
                              const QList<contacts::Contact>& existing);
};

} // namespace onionvoice::ui
