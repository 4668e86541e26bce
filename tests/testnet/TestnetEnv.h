// What the integration tests need from the private network started by testnet.py: the client
// torrc lines, a data directory under the build tree, and the PIDs of the network's nodes.
#pragma once

#include "../../app/TestNetworkTorrc.h"
#include "tor/TorLauncher.h"

#include <QDir>
#include <QFile>
#include <QStringList>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace onionvoice::testnet {

// Makes the test process die with its parent (ctest): its tors, owned through TAKEOWNERSHIP,
// then exit at once instead of running until the orphaned test times out.
inline void dieWithParent() {
    const pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        raise(SIGKILL);
}

inline QString networkDirectory() {
    return qEnvironmentVariable("ONIONVOICE_TESTNET");
}

// The client options a network writes to DIR/client.torrc, or an empty list when DIR is empty or
// holds no such file (the reader shared with the programs in app/).
inline QStringList testNetworkTorrcLines(const QString& dir) {
    QString ignored;
    return app::readTestNetworkTorrc(dir, &ignored).value_or(QStringList{});
}

inline QStringList clientTorrcLines() {
    return testNetworkTorrcLines(networkDirectory());
}

// Launcher configuration for an app instance on the network, with its data in <network>/../apps.
inline tor::TorLaunchConfig clientConfig(const QString& name) {
    tor::TorLaunchConfig config;
    config.dataDirectory =
        QDir(networkDirectory()).absoluteFilePath(QStringLiteral("../apps/") + name);
    QDir(config.dataDirectory).removeRecursively();
    config.extraTorrcLines = clientTorrcLines();
    return config;
}

// Resident set size of a process in kB (0 when it is gone).
inline qint64 residentKilobytes(qint64 pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return 0;
}

// PIDs of the network's own tor processes, by node name.
inline QList<QPair<QString, qint64>> networkPids() {
    QList<QPair<QString, qint64>> pids;
    const QDir dir(networkDirectory());
    for (const QString& node : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QFile file(dir.filePath(node + QStringLiteral("/pid")));
        if (file.open(QIODevice::ReadOnly))
            pids.append({node, file.readAll().trimmed().toLongLong()});
    }
    return pids;
}

} // namespace onionvoice::testnet
