// Stand-in tor executables (shell scripts) and a scripted control port that answers the
// launcher's start-up commands as tor would: what tst_torlauncher and tst_torlifecycle run instead
// of a tor.
#pragma once

#include "tor/TorLauncher.h"

#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <csignal>
#include <cstring>
#include <sodium.h>

namespace onionvoice::tor::testing {

inline QString writeScript(const QTemporaryDir& dir, const QString& name, const QByteArray& body) {
    const QString path = dir.filePath(name);
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write("#!/bin/sh\n" + body);
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

// A stand-in tor that answers --version, then prints `log` (tor's own lines) and exits 1.
inline QString failingTor(const QTemporaryDir& dir, const QByteArray& log) {
    return writeScript(dir, QStringLiteral("fake-tor"),
                       "if [ \"$1\" = --version ]; then echo 'Tor version 0.4.9.11.'; exit 0; fi\n"
                       "cat <<'EOF'\n" +
                           log + "EOF\nexit 1\n");
}

inline bool processAlive(qint64 pid) {
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

// Stand-in for tor that writes the control-port file pointing at a scripted control port, and a
// cookie of 32 zero bytes, then waits to be stopped.
inline const QByteArray kControlPortTor =
    "if [ \"$1\" = --version ]; then echo 'Tor version 0.4.9.11.'; exit 0; fi\n"
    "dir=$(dirname \"$2\")\n"
    "head -c 32 /dev/zero > \"$dir/control_auth_cookie\"\n"
    "echo \"PORT=127.0.0.1:$FAKE_TOR_CONTROL_PORT\" > \"$dir/control-port\"\n"
    "exec sleep 60\n";

inline QByteArray hmac(const char* key, const QByteArray& message) {
    QByteArray mac(crypto_auth_hmacsha256_BYTES, '\0');
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(key),
                                std::strlen(key));
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(message.data()),
                                  std::size_t(message.size()));
    crypto_auth_hmacsha256_final(&state, reinterpret_cast<unsigned char*>(mac.data()));
    return mac;
}

// Answers the launcher's start-up commands like tor would (SAFECOOKIE with the cookie of 32 zero
// bytes); authentication can be refused, and an impostor does not know the cookie.
class ScriptedTorControl : public QObject {
public:
    bool refuseAuthentication = false;
    bool impostor = false;
    bool silent = false; // takes the connection and the commands, answers nothing (a hung tor)
    QByteArray message;  // cookie | client nonce | server nonce
    // What GETINFO net/listeners/socks answers: a real tor's listeners, as QuotedStrings.
    QByteArray socksListeners = "\"127.0.0.1:9999\"";
    QList<QByteArray> commands;
    QTcpSocket* peer = nullptr;
    bool authenticated = false; // on the latest connection
    QTcpServer server;

    ScriptedTorControl() {
        server.listen(QHostAddress::LocalHost);
        qputenv("FAKE_TOR_CONTROL_PORT", QByteArray::number(server.serverPort()));
        connect(&server, &QTcpServer::newConnection, this, [this] {
            peer = server.nextPendingConnection();
            authenticated = false;
            connect(peer, &QTcpSocket::readyRead, this, [this] {
                while (peer->canReadLine())
                    answer(peer->readLine().trimmed());
            });
        });
    }

    void answer(const QByteArray& command) {
        commands.append(command);
        if (silent)
            return;
        // As tor does: anything but the authentication before it is refused, and the
        // connection closed.
        if (!authenticated && !command.startsWith("AUTHCHALLENGE") &&
            !command.startsWith("AUTHENTICATE") && !command.startsWith("PROTOCOLINFO")) {
            peer->write("514 Authentication required.\r\n");
            peer->disconnectFromHost();
            return;
        }
        if (command.startsWith("AUTHCHALLENGE SAFECOOKIE ")) {
            const QByteArray serverNonce(32, '\x11');
            message = (impostor ? QByteArray(32, 'x') : QByteArray(32, '\0')) +
                      QByteArray::fromHex(command.mid(25)) + serverNonce;
            peer->write("250 AUTHCHALLENGE SERVERHASH=" +
                        hmac("Tor safe cookie authentication server-to-controller hash", message)
                            .toHex()
                            .toUpper() +
                        " SERVERNONCE=" + serverNonce.toHex().toUpper() + "\r\n");
        } else if (command.startsWith("AUTHENTICATE")) {
            const bool cookieOk =
                command ==
                "AUTHENTICATE " +
                    hmac("Tor safe cookie authentication controller-to-server hash", message)
                        .toHex();
            authenticated = !refuseAuthentication && cookieOk;
            peer->write(authenticated ? "250 OK\r\n" : "515 Authentication failed\r\n");
        } else if (command == "GETINFO net/listeners/socks") {
            peer->write("250-net/listeners/socks=" + socksListeners + "\r\n250 OK\r\n");
        } else if (command == "GETINFO status/bootstrap-phase") {
            peer->write("250-status/bootstrap-phase=NOTICE BOOTSTRAP PROGRESS=0 TAG=starting "
                        "SUMMARY=\"Starting\"\r\n250 OK\r\n");
        } else {
            peer->write("250 OK\r\n");
        }
    }
};

// A launcher's configuration for the stand-in tor that dials the scripted control port.
inline TorLaunchConfig scriptedTorConfig(const QTemporaryDir& dir,
                                         std::chrono::milliseconds restartBackoff) {
    TorLaunchConfig config;
    config.dataDirectory = dir.path();
    config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"), kControlPortTor);
    config.restartBackoff = restartBackoff;
    return config;
}

} // namespace onionvoice::tor::testing
