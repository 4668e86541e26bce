// Unit tests of TorLauncher's choices before any tor runs: version parsing, the torrc it writes
// (required options, presets, the test network's options, values that would inject lines, the
// bundled tor's lines and transports), and which tor it finds and accepts (stand-in scripts that
// only answer --version). Starting, stopping and losing a tor are tst_torlifecycle's.
#include "../testnet/TestnetEnv.h"
#include "ScriptedTor.h"
#include "tor/BundledTor.h"
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace onionvoice::tor;
using namespace onionvoice::tor::testing;

class TestTorLauncher : public QObject {
    Q_OBJECT
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
};

QTEST_GUILESS_MAIN(TestTorLauncher)
#include "tst_torlauncher.moc"
