// QSaveFile with owner-only permissions, the directory entry synced after it.
#include "PrivateFile.h"

#include "TorLog.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace onionvoice::tor {

namespace {

// A directory opened to be synced, closed when it goes out of scope.
class OpenDirectory {
public:
    explicit OpenDirectory(const QByteArray& path)
        : fd_(::open(path.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
    ~OpenDirectory() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    OpenDirectory(const OpenDirectory&) = delete;
    OpenDirectory& operator=(const OpenDirectory&) = delete;
    bool sync() const { return fd_ >= 0 && ::fsync(fd_) == 0; }

private:
    int fd_;
};

} // namespace

NameClaim renameWithoutReplacing(const QString& from, const QString& to, QString* error) {
    const QByteArray source = QFile::encodeName(from);
    const QByteArray target = QFile::encodeName(to);
    const auto outcome = [&](int err) {
        if (err == EEXIST)
            return NameClaim::Taken;
        *error = QString::fromLocal8Bit(std::strerror(err));
        return NameClaim::Failed;
    };
#ifdef RENAME_NOREPLACE
    if (::renameat2(AT_FDCWD, source.constData(), AT_FDCWD, target.constData(), RENAME_NOREPLACE) ==
        0)
        return NameClaim::Claimed;
    if (errno != EINVAL && errno != ENOSYS) // not: this filesystem cannot
        return outcome(errno);
#endif
    if (::link(source.constData(), target.constData()) != 0)
        return outcome(errno);
    ::unlink(source.constData());
    return NameClaim::Claimed;
}

bool writePrivateFile(const QString& path, const QByteArray& content, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(content) != content.size() || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    syncDirectoryEntry(path);
    return true;
}

void syncDirectoryEntry(const QString& path) {
    const OpenDirectory directory(QFile::encodeName(QFileInfo(path).absolutePath()));
    if (directory.sync())
        return;
    const int why = errno;
    qCWarning(lcTor) << "cannot sync the directory of" << QFileInfo(path).fileName() << ":"
                     << qt_error_string(why);
}

namespace {

enum class Entry { Directory, KeyFile };

// Owner is us and nobody else has any access. A directory is judged by what it is, also through a
// symbolic link (a data directory linked to another disk is as private as its target); a key file
// must be the file itself, since a link could be pointed elsewhere behind our back.
bool isPrivate(const QString& path, Entry entry, QString* error) {
    const QByteArray name = QFile::encodeName(path);
    struct stat st {};
    if ((entry == Entry::Directory ? ::stat(name.constData(), &st)
                                   : ::lstat(name.constData(), &st)) != 0) {
        *error = QStringLiteral("cannot inspect %1").arg(path);
        return false;
    }
    if (S_ISLNK(st.st_mode)) {
        *error = QStringLiteral("%1 is a symbolic link; refusing to keep keys there (put the file "
                                "itself in its place)")
                     .arg(path);
        return false;
    }
    if (entry == Entry::Directory && !S_ISDIR(st.st_mode)) {
        *error = QStringLiteral("%1 is not a directory").arg(path);
        return false;
    }
    if (st.st_uid != ::geteuid()) {
        *error =
            QStringLiteral("%1 belongs to another user; refusing to keep keys there").arg(path);
        return false;
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        // The mode and the advice are the target's: chmod of a link changes nothing.
        const QString target = QFileInfo(path).canonicalFilePath();
        const bool linked = !target.isEmpty() && target != QFileInfo(path).absoluteFilePath();
        *error = QStringLiteral("%1 is accessible to other users (mode %2); make it private "
                                "(chmod go-rwx %3) and start again")
                     .arg(linked ? QStringLiteral("%1 (a link to %2)").arg(path, target) : path)
                     .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'))
                     .arg(linked ? target : path);
        return false;
    }
    return true;
}

} // namespace

bool ensurePrivateDirectory(const QString& path, const QString& file, QString* error) {
    if (!QDir(path).exists()) {
        // mkdir with mode 0700 (not mkpath and chmod): private from the first moment.
        const QString absolute = QDir(path).absolutePath();
        if (!QDir().mkpath(QFileInfo(absolute).path()) ||
            ::mkdir(QFile::encodeName(absolute).constData(), 0700) != 0) {
            *error = QStringLiteral("cannot create %1").arg(path);
            return false;
        }
    }
    QString why;
    if (!isPrivate(path, Entry::Directory, &why)) {
        // Our own directory made with a loose umask (by a file manager, or mkpath): tighten it.
        // Anyone else's is refused, and so is a loose directory behind a symbolic link (lstat: the
        // link itself is no directory): the user put it there on purpose, maybe shared, and is
        // asked rather than having it changed behind their back.
        struct stat st {};
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || st.st_uid != ::geteuid() ||
            !S_ISDIR(st.st_mode) || ::chmod(QFile::encodeName(path).constData(), 0700) != 0) {
            *error = why;
            return false;
        }
    }
    const QString inside = QDir(path).filePath(file);
    return file.isEmpty() || !QFile::exists(inside) || isPrivate(inside, Entry::KeyFile, error);
}

} // namespace onionvoice::tor
