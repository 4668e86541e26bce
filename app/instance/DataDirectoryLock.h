// The claim of a data directory by one running OnionVoice program, the GUI or onionvoice-cli: a
// lock file that counts only while its process lives, so a crashed instance never blocks the next
// start.
#pragma once

#include <QCoreApplication>
#include <QLockFile>
#include <QString>

namespace onionvoice::app {

class DataDirectoryLock {
    Q_DECLARE_TR_FUNCTIONS(DataDirectoryLock)
public:
    enum class Result {
        Acquired, // held until this object goes (or the process ends)
        Held,     // another live process holds it: errorString() names it
        Failed,   // the directory or the lock file cannot be created: see errorString()
    };

    explicit DataDirectoryLock(const QString& dataDirectory);

    // Creates the directory when missing and takes the lock without waiting.
    Result tryAcquire();
    QString errorString() const { return error_; }

private:
    QString dataDirectory_;
    QLockFile lock_;
    QString error_;
};

} // namespace onionvoice::app
