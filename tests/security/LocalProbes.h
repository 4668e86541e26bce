// Probes of what a local user reaches without tor: the TCP ports this process listens on, and
// whether a process running as another user can connect to a unix socket.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QSet>
#include <algorithm>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace onionvoice::testing {

// The TCP ports this process listens on (its tors are other processes): its sockets' inodes
// matched against the kernel's table of listening sockets.
inline QList<quint16> ownListeningTcpPorts() {
    QSet<QByteArray> inodes;
    for (const QFileInfo& fd : QDir(QStringLiteral("/proc/self/fd")).entryInfoList(QDir::System)) {
        const QString target = fd.symLinkTarget();
        if (target.contains(QStringLiteral("socket:[")))
            inodes.insert(target.section(QLatin1Char('['), 1).chopped(1).toLatin1());
    }
    QList<quint16> ports;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        QFile file(QString::fromLatin1(table));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& line : file.readAll().split('\n')) {
            const QList<QByteArray> f = line.simplified().split(' ');
            if (f.size() > 9 && f.at(3) == "0A" && inodes.contains(f.at(9)))
                ports.append(quint16(f.at(1).split(':').last().toUInt(nullptr, 16)));
        }
    }
    return ports;
}

// What a process running as another user (nobody) gets when it connects to the unix socket at
// path. A probe that could not become nobody proves nothing, so it is told apart from a refusal.
enum class OtherUser { Connected, Refused, ProbeFailed };

inline OtherUser otherUserConnects(const QByteArray& path) {
    const pid_t child = ::fork();
    if (child == 0) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, path.constData(),
                    std::min(std::size_t(path.size()), sizeof(address.sun_path) - 1));
        const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
        if (::setgid(65534) != 0 || ::setuid(65534) != 0 || s < 0)
            ::_exit(2);
        ::_exit(::connect(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 2)
        return OtherUser::ProbeFailed;
    return WEXITSTATUS(status) == 0 ? OtherUser::Connected : OtherUser::Refused;
}

// A listening unix socket anyone may connect to, in `directory`: the probe's positive control.
inline int openSocketListener(const QByteArray& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.constData(),
                std::min(std::size_t(path.size()), sizeof(address.sun_path) - 1));
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::chmod(path.constData(), 0777) != 0 || ::listen(s, 4) != 0)
        return -1;
    return s;
}

} // namespace onionvoice::testing
