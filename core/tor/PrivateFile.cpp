// QSaveFile with owner-only permissions.
#include "PrivateFile.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <sys/stat.h>
#include <unistd.h>

namespace onionvoice::tor {

bool writePrivateFile(const QString& path, const QByteArray& content, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(content) != content.size() || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

namespace {

// Owner is us and nobody else has any access.
bool isPrivate(const QString& path, QString* error) {
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
        *error = QStringLiteral("cannot inspect %1").arg(path);
        return false;
    }
    if (st.st_uid != ::geteuid()) {
        *error =
            QStringLiteral("%1 belongs to another user; refusing to keep keys there").arg(path);
        return false;
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        *error = QStringLiteral("%1 is accessible to other users (mode %2); make it private "
                                "(chmod go-rwx) and start again")
                     .arg(path)
                     .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
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
    if (!isPrivate(path, &why)) {
        // Our own directory made with a loose umask (by a file manager, or mkpath): tighten it.
        // Anyone else's is refused.
        struct stat st {};
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || st.st_uid != ::geteuid() ||
            !S_ISDIR(st.st_mode) || ::chmod(QFile::encodeName(path).constData(), 0700) != 0) {
            *error = why;
            return false;
        }
    }
    const QString inside = QDir(path).filePath(file);
    return file.isEmpty() || !QFile::exists(inside) || isPrivate(inside, error);
}

} // namespace onionvoice::tor
