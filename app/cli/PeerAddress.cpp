// Peer addresses as typed by a user (see PeerAddress.h).
#include "PeerAddress.h"

#include "tor/OnionAddress.h"

namespace onionvoice::cli {
namespace {

// What an error may repeat of the text: a link's query can carry an access key (`auth=`, also
// spelled with percent escapes), so only the part before it is shown.
QString shownInErrors(const QString& text) {
    const qsizetype query = text.indexOf(QLatin1Char('?'));
    return query < 0 ? text : text.left(query) + QStringLiteral("?…");
}

} // namespace

std::optional<contacts::ContactUri> parsePeer(const QString& text, QString* reason) {
    if (text.startsWith(QLatin1String("onionvoice:"), Qt::CaseInsensitive) &&
        text.contains(QLatin1Char('?'))) {
        auto parsed = contacts::parseContactUri(text);
        if (!parsed.uri)
            *reason = shownInErrors(text) + QStringLiteral(": ") + parsed.error;
        return parsed.uri;
    }
    const tor::AddressCheck check = tor::checkOnionAddress(text);
    if (!check.isValid()) {
        *reason = shownInErrors(text) + QStringLiteral(": ") + check.reason;
        return std::nullopt;
    }
    return contacts::ContactUri{check.address, {}, {}};
}

} // namespace onionvoice::cli
