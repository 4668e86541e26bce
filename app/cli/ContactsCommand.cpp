// `onionvoice-cli contacts list|add|remove|block|unblock`: the contact book of a data directory,
// edited without starting tor. `add --allow` lets a contact through a contacts-only service and
// prints the link (with its client key) to hand to that contact.
#include "CallReport.h"
#include "Commands.h"
#include "CommonOptions.h"
#include "DataDirectoryLock.h"
#include "PeerAddress.h"
#include "contacts/ContactBook.h"
#include "contacts/ContactName.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionIdentity.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QJsonArray>

namespace onionvoice::cli {
namespace {

QByteArray bytes(std::span<const std::uint8_t, 32> key) {
    return QByteArray(reinterpret_cast<const char*>(key.data()), 32);
}

QJsonObject contactJson(const contacts::Contact& c) {
    return {{"address", c.address},
            {"name", c.displayName},
            {"added", c.added.toString(Qt::ISODate)},
            {"blocked", c.blocked},
            {"allowlisted", c.allowlisted},
            {"has_key_for_their_service", !c.outboundAuthPrivateKey.isEmpty()}};
}

contacts::Contact newContact(const QString& address) {
    contacts::Contact c;
    c.address = address;
    c.added = QDateTime::currentDateTimeUtc();
    return c;
}

// The data directory's own address; empty when it has no identity yet (none is created for
// this: whoever has no address cannot be added by it).
std::optional<QString> ownAddress(const QString& directory, QString* error) {
    if (!QFile::exists(QDir(directory).filePath(QStringLiteral("identity.key"))))
        return QString();
    const auto stored = tor::loadOrCreateIdentity(directory, error);
    return stored ? std::optional<QString>(stored->identity.address()) : std::nullopt;
}

// 0, or the exit code of the failure (reported).
int addAndSave(contacts::ContactBook& book, const contacts::Contact& contact) {
    QString error;
    if (!book.add(contact, &error))
        return fail(ExitCode::Failure, error);
    if (!book.save(&error))
        return fail(ExitCode::FileError, error);
    return 0;
}

int list(const contacts::ContactBook& book, bool json) {
    if (json) {
        QJsonArray all;
        for (const auto& c : book.contacts())
            all.append(contactJson(c));
        printJsonLine({{"contacts", all}});
        return 0;
    }
    for (const auto& c : book.contacts())
        printLine(QStringLiteral("%1  %2%3%4")
                      .arg(c.address, c.displayName.isEmpty() ? QStringLiteral("-") : c.displayName,
                           c.blocked ? QStringLiteral("  [blocked]") : QString(),
                           c.allowlisted ? QStringLiteral("  [allowed]") : QString()));
    return 0;
}

} // namespace

int runContacts(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "The contact book.\n"
        "  contacts list\n"
        "  contacts add ADDRESS_OR_URI [--name NAME] [--allow]\n"
        "  contacts remove|block|unblock ADDRESS\n"
        "--allow lets the contact through a --contacts-only service and prints the link, with "
        "its key, to give to that contact (keep it secret).\n\n" +
        exitCodeHelp());
    parser.addHelpOption();
    const QCommandLineOption dataDir =
        CommonOptions::dataDirectoryOption("Where the contact book lives.");
    const QCommandLineOption name("name", "Display name (add).", "NAME");
    const QCommandLineOption allow("allow", "Allowlist for contacts-only mode (add).");
    const QCommandLineOption json = CommonOptions::jsonOption();
    parser.addOptions({dataDir, name, allow, json});
    parser.addPositionalArgument("action", "list, add, remove, block or unblock");
    if (const auto exit = parseOrExit(parser, arguments))
        return *exit;
    const QStringList args = parser.positionalArguments();
    const QString action = args.value(0);
    const QString directory = CommonOptions::dataDirectory(parser, dataDir);
    // The action and the argument count first: `contacts frob X` reported X as an invalid
    // address (exit code 3) and `contacts list extra` likewise, after loading the book.
    const QStringList actions{"list", "add", "remove", "block", "unblock"};
    const QString usage = "usage: contacts list | contacts add|remove|block|unblock ADDRESS";
    if (!action.isEmpty() && !actions.contains(action))
        return fail(ExitCode::Usage, "unknown contacts action: " + action + "; " + usage);
    const bool listing = action == QLatin1String("list");
    if (action.isEmpty() || args.size() != (listing ? 1 : 2))
        return fail(ExitCode::Usage, usage);
    // An engine running on the directory (the app, serve) holds the book in memory: it would
    // neither see an edit made beside it (a contact blocked here could still ring) nor keep it
    // (its next save writes its own book). So edits wait until it has stopped; listing is safe.
    app::DataDirectoryLock lock(directory);
    if (!listing && lock.tryAcquire() != app::DataDirectoryLock::Result::Acquired)
        return fail(ExitCode::Failure,
                    lock.errorString() +
                        "; edit the contacts there, or stop it and run this again");
    contacts::ContactBook book(QDir(directory).filePath(QStringLiteral("contacts.json")));
    const auto loaded = book.load();
    if (loaded.outcome == contacts::ContactBook::LoadOutcome::Unreadable)
        return fail(ExitCode::FileError, loaded.message);
    if (loaded.outcome == contacts::ContactBook::LoadOutcome::CorruptKeptAside)
        fail(ExitCode::FileError, loaded.message); // reported; the book starts empty

