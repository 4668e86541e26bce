// <data dir>/instance.lock through QLockFile, which records the owner's process id and treats the
// file of a dead owner as stale.
#include "DataDirectoryLock.h"

#include <QDir>

namespace onionvoice::app {

DataDirectoryLock::DataDirectoryLock(const QString& dataDirectory)
    : dataDirectory_(QDir(dataDirectory).absolutePath())
    , lock_(dataDirectory_ + QStringLiteral("/instance.lock")) {
    // Only a dead owner makes the lock stale: a long-running instance keeps an old lock file.
    lock_.setStaleLockTime(std::chrono::milliseconds::zero());
}

DataDirectoryLock::Result DataDirectoryLock::tryAcquire() {
    if (!QDir().mkpath(dataDirectory_)) {
        error_ = tr("cannot create the data directory %1").arg(dataDirectory_);
        return Result::Failed;
    }
    if (lock_.tryLock(std::chrono::milliseconds::zero()))
        return Result::Acquired;
    if (lock_.error() != QLockFile::LockFailedError) {
        error_ = tr("cannot create the lock file in %1").arg(dataDirectory_);
        return Result::Failed;
    }
    qint64 pid = 0;
    QString host, program;
    error_ = lock_.getLockInfo(&pid, &host, &program) && !program.isEmpty()
                 ? tr("the data directory %1 is in use by %2 (process %3): one OnionVoice per "
                      "data directory")
                       .arg(dataDirectory_, program, QString::number(pid))
                 : tr("the data directory %1 is in use by another OnionVoice").arg(dataDirectory_);
    return Result::Held;
}

} // namespace onionvoice::app
