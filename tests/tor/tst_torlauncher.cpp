// Unit tests of TorLauncher with stand-in tor executables (shell scripts): discovery, version
// check, torrc contents, and giving up with a reason after repeated failures.
#include "../testnet/TestnetEnv.h"
#include "tor/BundledTor.h"
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"

#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <cstring>
#include <sodium.h>

using namespace onionvoice::tor;

namespace {

QString writeScript(const QTemporaryDir& dir, const QString& name, const QByteArray& body) {
    const QString path = dir.filePath(name);
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write("#!/bin/sh\n" + body);
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

bool processAlive(qint64 pid) {
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

// Stand-in for tor that writes the control-port file pointing at a scripted control port, and a
// cookie of 32 zero bytes, then waits to be stopped.
const QByteArray kControlPortTor =
    "if [ \"$1\" = --version ]; then echo 'Tor version 0.4.9.11.'; exit 0; fi\n"
    "dir=$(dirname \"$2\")\n"
    "head -c 32 /dev/zero > \"$dir/control_auth_cookie\"\n"
    "echo \"PORT=127.0.0.1:$FAKE_TOR_CONTROL_PORT\" > \"$dir/control-port\"\n"
    "exec sleep 60\n";

QByteArray hmac(const char* key, const QByteArray& message) {
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
    QByteArray message; // cookie | client nonce | server nonce
    // What GETINFO net/listeners/socks answers: a real tor's listeners, as QuotedStrings.
    QByteArray socksListeners = "\"127.0.0.1:9999\"";
    QList<QByteArray> commands;
    QTcpSocket* peer = nullptr;
    QTcpServer server;

    ScriptedTorControl() {
        server.listen(QHostAddress::LocalHost);
        qputenv("FAKE_TOR_CONTROL_PORT", QByteArray::number(server.serverPort()));
        connect(&server, &QTcpServer::newConnection, this, [this] {
            peer = server.nextPendingConnection();
            connect(peer, &QTcpSocket::readyRead, this, [this] {
                while (peer->canReadLine())
                    answer(peer->readLine().trimmed());
            });
        });
    }

    void answer(const QByteArray& command) {
        commands.append(command);
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
            peer->write(refuseAuthentication || !cookieOk ? "515 Authentication failed\r\n"
                                                          : "250 OK\r\n");
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

} // namespace

class TestTorLauncher : public QObject {
    Q_OBJECT
private:
    // A launcher's configuration for the stand-in tor that dials the scripted control port.
    static TorLaunchConfig scriptedTorConfig(const QTemporaryDir& dir,
                                             std::chrono::milliseconds restartBackoff) {
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"), kControlPortTor);
        config.restartBackoff = restartBackoff;
        return config;
    }

    // Starts a launcher against the scripted control port; its failure reason once it has given
    // up and its tor is gone (empty if it did not give up).
    static QString failureAgainst(ScriptedTorControl& control) {
        QTemporaryDir dir;
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"), kControlPortTor);
        // The fake tor dials this control, not whichever was constructed last.
        qputenv("FAKE_TOR_CONTROL_PORT", QByteArray::number(control.server.serverPort()));
        TorLauncher launcher(config);
        launcher.start();
        const bool failed =
            QTest::qWaitFor([&] { return launcher.state() == TorLauncher::State::Failed; }, 10000);
        return failed && !processAlive(launcher.processId()) ? launcher.failureReason() : QString();
    }

private slots:
    void parsesVersions() {
        const auto v =
            TorLauncher::parseVersion(QStringLiteral("Tor version 0.4.9.11.\nThis build"));
        QVERIFY(v.has_value());
        QCOMPARE(v->toString(), QStringLiteral("0.4.9.11"));
        QVERIFY(*v >= TorLauncher::kMinimumVersion);
        const auto old = TorLauncher::parseVersion(QStringLiteral("Tor version 0.4.7.16."));
        QVERIFY(*old < TorLauncher::kMinimumVersion);
        QVERIFY(*TorLauncher::parseVersion(QStringLiteral("Tor version 0.4.10.1-alpha.")) >
                TorLauncher::kMinimumVersion);
        QVERIFY(!TorLauncher::parseVersion(QStringLiteral("command not found")).has_value());
    }

    void torrcHasTheRequiredOptions() {
        TorLaunchConfig config;
        config.dataDirectory = QStringLiteral("/data");
        config.extraTorrcLines = {QStringLiteral("NumEntryGuards 4")};
        const QStringList lines = TorLauncher::generateTorrc(config, 4242).split(QLatin1Char('\n'));
        for (const char* expected :
             {"DataDirectory /data/tor",
#ifdef Q_OS_WIN
              "SocksPort 127.0.0.1:auto IsolateSOCKSAuth OnionTrafficOnly ExtendedErrors",
#else
              "SocksPort unix:\"/data/tor/socks.sock\" IsolateSOCKSAuth OnionTrafficOnly "
              "ExtendedErrors",
#endif
              "ControlPort 127.0.0.1:auto", "ControlPortWriteToFile /data/tor/control-port",
              "CookieAuthentication 1", "__OwningControllerProcess 4242", "AvoidDiskWrites 1",
              "NumEntryGuards 4"})
            QVERIFY2(lines.contains(QLatin1String(expected)), expected);
        config.socksMode = TorLaunchConfig::SocksMode::Disabled;
        QVERIFY(TorLauncher::generateTorrc(config, 1).contains(QStringLiteral("\nSocksPort 0\n")));
    }

#ifndef Q_OS_WIN
    // Attack (tst_contactsonly otherLocalUserCannotDialThroughOurTor): tor's SOCKS port was TCP on
    // 127.0.0.1, open to every local user, who could dial our contacts-only contacts through it
    // with the client authorization we gave tor. It is a unix socket in tor's 0700 directory now;
    // a path with spaces or quotes is quoted as tor reads it (C escapes).
    void socksPortIsAUnixSocketInTorsPrivateDirectory() {
        TorLaunchConfig config;
        config.dataDirectory = QStringLiteral("/my data/\"x\"\\y");
        QVERIFY(TorLauncher::generateTorrc(config, 1).contains(
            QStringLiteral("\nSocksPort unix:\"/my data/\\\"x\\\"\\\\y/tor/socks.sock\" "
                           "IsolateSOCKSAuth OnionTrafficOnly ExtendedErrors\n")));
        QVERIFY(
            !TorLauncher::generateTorrc(config, 1).contains(QStringLiteral("SocksPort 127.0.0.1")));

        // A started launcher: the socket's directory is 0700, and the endpoint is known once tor
        // reports the listener the torrc named, and only that one.
        QTemporaryDir dir;
        ScriptedTorControl control;
        TorLauncher launcher(scriptedTorConfig(dir, std::chrono::seconds(30)));
        const QString socket = dir.filePath(QStringLiteral("tor/socks.sock"));
        control.socksListeners = "\"127.0.0.1:9999\" \"unix:/elsewhere/socks.sock\"";
        launcher.start();
        QTRY_VERIFY(control.commands.contains("GETINFO net/listeners/socks"));
        QTest::qWait(100);
        QCOMPARE(launcher.socksSocketPath(), QString());
        QCOMPARE(launcher.socksPort(), quint16(0));
        QFile torrc(dir.filePath(QStringLiteral("tor/torrc")));
        QVERIFY(torrc.open(QIODevice::ReadOnly));
        QVERIFY(
            torrc.readAll().contains("\nSocksPort unix:\"" + QFile::encodeName(socket) + "\" "));
        const auto notOwner = QFileDevice::ReadGroup | QFileDevice::WriteGroup |
                              QFileDevice::ExeGroup | QFileDevice::ReadOther |
                              QFileDevice::WriteOther | QFileDevice::ExeOther;
        QCOMPARE(QFile::permissions(dir.filePath(QStringLiteral("tor"))) & notOwner,
                 QFileDevice::Permissions());
        launcher.stop();
        control.socksListeners = "\"unix:" + QFile::encodeName(socket) + "\"";
        launcher.start();
        QTRY_COMPARE(launcher.socksSocketPath(), socket);
        QCOMPARE(launcher.socksPort(), quint16(0));
        launcher.stop();
    }

    // A data directory whose path is too long for a socket address: the socket goes into a
    // private temporary directory of the launcher's.
    void socksSocketOfALongDataDirectoryIsInAPrivateDirectory() {
        QTemporaryDir dir;
        const QString data = dir.filePath(QString(120, QLatin1Char('d')));
        QVERIFY(QDir().mkpath(data));
        TorLaunchConfig config = scriptedTorConfig(dir, std::chrono::seconds(30));
        config.dataDirectory = data;
        ScriptedTorControl control;
        TorLauncher launcher(config);
        launcher.start();
        QTRY_VERIFY(control.commands.contains("GETINFO net/listeners/socks"));
        QFile torrc(data + QStringLiteral("/tor/torrc"));
        QVERIFY(torrc.open(QIODevice::ReadOnly));
        const QByteArray text = torrc.readAll();
        const qsizetype at = text.indexOf("SocksPort unix:\"");
        QVERIFY(at >= 0);
        const QString path =
            QFile::decodeName(text.mid(at + 16, text.indexOf('"', at + 16) - at - 16));
        QVERIFY2(!path.startsWith(data) && path.endsWith(QStringLiteral("/socks.sock")),
                 qPrintable(path));
        QVERIFY(QFile::encodeName(path).size() <= 103);
        const QString socketDirectory = QFileInfo(path).absolutePath();
        QCOMPARE(QFile::permissions(socketDirectory),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                     QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser);
        launcher.stop();
    }
#endif

    void presetsStateTheirTradeOff() {
        QSet<QString> names, tradeoffs;
        for (auto preset : {SecurityPreset::Standard, SecurityPreset::MoreGuards,
                            SecurityPreset::OneWayHotline}) {
            const PresetDescription d = describePreset(preset);
            QVERIFY(!d.name.isEmpty());
            QVERIFY(d.tradeoff.endsWith(QLatin1Char('.')));
            names.insert(d.name);
            tradeoffs.insert(d.tradeoff);
        }
        QCOMPARE(names.size(), 3);
        QCOMPARE(tradeoffs.size(), 3);
        QVERIFY(describePreset(SecurityPreset::OneWayHotline)
                    .tradeoff.contains(QStringLiteral("not anonymous")));
        QVERIFY(clientTorrcLines(SecurityPreset::Standard).isEmpty());
        QCOMPARE(clientTorrcLines(SecurityPreset::MoreGuards),
                 (QStringList{QStringLiteral("NumEntryGuards 4"),
                              QStringLiteral("NumPrimaryGuards 4")}));
    }

    void readsTestNetworkOptions() {
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("client.torrc")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("TestingTorNetwork 1\nDirAuthority a orport=1 v3ident=X 127.0.0.1:2 Y\n");
        file.close();
        QCOMPARE(onionvoice::testnet::testNetworkTorrcLines(dir.path()),
                 (QStringList{QStringLiteral("TestingTorNetwork 1"),
                              QStringLiteral("DirAuthority a orport=1 v3ident=X 127.0.0.1:2 Y")}));
        QVERIFY(onionvoice::testnet::testNetworkTorrcLines(dir.filePath(QStringLiteral("missing")))
                    .isEmpty());
        QVERIFY(onionvoice::testnet::testNetworkTorrcLines(QString()).isEmpty());
        // The production library no longer reads a test network from the environment.
        qputenv("ONIONVOICE_TESTNET", dir.path().toLocal8Bit());
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        QVERIFY(
            !TorLauncher::generateTorrc(config, 1).contains(QStringLiteral("TestingTorNetwork")));
        qunsetenv("ONIONVOICE_TESTNET");
    }

    // Attack: an option value that carries a line break adds options of its own choosing (here
    // a second control port without authentication); '#' would cut a value short.
    void torrcInjectionIsRefused_data() {
        QTest::addColumn<QString>("dataDirectory");
        QTest::addColumn<QString>("extra");
        QTest::newRow("newline in option")
            << QString() << QStringLiteral("NumEntryGuards 4\nControlPort 127.0.0.1:9999");
        QTest::newRow("carriage return") << QString() << QStringLiteral("NumEntryGuards 4\rX 1");
        QTest::newRow("NUL") << QString() << (QStringLiteral("NumEntryGuards 4") + QChar(0));
        QTest::newRow("hash") << QString() << QStringLiteral("Nickname a#b");
        QTest::newRow("newline in path")
            << QStringLiteral("/tmp/x\nControlPort 9999") << QStringLiteral("NumEntryGuards 4");
        // tor joins the next line to a line ending in a backslash: a bridge line pasted with one
        // swallows whatever option follows it.
        QTest::newRow("trailing backslash")
            << QString() << QStringLiteral("Bridge obfs4 192.0.2.1:443 cert=x iat-mode=0\\");
    }
    void torrcInjectionIsRefused() {
        QFETCH(QString, dataDirectory);
        QFETCH(QString, extra);
        QTemporaryDir dir;
        TorLaunchConfig config;
        config.dataDirectory = dataDirectory.isEmpty() ? dir.path() : dataDirectory;
        config.extraTorrcLines = {extra};
        config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"), kControlPortTor);
        QVERIFY(TorLauncher::checkTorrcValues(config).has_value());
        TorLauncher launcher(config);
        launcher.start();
        QCOMPARE(launcher.state(), TorLauncher::State::Failed);
        QVERIFY(!QFile::exists(config.dataDirectory + QStringLiteral("/tor/torrc")));
    }

    // The lines added for a bundled tor carry paths of the directory tor was found in; a '#' in
    // that path would cut GeoIPFile short, so they are checked like every other torrc value.
    void bundledTorLinesAreChecked() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("bundle#1")));
        const QString bundle = dir.filePath(QStringLiteral("bundle#1"));
        QFile geoip(bundle + QStringLiteral("/geoip"));
        QVERIFY(geoip.open(QIODevice::WriteOnly));
        geoip.close();
        TorLaunchConfig config;
        config.dataDirectory = dir.filePath(QStringLiteral("data"));
        config.torExecutableSetting =
            writeScript(dir, QStringLiteral("bundle#1/fake-tor"), kControlPortTor);
        QVERIFY(!TorLauncher::checkTorrcValues(config).has_value());
        TorLauncher launcher(config);
        launcher.start();
        QCOMPARE(launcher.state(), TorLauncher::State::Failed);
        QVERIFY2(launcher.failureReason().contains(QStringLiteral("GeoIPFile")),
                 qPrintable(launcher.failureReason()));
        QVERIFY(!QFile::exists(config.dataDirectory + QStringLiteral("/tor/torrc")));
    }

    // Fault: tor splits a ClientTransportPlugin line at whitespace and knows no quoting; a bundle
    // under "C:\Program Files" had tor run "C:\Program" as the transport, and its bridges never
    // connected. tor now runs in its own directory, and the transport beside it is named relative
    // to it.
    void bundledTransportInAPathWithASpace() {
        QTemporaryDir dir;
        ScriptedTorControl control;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("with space")));
        const QString lyrebird =
            writeScript(dir, QStringLiteral("with space/lyrebird"), "exit 0\n");
        TorLaunchConfig config;
        config.dataDirectory = dir.filePath(QStringLiteral("data"));
        const QString cwdFile = config.dataDirectory + QStringLiteral("/tor/cwd");
        config.torExecutableSetting =
            writeScript(dir, QStringLiteral("with space/fake-tor"),
                        "[ \"$1\" = -f ] && pwd > \"$(dirname \"$2\")/cwd\"\n" + kControlPortTor);
        TorLauncher launcher(config);
        launcher.start();
        QTRY_VERIFY(QFile::exists(cwdFile));
        launcher.stop();

