// JSON storage of the contact book.
#include "ContactBook.h"

#include "tor/OnionAddress.h"
#include "tor/PrivateFile.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcContacts, "onionvoice.contacts", QtInfoMsg)

namespace onionvoice::contacts {
namespace {

constexpr int kFormatVersion = 1;
constexpr auto kKeyEncoding = QByteArray::Base64Encoding;
constexpr qsizetype kKeySize = 32; // x25519, both halves

bool checkKeySize(const QByteArray& key, QString* error) {
    if (key.size() == kKeySize)
        return true;
    *error = QCoreApplication::translate("ContactBook", "An access key has %1 bytes, not %2.")
                 .arg(key.size())
                 .arg(kKeySize);
    return false;
}

QJsonObject toJson(const Contact& c) {
    QJsonObject o{{"address", c.address},
                  {"name", c.displayName},
                  {"added", c.added.toUTC().toString(Qt::ISODate)},
                  {"blocked", c.blocked},
                  {"allowlisted", c.allowlisted}};
    if (!c.inboundAuthPublicKey.isEmpty())
        o["inbound_auth_public_key"] =
            QString::fromLatin1(c.inboundAuthPublicKey.toBase64(kKeyEncoding));
    if (!c.outboundAuthPrivateKey.isEmpty())
        o["outbound_auth_private_key"] =
            QString::fromLatin1(c.outboundAuthPrivateKey.toBase64(kKeyEncoding));
    return o;
}

std::optional<QByteArray> keyFrom(const QJsonValue& v) {
    if (v.isUndefined())
        return QByteArray();
    if (!v.isString())
        return std::nullopt;
    const auto decoded = QByteArray::fromBase64Encoding(
        v.toString().toLatin1(), kKeyEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.size() != kKeySize)
        return std::nullopt;
    return decoded.decoded;
}

// An entry as stored, or nullopt when any field is wrong. Of checkDisplayName()'s rules only the
// format characters (a name posing as another) make an entry wrong: a long name or a control
// character that an older version stored is no reason to lose the contact.
std::optional<Contact> fromJson(const QJsonObject& o) {
    if (!o["address"].isString() || !o["name"].isString() || !o["added"].isString() ||
        !o["blocked"].isBool() || !o["allowlisted"].isBool())
        return std::nullopt;
    const tor::AddressCheck check = tor::checkOnionAddress(o["address"].toString());
    const QDateTime added = QDateTime::fromString(o["added"].toString(), Qt::ISODate);
    const auto inbound = keyFrom(o["inbound_auth_public_key"]);
    const auto outbound = keyFrom(o["outbound_auth_private_key"]);
    if (!check.isValid() || check.address != o["address"].toString() || !added.isValid() ||
        !inbound || !outbound || hasFormatCharacters(o["name"].toString()))
        return std::nullopt;
    return Contact{check.address,
                   o["name"].toString(),
                   added.toUTC(),
                   o["blocked"].toBool(),
                   o["allowlisted"].toBool(),
                   *inbound,
                   *outbound};
}

// What can be kept of a damaged entry whose address is readable: a block stays (an unreadable
// flag counts as blocked), access is never granted (no allowlisting, no keys).
std::optional<Contact> repaired(const QJsonObject& o) {
    const tor::AddressCheck check = tor::checkOnionAddress(o["address"].toString());
    if (!o["address"].isString() || !check.isValid())
        return std::nullopt;
    QList<uint> points = o["name"].toString().toUcs4();
    points.removeIf([](uint c) { return QChar::category(char32_t(c)) == QChar::Other_Format; });
    const QString name =
        QString::fromUcs4(reinterpret_cast<const char32_t*>(points.constData()), points.size());
    return Contact{check.address,
                   name,
                   QDateTime::currentDateTimeUtc(),
                   o["blocked"].isBool() ? o["blocked"].toBool() : true,
                   false,
                   {},
                   {}};
}

} // namespace

ContactBook::ContactBook(QString path)
    : path_(std::move(path)) {}

ContactBook::LoadResult ContactBook::load() {
    contacts_.clear();
    fileState_ = FileState::Read;
    entriesLost_ = false;
    directoryExisted_ = QFileInfo(QFileInfo(path_).absolutePath()).isDir();
    QFile file(path_);
    if (!file.exists())
        return {LoadOutcome::NoFile, {}, {}};
    if (!file.open(QIODevice::ReadOnly)) {
        fileState_ = FileState::Unreadable;
        return {LoadOutcome::Unreadable,
                QCoreApplication::translate("ContactBook", "The contact book %1 cannot be read: %2")
                    .arg(path_, file.errorString()),
                {}};
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    file.close();

    // A newer OnionVoice's book (the user went back to this version): repaired as damaged, it
    // lost whatever the newer format holds, and the newer version then read what this one wrote.
    // Left as it is, and not saved over.
    if (const QJsonValue version = doc.object()["version"];
        version.isDouble() && version.toDouble() > kFormatVersion) {
        fileState_ = FileState::Unreadable;
        return {LoadOutcome::Unreadable,
                QCoreApplication::translate(
                    "ContactBook", "The contact book %1 was written by a newer version of "
                                   "OnionVoice (format %2; this version reads format %3). It is "
                                   "left as it is, and contacts cannot be changed until that "
                                   "version is used again.")
                    .arg(path_)
                    .arg(version.toDouble())
                    .arg(kFormatVersion),
                {}};
    }
    bool valid = doc.isObject() && doc.object()["version"].toInt() == kFormatVersion &&
                 doc.object()["contacts"].isArray();
    int repairedCount = 0, lost = valid ? 0 : 1;
    for (const QJsonValue& v : doc.object()["contacts"].toArray()) {
        auto contact = fromJson(v.toObject());
        if (!contact) {
            contact = repaired(v.toObject());
            valid = false;
            if (!contact) {
                ++lost;
                continue;
            }
            ++repairedCount;
        }
        if (Contact* twin = lookup(contact->address)) {
            // Two entries for one address: the stricter of both.
            valid = false;
            twin->blocked = twin->blocked || contact->blocked;
            twin->allowlisted = twin->allowlisted && contact->allowlisted;
            continue;
        }
        contacts_.append(*contact);
    }
    const bool lostEarlier = doc.object()["entries_lost"].toBool();
    entriesLost_ = lostEarlier || lost > 0;
    notify();
    if (valid) {
        LoadResult loaded{LoadOutcome::Loaded, {}, {}};
        loaded.lostEarlier = lostEarlier;
        return loaded;
    }
    const QString aside =
        path_ + ".corrupt-" + QDateTime::currentDateTimeUtc().toString("yyyyMMdd'T'HHmmss'Z'");
    // Copied aside, then replaced by the repaired book in one atomic write, here and not at the
    // next save: a program that loads and never saves (`contacts list`, a start that fails) left
    // no book at all, which the next start took for a first run: no blocks, strangers ring and
    // the lost entries forgotten.
    QString why;
    const bool keptAside = QFile::copy(path_, aside);
    if (!keptAside || !save(&why)) {
        if (keptAside)
            QFile::remove(aside);
        fileState_ = FileState::Unreadable;
        return {
            LoadOutcome::Unreadable,
            QCoreApplication::translate(
                "ContactBook", "The contact book %1 is damaged and could not be repaired (%2); it "
                               "is left as it is.")
                .arg(path_, keptAside ? why
                                      : QCoreApplication::translate("ContactBook",
                                                                    "no copy could be kept aside")),
            {},
            repairedCount,
            lost,
            lostEarlier};
    }
    qCWarning(lcContacts) << "contact book is damaged; kept aside";
    // A file that is not a book at all has no count of entries to give ("0 read, 1 could not be
    // read" understated a whole book lost).
    const QString said =
        doc.isObject()
            ? QCoreApplication::translate(
                  "ContactBook",
                  "The contact book was damaged. It was kept as %1; %2 contacts were read, %3 "
                  "damaged ones kept without access, %4 could not be read.")
                  .arg(aside)
                  .arg(contacts_.size() - repairedCount)
                  .arg(repairedCount)
                  .arg(lost)
            : QCoreApplication::translate("ContactBook",
                                          "The contact book was damaged and none of it could be "
                                          "read. It was kept as %1.")
                  .arg(aside);
    return {LoadOutcome::CorruptKeptAside, said, aside, repairedCount, lost, lostEarlier};
}

bool ContactBook::save(QString* error) const {
    switch (fileState_) {
    case FileState::NotRead:
        *error = QCoreApplication::translate(
            "ContactBook", "The contact book has not been read, so it is not overwritten.");
        return false;
    case FileState::Unreadable:
        *error = QCoreApplication::translate(
            "ContactBook", "The contact book file could not be read, so it is not overwritten.");
        return false;
    case FileState::Read:
        break;
    }
    QJsonArray list;
    for (const Contact& c : contacts_)
        list.append(toJson(c));
    QJsonObject book{{"version", kFormatVersion}, {"contacts", list}};
    if (entriesLost_)
        book["entries_lost"] = true;
    const QByteArray json = QJsonDocument(book).toJson();

    QString why;
    // A directory there at load and gone now was removed, or unmounted (the data directory
    // below an encrypted folder's mount point): made again, the book (access keys too) would
    // land on whatever is there instead, the plain-text disk under the mount point.
    const QString directory = QFileInfo(path_).absolutePath();
    if (directoryExisted_ && !QFileInfo(directory).isDir())
        why = QCoreApplication::translate("ContactBook",
                                          "the data directory %1 is gone (was it unmounted?)")
                  .arg(directory);
    if (!why.isEmpty() || !tor::ensurePrivateDirectory(directory, {}, &why) ||
        !tor::writePrivateFile(path_, json, &why)) {
        *error =
            QCoreApplication::translate("ContactBook", "The contact book could not be saved: %1.")
                .arg(why);
        return false;
    }
    return true;
}

Contact* ContactBook::lookup(const QString& address) {
    const tor::AddressCheck check = tor::checkOnionAddress(address);
    if (!check.isValid())
        return nullptr;
    for (Contact& c : contacts_)
        if (c.address == check.address)
            return &c;
    return nullptr;
}

bool ContactBook::add(Contact contact, QString* error) {
    const tor::AddressCheck check = tor::checkOnionAddress(contact.address);
    if (!check.isValid()) {
        *error = check.reason;
        return false;
    }
    if (lookup(check.address)) {
        *error =
            QCoreApplication::translate("ContactBook", "This address is already in your contacts.");
        return false;
    }
    if (const auto bad = checkDisplayName(contact.displayName)) {
        *error = *bad;
        return false;
    }
    contact.address = check.address;
    if (!contact.added.isValid())
        contact.added = QDateTime::currentDateTimeUtc();
    contacts_.append(contact);
    notify();
    return true;
}

bool ContactBook::rename(const QString& address, const QString& name, QString* error) {
    Contact* c = lookup(address);
    if (!c)
        return false;
    if (const auto bad = checkDisplayName(name)) {
        *error = *bad;
        return false;
    }
    c->displayName = name;
    notify();
    return true;
}

bool ContactBook::grantAccess(const QString& address, const QByteArray& inboundAuthPublicKey,
                              QString* error) {
    Contact* c = lookup(address);
    if (!c || !checkKeySize(inboundAuthPublicKey, error))
        return false;
    c->inboundAuthPublicKey = inboundAuthPublicKey;
    c->allowlisted = true;
    notify();
    return true;
}

bool ContactBook::setOutboundAccessKey(const QString& address,
                                       const QByteArray& outboundAuthPrivateKey, QString* error) {
    Contact* c = lookup(address);
    if (!c || !checkKeySize(outboundAuthPrivateKey, error))
        return false;
    c->outboundAuthPrivateKey = outboundAuthPrivateKey;
    notify();
    return true;
}

bool ContactBook::remove(const QString& address) {
    const Contact* c = lookup(address);
    if (!c)
        return false;
    const QString normalised = c->address;
    contacts_.removeIf([&](const Contact& x) { return x.address == normalised; });
    notify();
    return true;
}

bool ContactBook::setBlocked(const QString& address, bool blocked) {
    Contact* c = lookup(address);
    if (c) {
        c->blocked = blocked;
        notify();
    }
    return c != nullptr;
}

bool ContactBook::setAllowlisted(const QString& address, bool allowlisted) {
    Contact* c = lookup(address);
    if (c) {
        c->allowlisted = allowlisted;
        notify();
    }
    return c != nullptr;
}

void ContactBook::notify() const {
    if (changed_)
        changed_();
}

std::optional<Contact> ContactBook::find(const QString& address) const {
    const Contact* c = const_cast<ContactBook*>(this)->lookup(address);
    return c ? std::optional<Contact>(*c) : std::nullopt;
}

} // namespace onionvoice::contacts
