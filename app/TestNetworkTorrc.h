// The one reader of a private test network's client options (tests/testnet/testnet.py up DIR
// writes them to DIR/client.torrc), shared by the GUI's demo mode (onionvoice --testnet DIR),
// onionvoice-cli --testnet DIR and the tests (tests/testnet/TestnetEnv.h, which take DIR from
// $ONIONVOICE_TESTNET). Kept out of the core libraries on purpose: the engine itself never reads a
// test network, and neither program reads one from the environment.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <optional>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace onionvoice::app {

// The lines of DIR/client.torrc, or nullopt with `*error` saying which file could not be used and
// why. The lines go into tor's configuration as they are (a directory authority, a SOCKS port on
// any address), so a file that another user owns or may write is refused: a directory in /tmp
// named before the network was started could have been created by anyone.
inline std::optional<QStringList> readTestNetworkTorrc(const QString& directory, QString* error) {
    QFile file(QDir(directory).filePath(QStringLiteral("client.torrc")));
    if (directory.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        *error = QCoreApplication::translate("onionvoice::app", "cannot read %1 (%2)")
                     .arg(file.fileName(), directory.isEmpty()
                                               ? QCoreApplication::translate("onionvoice::app",
                                                                             "no network directory")
                                               : file.errorString());
        return std::nullopt;
    }
#ifdef Q_OS_UNIX
    // The opened file itself: a check by name could be answered by another file than the one read.
    struct stat st {};
    if (::fstat(file.handle(), &st) != 0) {
        *error = QCoreApplication::translate("onionvoice::app", "cannot inspect %1")
                     .arg(file.fileName());
        return std::nullopt;
    }
    if (st.st_uid != ::geteuid()) {
        *error = QCoreApplication::translate("onionvoice::app",
                                             "%1 belongs to another user; refusing to put its "
                                             "lines into tor's configuration")
                     .arg(file.fileName());
        return std::nullopt;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        *error = QCoreApplication::translate("onionvoice::app",
                                             "%1 can be changed by other users (mode %2); "
                                             "refusing to put its lines into tor's "
                                             "configuration (chmod go-w)")
                     .arg(file.fileName())
                     .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
        return std::nullopt;
    }
#endif
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace onionvoice::app
