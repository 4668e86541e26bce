// Unit tests of TorLauncher with stand-in tor executables (shell scripts): discovery, version
// check, torrc contents, and giving up with a reason after repeated failures.
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

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

} // namespace

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
              "SocksPort 127.0.0.1:auto IsolateSOCKSAuth OnionTrafficOnly ExtendedErrors",
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
