// Atomic writes of files only their owner may read (torrc, contact book, service keys): the whole
// content or nothing replaces the file, with mode 0600 from the first byte. Also the check of the
// data directory at start: created 0700, and refused when another user owns it or could read it.
#pragma once

#include <QByteArray>
#include <QString>

namespace onionvoice::tor {

// Returns false with a reason in *error; the previous file is then untouched. On success the new
// content and its name are on disk (syncDirectoryEntry).
bool writePrivateFile(const QString& path, const QByteArray& content, QString* error);

// After a QSaveFile commit: QSaveFile syncs the file's data before it gives the file its name,
// but not the directory that holds the name, so a power cut soon after could bring back the old
// file, or none (a first identity key lost: a new onion address at the next start, unknown to
// every contact). A failure is logged only: the file itself is complete and in place.
void syncDirectoryEntry(const QString& path);

enum class NameClaim {
    Claimed, // `from` has the name `to` now
    Taken,   // a file has the name `to` already: both are left as they are
    Failed,  // see *error
};
// Renames `from` to `to` unless a file has that name: never replaces one, whatever the filesystem
// (renameat2 with RENAME_NOREPLACE, else a hard link; QFile::rename checks first and then copies
// over a file that appeared in between).
NameClaim renameWithoutReplacing(const QString& from, const QString& to, QString* error);

// Creates the directory with mode 0700 if it does not exist, and makes our own existing one 0700.
// Returns false with a reason when it belongs to another user (or is no directory), or when
// `file` inside it (if given and present) belongs to another user or is open to group or others:
// the key in it may not be private any more. A symbolic link to a directory is judged by its target
// (a loose target is refused with its mode and path, not changed); `file` may not be a link.
bool ensurePrivateDirectory(const QString& path, const QString& file, QString* error);

} // namespace onionvoice::tor