        QFile torrc(config.dataDirectory + QStringLiteral("/tor/torrc"));
        QVERIFY(torrc.open(QIODevice::ReadOnly));
        QStringList plugin;
        for (const QString& line : QString::fromUtf8(torrc.readAll()).split(QLatin1Char('\n')))
            if (line.startsWith(QStringLiteral("ClientTransportPlugin ")))
                plugin = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        // As tor reads it: transports, "exec", the executable, and no arguments.
        QCOMPARE(plugin.size(), 4);
        QCOMPARE(plugin.at(2), QStringLiteral("exec"));
        QFile cwd(cwdFile);
        QVERIFY(cwd.open(QIODevice::ReadOnly));
        const QString torCwd = QString::fromUtf8(cwd.readAll()).trimmed();
        QCOMPARE(QFileInfo(QDir(torCwd).filePath(plugin.at(3))).canonicalFilePath(),
                 QFileInfo(lyrebird).canonicalFilePath());
    }

    // A transport found elsewhere (GuiApp: PATH) whose path has a space gets no line tor would
    // run the first word of: the bundle's own plugin serves instead, or a warning says why.
    void transportWithASpaceElsewhereIsNotWritten() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("other place")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("bundle")));
        const QString elsewhere = writeScript(dir, QStringLiteral("other place/lyrebird"), {});
        const QString tor = writeScript(dir, QStringLiteral("bundle/tor"), {});
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("bridges of obfs4 cannot work")));
        QVERIFY(transportPluginLine(QStringLiteral("obfs4"), elsewhere, tor).isEmpty());
        writeScript(dir, QStringLiteral("bundle/lyrebird"), {});
        QTest::failOnWarning(QRegularExpression(QStringLiteral("cannot work")));
        QVERIFY(transportPluginLine(QStringLiteral("obfs4"), elsewhere, tor).isEmpty());
        QCOMPARE(
            bundledTorrcLines(tor),
            QStringList{QStringLiteral("ClientTransportPlugin obfs4,meek_lite,webtunnel exec %1")
                            .arg(dir.filePath(QStringLiteral("bundle/lyrebird")))});
        const QString plain = writeScript(dir, QStringLiteral("snowflake-client"), {});
        QCOMPARE(transportPluginLine(QStringLiteral("snowflake"), plain, tor),
                 QStringLiteral("ClientTransportPlugin snowflake exec %1").arg(plain));
    }

    void findsTorFromSettingThenEnvironment() {
        QTemporaryDir dir;
        const QString fromSetting = writeScript(dir, QStringLiteral("tor-a"), "exit 0\n");
        const QString fromEnv = writeScript(dir, QStringLiteral("tor-b"), "exit 0\n");
        qputenv("ONIONVOICE_TOR", fromEnv.toLocal8Bit());
        QStringList searched;
        QCOMPARE(TorLauncher::findTor(fromSetting, &searched), std::optional<QString>(fromSetting));
        QCOMPARE(TorLauncher::findTor(dir.filePath(QStringLiteral("missing")), &searched),
                 std::optional<QString>(fromEnv));
        qunsetenv("ONIONVOICE_TOR");
        searched.clear();
        const auto fromPath = TorLauncher::findTor(QString(), &searched);
        QVERIFY(searched.contains(QStringLiteral("PATH")));
        QVERIFY(!fromPath || QFileInfo(*fromPath).isExecutable());
    }

    // Fault: the tor beside the executable came first, so the tor the user chose (Settings,
    // `--tor`) was never run where a bundled one exists: `--tor /bin/false` in the CLI tests
    // started the bundled tor, which went out to the public Tor network.
    void theChosenTorWinsOverTheBundledOne() {
        QTemporaryDir bundle;
        QTemporaryDir chosenDir;
        const QString bundled = writeScript(bundle, QStringLiteral("tor"), "exit 0\n");
        const QString chosen = writeScript(chosenDir, QStringLiteral("my-tor"), "exit 0\n");
        QStringList searched;
        QCOMPARE(TorLauncher::findTor(chosen, &searched, bundle.path()),
                 std::optional<QString>(chosen));
        QCOMPARE(TorLauncher::findTor(QString(), &searched, bundle.path()),
                 std::optional<QString>(bundled));
    }

    void refusesOldTor() {
        QTemporaryDir dir;
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        config.torExecutableSetting =
            writeScript(dir, QStringLiteral("fake-tor"), "echo 'Tor version 0.4.7.16.'\n");
        TorLauncher launcher(config);
        launcher.start();
        QCOMPARE(launcher.state(), TorLauncher::State::Failed);
        QVERIFY2(launcher.failureReason().contains(QStringLiteral("needs tor 0.4.8.0 or newer")),
                 qPrintable(launcher.failureReason()));
    }

    void refusesSomethingThatIsNotTor() {
        QTemporaryDir dir;
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"), "echo hello\n");
        TorLauncher launcher(config);
        launcher.start();
        QCOMPARE(launcher.state(), TorLauncher::State::Failed);
        QVERIFY(launcher.failureReason().contains(QStringLiteral("did not report a tor version")));
    }

    void handshakeAndBootstrapOverTheControlPort() {
        QTemporaryDir dir;
        ScriptedTorControl control;
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"), kControlPortTor);
        TorLauncher launcher(config);
        QSignalSpy bootstrap(&launcher, &TorLauncher::bootstrapChanged);
        launcher.start();
        QTRY_COMPARE(launcher.state(), TorLauncher::State::Bootstrapping);
        QTRY_COMPARE(control.commands.size(), 6);
        QVERIFY(control.commands.at(0).startsWith("AUTHCHALLENGE SAFECOOKIE "));
        QVERIFY(control.commands.at(1).startsWith("AUTHENTICATE "));
        QCOMPARE(control.commands.at(2), QByteArray("TAKEOWNERSHIP"));
        QVERIFY(control.commands.at(3).startsWith("SETEVENTS STATUS_CLIENT"));
#ifdef Q_OS_WIN
        QCOMPARE(launcher.socksPort(), quint16(9999));
#else
        QCOMPARE(launcher.socksPort(), quint16(0)); // a TCP listener is not ours: we asked for none
#endif

        // A tag this version does not know is shown as it is, not treated as an error.
        control.peer->write("650 STATUS_CLIENT NOTICE BOOTSTRAP PROGRESS=42 TAG=quantum_handshake "
                            "SUMMARY=\"Doing something new\"\r\n");
        QTRY_COMPARE(launcher.bootstrap().percent, 42);
        QCOMPARE(launcher.bootstrap().tag, QStringLiteral("quantum_handshake"));
        QCOMPARE(launcher.bootstrap().summary, QStringLiteral("Doing something new"));
        QCOMPARE(launcher.state(), TorLauncher::State::Bootstrapping);
        control.peer->write("650 STATUS_CLIENT NOTICE CIRCUIT_ESTABLISHED\r\n"
                            "650 STATUS_CLIENT NOTICE BOOTSTRAP PROGRESS=100 TAG=done "
                            "SUMMARY=\"Done\"\r\n");
        QTRY_COMPARE(launcher.state(), TorLauncher::State::Ready);
        QCOMPARE(bootstrap.size(), 3);

        const qint64 pid = launcher.processId();
        launcher.stop();
        QVERIFY(!processAlive(pid));
    }

    void refusedAuthenticationFailsWithReason() {
        ScriptedTorControl control;
        control.refuseAuthentication = true;
        const QString reason = failureAgainst(control);
        QVERIFY2(reason.contains(QStringLiteral("refused authentication")), qPrintable(reason));
    }

    // Attack: another local program answers on the control port (it wrote the port file, or took
    // the port). Before the fix the launcher sent it the cookie itself (COOKIE authentication);
    // now the impostor must prove it knows the cookie first, fails, and learns nothing.
    void controlPortImpostorLearnsNoCookie() {
        ScriptedTorControl control;
        control.impostor = true;
        const QString reason = failureAgainst(control);
        QVERIFY2(reason.contains(QStringLiteral("SAFECOOKIE")), qPrintable(reason));
        for (const QByteArray& command : control.commands) {
            QVERIFY(!command.contains(QByteArray(32, '\0').toHex()));
            QVERIFY(!command.startsWith("AUTHENTICATE"));
        }
    }

    void garbageOnTheControlPortRestartsTor() {
        QTemporaryDir dir;
        ScriptedTorControl control;
        TorLauncher launcher(scriptedTorConfig(dir, std::chrono::milliseconds(10)));
        QSignalSpy restarts(&launcher, &TorLauncher::restarting);
        launcher.start();
        QTRY_COMPARE(launcher.state(), TorLauncher::State::Bootstrapping);
        const qint64 pid = launcher.processId();
        control.peer->write(QByteArray(100, '\x7f') + "\r\n");
        QTRY_COMPARE(restarts.size(), 1);
        QVERIFY(!processAlive(pid));
        QTRY_COMPARE(launcher.state(), TorLauncher::State::Bootstrapping);
        launcher.stop();
    }

    // Attack: once tor has died, anyone on this machine may bind the port it listened on (a TCP
    // port, on Windows; where tor's SOCKS port is a unix socket, only in our 0700 directory). A
    // call that kept dialling the dead tor's SOCKS endpoint while a new tor starts would hand them
    // the peer's onion address; the old code kept reporting that port until the new tor answered.
    // The endpoint is forgotten the moment tor dies, until the next tor reports its own.
    void aDeadTorsSocksPortIsForgotten() {
        QTemporaryDir dir;
        ScriptedTorControl control;
        TorLauncher launcher(scriptedTorConfig(dir, std::chrono::seconds(30)));
#ifdef Q_OS_WIN
        const auto endpoint = [&] {
            return QString::number(launcher.socksPort());
        };
        const QString known = QStringLiteral("9999"), forgotten = QStringLiteral("0");
#else
        const auto endpoint = [&] {
            return launcher.socksSocketPath();
        };
        const QString known = dir.filePath(QStringLiteral("tor/socks.sock")), forgotten;
        control.socksListeners = "\"unix:" + QFile::encodeName(known) + "\"";
#endif
        QSignalSpy restarts(&launcher, &TorLauncher::restarting);
        launcher.start();
        QTRY_COMPARE(endpoint(), known);
        ::kill(pid_t(launcher.processId()), SIGKILL);
        QTRY_COMPARE(restarts.size(), 1);
        QCOMPARE(endpoint(), forgotten);
        launcher.stop();
        QCOMPARE(endpoint(), forgotten);

        launcher.start();
        QTRY_COMPARE(endpoint(), known);
        launcher.stop();
        QCOMPARE(endpoint(), forgotten);
    }

    void torThatCannotBeExecutedFailsWithReason() {
        QTemporaryDir dir;
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        // Answers --version, then removes itself: starting it for real fails.
        config.torExecutableSetting = writeScript(dir, QStringLiteral("fake-tor"),
                                                  "echo 'Tor version 0.4.9.11.'\nrm -f \"$0\"\n");
        config.maxConsecutiveFailures = 1;
        config.restartBackoff = std::chrono::milliseconds(10);
        TorLauncher launcher(config);
        launcher.start();
        QTRY_COMPARE(launcher.state(), TorLauncher::State::Failed);
        QVERIFY2(launcher.failureReason().contains(QStringLiteral("could not be started")),
                 qPrintable(launcher.failureReason()));
    }

    void givesUpAfterRepeatedDeaths() {
        QTemporaryDir dir;
        TorLaunchConfig config;
        config.dataDirectory = dir.path();
        config.torExecutableSetting = writeScript(
            dir, QStringLiteral("fake-tor"),
            "if [ \"$1\" = --version ]; then echo 'Tor version 0.4.9.11.'; exit 0; fi\n"
            "echo '[err] Could not bind to 127.0.0.1:9050: Address already in use'\nexit 1\n");
        config.maxConsecutiveFailures = 3;
        config.restartBackoff = std::chrono::milliseconds(10);
        TorLauncher launcher(config);
        QSignalSpy restarts(&launcher, &TorLauncher::restarting);
        launcher.start();
        QTRY_COMPARE_WITH_TIMEOUT(launcher.state(), TorLauncher::State::Failed, 20000);
        QCOMPARE(restarts.size(), 3);
        QCOMPARE(restarts.at(0).at(0).toInt(), 1);
        QCOMPARE(restarts.at(2).at(0).toInt(), 3);
        QVERIFY2(launcher.failureReason().contains(QStringLiteral("failed 4 times in a row")),
                 qPrintable(launcher.failureReason()));
        QVERIFY2(launcher.failureReason().contains(QStringLiteral("Address already in use")),
                 qPrintable(launcher.failureReason()));
        QFile torrc(dir.filePath(QStringLiteral("tor/torrc")));
        QCOMPARE(torrc.permissions() & (QFileDevice::ReadOther | QFileDevice::ReadGroup),
                 QFileDevice::Permissions());
    }
};

QTEST_GUILESS_MAIN(TestTorLauncher)
#include "tst_torlauncher.moc"
