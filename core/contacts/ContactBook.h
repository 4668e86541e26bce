// The contact book: who the user knows, whom they block, and who may reach a contacts-only service.
// Stored as JSON in the data directory, written atomically with owner-only permissions; a file
// that cannot be read back is reported and kept aside, never overwritten. A damaged file fails
// closed: every entry whose address can still be read is kept, a damaged entry keeps its block
// (an unreadable flag counts as blocked) and loses its access key and allowlisting.
#pragma once

#include "ContactName.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <functional>
#include <optional>

namespace onionvoice::contacts {

struct Contact {
    QString address; // normalised v3 onion address
    QString displayName;
    QDateTime added; // UTC
    bool blocked = false;
    bool allowlisted = false;
    // Key this contact's tor uses to reach our contacts-only service (we keep the public half).
    QByteArray inboundAuthPublicKey;
    // Key our tor uses to reach the contact's contacts-only service (from their contact link).
    QByteArray outboundAuthPrivateKey;
    friend bool operator==(const Contact&, const Contact&) = default;
};

class ContactBook {
public:
    enum class LoadOutcome { Loaded, NoFile, CorruptKeptAside, Unreadable };
    struct LoadResult {
        LoadOutcome outcome = LoadOutcome::NoFile;
        QString message;          // for a person, when not Loaded / NoFile
        QString keptAsideAs;      // where a corrupt file was moved
        int repaired = 0;         // damaged entries kept, fail-closed
        int lost = 0;             // entries without a readable address (blocks may have been lost)
        bool lostEarlier = false; // a load before this one lost entries (entriesLost())
        // Blocks may be missing from the book: entries were lost, now or before the user decided
        // about it, or the file could not be read at all (how many it held is unknown). Whoever
        // admits callers should fail closed.
        bool mayHaveLostEntries() const {
            return lost > 0 || lostEarlier || outcome == LoadOutcome::Unreadable;
        }
    };

    explicit ContactBook(QString path);

    // Reads the file. A corrupt file is renamed to "<path>.corrupt-<UTC time>" and the book keeps
    // what could be read of it (see above); an unreadable one (permissions, I/O) is left alone
    // and the book stays empty and refuses to save over it.
    LoadResult load();
    // Writes the whole book atomically (QSaveFile) with mode 0600, once load() has read it.
    // Returns false and sets *error on failure (or before load()); the previous file is then
    // untouched.
    bool save(QString* error) const;

    // Adds a contact; refuses an invalid address, one already in the book, or a name
    // checkDisplayName() refuses (reason in *error).
    bool add(Contact contact, QString* error);
    // Renames a contact in place: its block, allowlisting, keys and date stay as they are. A name
    // add() would refuse is refused here too, before anything changes (reason in *error). False
    // with *error untouched when no contact has the address.
    bool rename(const QString& address, const QString& name, QString* error);
    // Gives a contact a new inbound access key and allowlists it, as one change. Refuses a key
    // that is not 32 bytes (reason in *error); false with *error untouched when no contact has
    // the address.
    bool grantAccess(const QString& address, const QByteArray& inboundAuthPublicKey,
                     QString* error);
    // Keeps the key of a contact's access link (for calling their contacts-only service) in
    // place. Refuses a key that is not 32 bytes (reason in *error); false with *error untouched
    // when no contact has the address.
    bool setOutboundAccessKey(const QString& address, const QByteArray& outboundAuthPrivateKey,
                              QString* error);
    bool remove(const QString& address);
    bool setBlocked(const QString& address, bool blocked);
    bool setAllowlisted(const QString& address, bool allowlisted);
    // Entries were lost since the user last decided how to treat unknown callers. Saved with
    // the book, so the next start fails closed too (the repaired book alone looks whole).
    bool entriesLost() const { return entriesLost_; }
    // The user decided how to treat unknown callers, knowing that entries were lost.
    void forgetLostEntries() { entriesLost_ = false; }
    std::optional<Contact> find(const QString& address) const;
    const QList<Contact>& contacts() const { return contacts_; }
    // Called once after every change of the book in memory (load, add, rename, access, remove,
    // block, allowlist): the engine republishes its service on each call.
    void setChangeListener(std::function<void()> listener) { changed_ = std::move(listener); }

private:
    Contact* lookup(const QString& address);
    void notify() const;

    QString path_;
    QList<Contact> contacts_;
    bool entriesLost_ = false;
    // What save() may do: a book never read would overwrite the file with an empty one (a start
    // that failed before the book was read, whose window still took contact edits), one that
    // could not be read would destroy what it holds.
    enum class FileState { NotRead, Read, Unreadable };
    FileState fileState_ = FileState::NotRead;
    // Whether the book's directory was there at load: save() makes it only if it never was.
    bool directoryExisted_ = false;
    std::function<void()> changed_;
};

} // namespace onionvoice::contacts
