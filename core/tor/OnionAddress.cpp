// Onion v3 address encoding (rend-spec-v3 section 6) and validation with readable reasons (the app
// translates them; the command line loads no translation and keeps them English).
#include "OnionAddress.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <optional>
#include <sodium.h>

namespace onionvoice::tor {
namespace {

constexpr char kBase32Alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
constexpr std::uint8_t kVersion = 3;
constexpr int kRawLength = 35; // pubkey(32) | checksum(2) | version(1)

QByteArray checksumOf(std::span<const std::uint8_t, 32> publicKey, std::uint8_t version) {
    QCryptographicHash hash(QCryptographicHash::Sha3_256);
    hash.addData(QByteArrayView(".onion checksum"));
    hash.addData(QByteArrayView(reinterpret_cast<const char*>(publicKey.data()), 32));
    const char v = static_cast<char>(version);
    hash.addData(QByteArrayView(&v, 1));
    return hash.result().left(2);
}

} // namespace

QString base32Encode(const QByteArray& raw) {
    QString out;
    int buffer = 0;
    int bits = 0;
    for (const char c : raw) {
        buffer = (buffer << 8) | static_cast<std::uint8_t>(c);
        bits += 8;
        while (bits >= 5) {
            out.append(QLatin1Char(kBase32Alphabet[(buffer >> (bits - 5)) & 31]));
            bits -= 5;
        }
    }
    if (bits > 0)
        out.append(QLatin1Char(kBase32Alphabet[(buffer << (5 - bits)) & 31]));
    return out;
}

namespace {

std::optional<int> base32Value(QChar c) {
    if (c >= QLatin1Char('a') && c <= QLatin1Char('z'))
        return c.unicode() - 'a';
    if (c >= QLatin1Char('2') && c <= QLatin1Char('7'))
        return c.unicode() - '2' + 26;
    return std::nullopt;
}

AddressCheck refuse(AddressCheck::Verdict verdict, QString reason) {
    AddressCheck check;
    check.verdict = verdict;
    check.reason = std::move(reason);
    return check;
}

} // namespace

QString onionAddressFromPublicKey(std::span<const std::uint8_t, 32> publicKey) {
    QByteArray raw(reinterpret_cast<const char*>(publicKey.data()), 32);
    raw.append(checksumOf(publicKey, kVersion));
    raw.append(static_cast<char>(kVersion));
    return base32Encode(raw);
}

AddressCheck checkOnionAddress(const QString& input) {
    QString text = input.trimmed();
    // What people paste: a link written with slashes, an address from a browser's address bar
    // ("http://….onion/"); a path after the address is no address, and stays refused.
    for (const QLatin1StringView scheme :
         {QLatin1StringView("onionvoice://"), QLatin1StringView("onionvoice:"),
          QLatin1StringView("http://"), QLatin1StringView("https://")})
        if (text.startsWith(scheme, Qt::CaseInsensitive)) {
            text = text.mid(scheme.size());
            break;
        }
    if (text.endsWith(QLatin1Char('/')))
        text.chop(1);
    if (text.endsWith(QLatin1String(".onion"), Qt::CaseInsensitive))
        text.chop(int(sizeof(".onion") - 1));
    if (text.isEmpty())
        return refuse(AddressCheck::Verdict::Empty,
                      QCoreApplication::translate("OnionAddress", "The address is empty."));
    if (text == text.toUpper())
        text = text.toLower();

    for (qsizetype i = 0; i < text.size(); ++i) {
        if (!base32Value(text.at(i))) {
            return refuse(AddressCheck::Verdict::BadAlphabet,
                          QCoreApplication::translate(
                              "OnionAddress",
                              "Character %1 (\"%2\") cannot appear in an onion address: "
                              "only lower-case letters a-z and digits 2-7 can.")
                              .arg(i + 1)
                              .arg(text.at(i)));
        }
    }
    if (text.size() != kOnionAddressLength) {
        return refuse(AddressCheck::Verdict::BadLength,
                      QCoreApplication::translate(
                          "OnionAddress", "An onion address has %1 characters; this one has %2.")
                          .arg(kOnionAddressLength)
                          .arg(text.size()));
    }

    QByteArray raw;
    int buffer = 0;
    int bits = 0;
    for (const QChar c : text) {
        buffer = (buffer << 5) | *base32Value(c);
        bits += 5;
        if (bits >= 8) {
            raw.append(static_cast<char>((buffer >> (bits - 8)) & 0xff));
            bits -= 8;
        }
    }
    Q_ASSERT(raw.size() == kRawLength);

    AddressCheck check;
    std::copy(raw.begin(), raw.begin() + 32, check.publicKey.begin());
    const auto version = static_cast<std::uint8_t>(raw.at(34));
    // The checksum covers the version: another version only when the checksum says so. A typo in
    // the last character (always "d" in version 3) changes the version byte, and was reported as
    // an unsupported version.
    if (version != kVersion && checksumOf(check.publicKey, version) == raw.mid(32, 2)) {
        return refuse(AddressCheck::Verdict::BadVersion,
                      QCoreApplication::translate(
                          "OnionAddress", "This is an onion address of version %1; only version 3 "
                                          "addresses are supported.")
                          .arg(version));
    }
    if (version != kVersion || checksumOf(check.publicKey, kVersion) != raw.mid(32, 2)) {
        return refuse(AddressCheck::Verdict::BadChecksum,
                      QCoreApplication::translate(
                          "OnionAddress", "The address has a typo: its checksum does not match."));
    }
    // Tor refuses a key off the curve's prime-order subgroup (a small-order part added: eight
    // addresses per key, each signing as the key does), so such an address reaches nobody, and
    // blocking one would not block its twins.
    if (sodium_init() < 0 || crypto_core_ed25519_is_valid_point(check.publicKey.data()) != 1) {
        return refuse(AddressCheck::Verdict::BadKey,
                      QCoreApplication::translate(
                          "OnionAddress", "This is not the address of an onion service: its key "
                                          "is not a valid one."));
    }
    check.verdict = AddressCheck::Verdict::Valid;
    check.address = text;
    return check;
}

} // namespace onionvoice::tor
