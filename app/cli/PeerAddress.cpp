// Peer addresses as typed by a user (see PeerAddress.h).
#include "PeerAddress.h"

#include "tor/OnionAddress.h"

namespace onionvoice::cli {

std::optional<contacts::ContactUri> parsePeer(const QString& text, QString* reason) {
    if (text.startsWith(QLatin1String("onionvoice:"), Qt::CaseInsensitive) &&
        text.contains(QLatin1Char('?'))) {
        auto parsed = contacts::parseContactUri(text);
        if (!parsed.uri)
            *reason = parsed.error;
        return parsed.uri;
    }
    const tor::AddressCheck check = tor::checkOnionAddress(text);
    if (!check.isValid()) {
        *reason = check.reason;
        return std::nullopt;
    }
    return contacts::ContactUri{check.address, {}, {}};
}

} // namespace onionvoice::cli
