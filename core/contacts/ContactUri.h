// Contact URIs: `onionvoice:<56-character onion address>?name=<percent-encoded name>`, with an
// optional `&auth=<client key>` when the contact may reach a contacts-only service. The same
// string is what a QR code carries.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace onionvoice::contacts {

struct ContactUri {
    QString address;     // normalised v3 onion address, no ".onion"
    QString displayName; // may be empty
    // x25519 private key (32 bytes) for tor client authorization at that address; empty if none.
    QByteArray clientAuthKey;

    QString toString() const;
};

struct ContactUriParse {
    std::optional<ContactUri> uri;
    QString error; // a sentence for a person when uri is empty
};

ContactUriParse parseContactUri(const QString& text);

} // namespace onionvoice::contacts
