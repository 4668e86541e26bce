// Checking pasted contact addresses and links.
#include "ContactInput.h"

#include "contacts/ContactUri.h"
#include "tor/OnionAddress.h"

#include <QRegularExpression>

namespace onionvoice::ui {

ContactInput ContactInputCheck::check(const QString& text, const QString& ownAddress,
                                      const QList<contacts::Contact>& existing) {
    ContactInput result;
    // Blanks anywhere are dropped: an address copied from an ID card comes in groups of seven.
    // A link's are dropped before its '?' (a mail client breaks a long link in two); after it,
    // a name may hold spaces.
    QString trimmed = text.trimmed();
    const qsizetype query = trimmed.indexOf(QLatin1Char('?'));
    const QString address = query < 0 ? trimmed : trimmed.left(query);
    trimmed = QString(address).remove(QRegularExpression(QStringLiteral("\\s"))) +
              (query < 0 ? QString() : trimmed.mid(query));
    // A link with a query carries a name or a key; a bare address (also "onionvoice:<address>")
    // goes through the address check, which explains exactly what is wrong with it.
    if (trimmed.startsWith(QLatin1String("onionvoice:"), Qt::CaseInsensitive) &&
        trimmed.contains('?')) {
        const contacts::ContactUriParse parsed = contacts::parseContactUri(trimmed);
        if (!parsed.uri) {
            result.reason = parsed.error;
            return result;
        }
        result.contact.address = parsed.uri->address;
        result.contact.displayName = parsed.uri->displayName;
        result.contact.outboundAuthPrivateKey = parsed.uri->clientAuthKey;
    } else {
        const tor::AddressCheck address = tor::checkOnionAddress(trimmed);
        if (!address.isValid()) {
            result.reason = address.verdict == tor::AddressCheck::Verdict::Empty
                                ? tr("Paste the address or the onionvoice: link of the person "
                                     "you want to add.")
                                : address.reason;
            return result;
        }
        result.contact.address = address.address;
    }
    if (result.contact.address == ownAddress) {
        result.verdict = ContactInput::Verdict::OwnAddress;
        result.reason = tr("This is your own ID. Paste the ID of the person you want to call.");
        return result;
    }
    for (const contacts::Contact& c : existing) {
        if (c.address != result.contact.address)
            continue;
        const QString name = c.displayName.isEmpty() ? tr("(no name)") : c.displayName;
        const QByteArray& key = result.contact.outboundAuthPrivateKey;
        if (!key.isEmpty() && key != c.outboundAuthPrivateKey) {
            result.verdict = ContactInput::Verdict::NewAccessKey;
            result.reason = tr("\"%1\" is already in your contacts. This link brings a new access "
                               "key for calling them: Add takes it.")
                                .arg(name);
            return result;
        }
        result.verdict = ContactInput::Verdict::AlreadyContact;
        result.reason = tr("This address is already in your contacts as \"%1\".").arg(name);
        return result;
    }
    result.verdict = ContactInput::Verdict::Valid;
    result.contact.added = QDateTime::currentDateTimeUtc();
    return result;
}

} // namespace onionvoice::ui
