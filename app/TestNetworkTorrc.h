// The one reader of a private test network's client options (tests/testnet/testnet.py up DIR
// writes them to DIR/client.torrc), shared by the GUI's demo mode ($ONIONVOICE_TESTNET),
// onionvoice-cli --testnet DIR and the tests (tests/testnet/TestnetEnv.h). Kept out of the core
// libraries on purpose: the engine itself never reads a test network from the environment.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <optional>

namespace onionvoice::app {

// The lines of DIR/client.torrc, or nullopt with `*error` saying which file could not be read and
// why.
inline std::optional<QStringList> readTestNetworkTorrc(const QString& directory, QString* error) {
    QFile file(QDir(directory).filePath(QStringLiteral("client.torrc")));
    if (directory.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        *error =
            QStringLiteral("cannot read %1 (%2)")
                .arg(file.fileName(), directory.isEmpty() ? QStringLiteral("no network directory")
                                                          : file.errorString());
        return std::nullopt;
    }
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// The lines of the network named by $ONIONVOICE_TESTNET, or none when the variable is unset or
// names no network.
inline QStringList testNetworkTorrcLinesFromEnvironment() {
    QString ignored;
    return readTestNetworkTorrc(qEnvironmentVariable("ONIONVOICE_TESTNET"), &ignored)
        .value_or(QStringList{});
}

} // namespace onionvoice::app
