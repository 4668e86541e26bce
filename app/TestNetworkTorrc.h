// The client options of a private test network (tests/testnet/testnet.py up DIR writes them to
// DIR/client.torrc) for the programs in app/: the GUI's demo mode names the network in
// $ONIONVOICE_TESTNET. Kept out of the core libraries on purpose: the engine itself never reads a
// test network from the environment.
#pragma once

#include <QFile>
#include <QString>
#include <QStringList>

namespace onionvoice::app {

// The lines of $ONIONVOICE_TESTNET/client.torrc, or none when the variable is unset or names no
// network.
inline QStringList testNetworkTorrcLinesFromEnvironment() {
    const QString dir = qEnvironmentVariable("ONIONVOICE_TESTNET");
    QFile file(dir + QStringLiteral("/client.torrc"));
    if (dir.isEmpty() || !file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace onionvoice::app