    if (listing)
        return list(book, parser.isSet(json));
    QString reason;
    const auto peer = parsePeer(args.at(1), &reason);
    if (!peer)
        return fail(ExitCode::InvalidAddress, reason);
    QString error;
    // As the GUI: the user is not their own contact (add, or block, which adds a stranger).
    if (action == QLatin1String("add") || action == QLatin1String("block")) {
        const auto own = ownAddress(directory, &error);
        if (!own)
            return fail(ExitCode::FileError, error);
        if (peer->address == *own)
            return fail(ExitCode::Failure, peer->address + ": this is your own address");
    }
    if (parser.isSet(name))
        if (const auto bad = contacts::checkDisplayName(parser.value(name)))
            return fail(ExitCode::Usage, "--name: " + *bad);
    QJsonObject result{{"address", peer->address}, {"action", action}};
    if (action == QLatin1String("add")) {
        contacts::Contact c = newContact(peer->address);
        c.displayName = parser.isSet(name) ? parser.value(name) : peer->displayName;
        c.outboundAuthPrivateKey = peer->clientAuthKey;
        QString linkForContact;
        if (parser.isSet(allow)) {
            const auto stored = tor::loadOrCreateIdentity(directory, &error);
            if (!stored)
                return fail(ExitCode::FileError, error);
            const tor::ClientAuthKey key = tor::ClientAuthKey::generate();
            c.allowlisted = true;
            c.inboundAuthPublicKey = bytes(key.publicKey());
            linkForContact =
                contacts::ContactUri{stored->identity.address(), {}, bytes(key.privateKey())}
                    .toString();
            result.insert("link_for_contact", linkForContact);
        }
        if (const int code = addAndSave(book, c))
            return code;
        if (parser.isSet(json))
            printJsonLine(result);
        else if (!linkForContact.isEmpty())
            printLine("give this link to the contact (it is their key, keep it private): " +
                      linkForContact);
        return 0;
    }
    bool changed = false;
    if (action == QLatin1String("remove"))
        changed = book.remove(peer->address);
    else if (action == QLatin1String("block"))
        changed = book.setBlocked(peer->address, true);
    else // unblock, the one action left (checked above)
        changed = book.setBlocked(peer->address, false);
    if (!changed && action != QLatin1String("block"))
        return fail(ExitCode::Failure, peer->address + " is not in the contacts");
    if (!changed) { // blocking a stranger adds them, blocked
        contacts::Contact c = newContact(peer->address);
        c.blocked = true;
        if (const int code = addAndSave(book, c))
            return code;
    } else if (!book.save(&error)) {
        return fail(ExitCode::FileError, error);
    }
    if (parser.isSet(json))
        printJsonLine(result);
    return 0;
}

} // namespace onionvoice::cli
