// The instance socket's path. A long data directory's socket once fell back to the shared
// temporary directory under a name anyone could compute from the path: another local user
// listening there first received every link a later start handed over, access keys included
// (tst_instanceguard aLongDataDirectoryNeverListensWhereAnotherUserCan).
#include "InstanceSocketPath.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace onionvoice::app {
namespace {

class SocketPathText {
    Q_DECLARE_TR_FUNCTIONS(InstanceSocketPath)
public:
    static QString notPrivate(const QString& directory) {
        return tr("%1 is not a private directory of this user (it must be yours, with mode 0700): "
                  "the socket that later starts of OnionVoice hand their links to is not put "
                  "there. Remove it, or set XDG_RUNTIME_DIR, or use a shorter data directory.")
            .arg(directory);
    }
};

#ifdef Q_OS_UNIX
constexpr qsizetype kMaxSocketPath = 100; // sockaddr_un holds 108 bytes

// Creates `directory` 0700 when missing; true when it is a real directory of ours that nobody
// else may enter. Checked after the creation, so one made by someone else first is refused.
bool ensurePrivateDirectory(const QString& directory) {
    const QByteArray native = QFile::encodeName(directory);
    if (::mkdir(native.constData(), S_IRWXU) != 0 && errno != EEXIST)
        return false;
    struct stat st {};
    return ::lstat(native.constData(), &st) == 0 && S_ISDIR(st.st_mode) &&
           st.st_uid == ::geteuid() && (st.st_mode & (S_IRWXG | S_IRWXO)) == 0;
}
#endif

} // namespace

InstanceSocketPath resolveInstanceSocketPath(const QString& absoluteDataDirectory) {
    const QString inDataDir = absoluteDataDirectory + QStringLiteral("/instance.sock");
#ifdef Q_OS_UNIX
    if (inDataDir.toUtf8().size() <= kMaxSocketPath)
        return {inDataDir, {}};
    const QString name =
        QStringLiteral("/onionvoice-%1.sock")
            .arg(QLatin1String(
                QCryptographicHash::hash(absoluteDataDirectory.toUtf8(), QCryptographicHash::Sha256)
                    .toHex()
                    .left(32)));
    // Qt hands out the runtime directory only when it is ours and 0700.
    const QString runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (!runtime.isEmpty())
        return {runtime + name, {}};
    const QString own = QDir::tempPath() + QStringLiteral("/onionvoice-%1").arg(::geteuid());
    if (!ensurePrivateDirectory(own))
        return {{}, SocketPathText::notPrivate(own)};
    return {own + name, {}};
#else
    // A named pipe (no short path limit). Its name is global to the machine and nothing checks
    // who created it: not run on Windows yet (README, "Install").
    return {inDataDir, {}};
#endif
}

} // namespace onionvoice::app
