// Parsing and printing of contact URIs (the reasons a link is refused translated where the app
// loads a translation).
#include "ContactUri.h"

#include "ContactName.h"
#include "tor/OnionAddress.h"

#include <QCoreApplication>
#include <QUrlQuery>
#include <algorithm>

namespace onionvoice::contacts {
namespace {

constexpr auto kScheme = QLatin1StringView("onionvoice:");
constexpr int kClientKeySize = 32;
constexpr auto kKeyEncoding = QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals;

ContactUriParse refuse(const QString& why) {
    return {std::nullopt, why};
}

// A part's name that may be quoted back: short, letters, digits, '-' and '_' only.
bool looksLikeAName(const QString& key) {
    return key.size() <= 16 && std::all_of(key.begin(), key.end(), [](QChar c) {
               return (c.isLetterOrNumber() && c.unicode() < 128) || c == u'-' || c == u'_';
           });
}

} // namespace

QString ContactUri::toString() const {
    QString out = kScheme + address;
    QUrlQuery query;
    if (!displayName.isEmpty())
        query.addQueryItem("name", QString::fromLatin1(QUrl::toPercentEncoding(displayName)));
    if (!clientAuthKey.isEmpty())
        query.addQueryItem("auth", QString::fromLatin1(clientAuthKey.toBase64(kKeyEncoding)));
    if (!query.isEmpty())
        out += '?' + query.toString(QUrl::FullyEncoded);
    return out;
}

ContactUriParse parseContactUri(const QString& input) {
    const QString text = input.trimmed();
    if (!text.startsWith(kScheme, Qt::CaseInsensitive))
        return refuse(QCoreApplication::translate("ContactUri",
                                                  "A contact link starts with \"onionvoice:\"."));
    QString rest = text.mid(kScheme.size());
    if (rest.startsWith(QLatin1String("//"))) // written as a URL with an authority: the same link
        rest = rest.mid(2);
    const qsizetype question = rest.indexOf('?');
    const QString addressPart = question < 0 ? rest : rest.left(question);
    const tor::AddressCheck check = tor::checkOnionAddress(addressPart);
    if (!check.isValid())
        return refuse(check.reason);

    ContactUri uri;
    uri.address = check.address;
    if (question >= 0) {
        const QUrlQuery query(rest.mid(question + 1));
        for (const auto& [key, value] : query.queryItems(QUrl::FullyEncoded)) {
            if (key == QLatin1String("name")) {
                const QString name = QUrl::fromPercentEncoding(value.toLatin1()).trimmed();
                if (const auto bad = checkDisplayName(name))
                    return refuse(*bad);
                uri.displayName = name;
            } else if (key == QLatin1String("auth")) {
                const auto decoded = QByteArray::fromBase64Encoding(
                    value.toLatin1(), kKeyEncoding | QByteArray::AbortOnBase64DecodingErrors);
                if (!decoded || decoded.decoded.size() != kClientKeySize)
                    return refuse(QCoreApplication::translate(
                        "ContactUri", "The access key in the link is damaged."));
                uri.clientAuthKey = decoded.decoded;
            } else if (looksLikeAName(key)) {
                return refuse(QCoreApplication::translate("ContactUri",
                                                          "The link has an unknown part \"%1\".")
                                  .arg(key));
            } else {
                // Not quoted: a key pasted bare, or "auth%3D<key>" with its "=" encoded, would
                // put the secret in the message, and the message in the log.
                return refuse(
                    QCoreApplication::translate("ContactUri", "The link has an unknown part."));
            }
        }
    }
    return {uri, {}};
}

} // namespace onionvoice::contacts
