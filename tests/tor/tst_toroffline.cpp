// Integration tests of TorLauncher, TorController and OnionService against a real tor process
// running with DisableNetwork 1: authentication, ownership, restarts (after a kill, or a tor
// stopped before it answers), and the onion addresses tor answers to ADD_ONION (fresh keys, the
// fixed test vector, client authorization), and the hotline's key files gone with its tor.
#include "tor/ClientAuthKey.h"
#include "tor/HotlineService.h"
#include "tor/OnionService.h"
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

using namespace onionvoice::tor;

namespace {

bool processAlive(qint64 pid) {
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

// A tor with no network (and no GeoIP files to load) in `data`, restarted quickly when it dies.
TorLaunchConfig offlineConfig(const QString& data) {
    TorLaunchConfig config;
    config.dataDirectory = data;
    config.extraTorrcLines = {QStringLiteral("DisableNetwork 1"), QStringLiteral("GeoIPFile "),
                              QStringLiteral("GeoIPv6File ")};
    config.restartBackoff = std::chrono::milliseconds(50);
    return config;
}

// The launcher replaced the stopped tor for `why` (the first restart) and started a new one.
void verifyReplaced(TorLauncher& launcher, const QSignalSpy& restarts, qint64 stopped,
                    const QString& why) {
    QTRY_COMPARE_WITH_TIMEOUT(restarts.size(), 1, 30000);
    QVERIFY2(restarts.at(0).at(1).toString().contains(why),
             qPrintable(restarts.at(0).at(1).toString()));
    QTRY_VERIFY_WITH_TIMEOUT(!processAlive(stopped), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(launcher.state(), TorLauncher::State::Bootstrapping, 30000);
    QVERIFY(launcher.processId() != stopped);
}

OnionIdentity vectorIdentity() {
    std::array<std::uint8_t, 32> seed{};
    for (std::size_t i = 0; i < seed.size(); ++i)
        seed[i] = std::uint8_t(i);
    return OnionIdentity::fromSeed(seed);
}

} // namespace

class TestTorOffline : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir;
    std::unique_ptr<TorLauncher> launcher;

    // Published with a unix-socket target, as the engine does (tor checks the syntax at once).
    bool publishes(OnionIdentity identity, QList<QByteArray> clientAuth = {}) {
        const QByteArray target = "unix:" + QFile::encodeName(dir.filePath("links.sock"));
        OnionService service(launcher.get(), std::move(identity),
                             {80, target, std::move(clientAuth)});
        return publishes(service);
    }

    bool publishes(OnionService& service) {
        service.publish();
        const bool answered = QTest::qWaitFor(
            [&] { return service.state() != OnionService::State::Publishing; }, 10000);
        if (!answered || service.state() != OnionService::State::Published)
            qWarning() << "publishing failed:" << service.failureReason();
        return service.state() == OnionService::State::Published;
    }

    OnionService::Config contactsOnly(QList<QByteArray> clientAuth) {
        OnionService::Config config{80, "unix:" + QFile::encodeName(dir.filePath("links.sock")),
                                    std::move(clientAuth)};
        config.access = OnionService::Access::ClientAuthOnly;
        return config;
    }

    // A contacts-only service published with the keys of contacts a and b, then republished with
    // a's key alone (b removed or blocked) before tor has answered.
    std::unique_ptr<OnionService> republishedWithout(const OnionIdentity& identity,
                                                     const QByteArray& a, const QByteArray& b) {
        auto service =
            std::make_unique<OnionService>(launcher.get(), identity, contactsOnly({a, b}));
        if (!publishes(*service))
            return nullptr;
        service->setClientAuthPublicKeys({a});
        return service;
    }

    // The services this control connection holds, once tor has run every command sent before;
    // nothing if tor did not answer.
    std::optional<QByteArray> onionsInTor() {
        std::optional<TorReply> reply;
        launcher->controller()->send("GETINFO onions/current",
                                     [&](const TorReply& r) { reply = r; });
        if (!QTest::qWaitFor([&] { return reply.has_value(); }, 10000) || !reply->isOk())
            return std::nullopt;
        return reply->value("onions/current");
    }

    // Whether tor --verify-config accepts the torrc; nothing when tor did not run to its end.
    static std::optional<bool> verifiedByTor(const TorLaunchConfig& config,
                                             const QTemporaryDir& data) {
        QDir().mkpath(config.dataDirectory + QStringLiteral("/tor"));
        QFile torrc(data.filePath(QStringLiteral("torrc")));
        QFile defaults(data.filePath(QStringLiteral("defaults")));
        if (!torrc.open(QIODevice::WriteOnly) || !defaults.open(QIODevice::WriteOnly))
            return std::nullopt;
        torrc.write(
            TorLauncher::generateTorrc(config, QCoreApplication::applicationPid()).toUtf8());
        torrc.close();
        defaults.close();
        QStringList searched;
        QProcess tor;
        tor.start(TorLauncher::findTor(QString(), &searched).value_or(QStringLiteral("tor")),
                  {QStringLiteral("--verify-config"), QStringLiteral("-f"), torrc.fileName(),
                   QStringLiteral("--defaults-torrc"), defaults.fileName()});
        // A tor that never started (or never finished) also reads as exit code 0, and as a
        // refusal where a refusal is expected: only a tor that ran to its end answers.
        if (!tor.waitForFinished(30000) || tor.error() != QProcess::UnknownError) {
            qWarning().noquote() << "tor --verify-config did not run:" << tor.errorString();
            return std::nullopt;
        }
        if (tor.exitCode() != 0)
            qWarning().noquote() << tor.readAll();
        return tor.exitStatus() == QProcess::NormalExit && tor.exitCode() == 0;
    }

private slots:
    void initTestCase() {
        launcher = std::make_unique<TorLauncher>(offlineConfig(dir.path()));
        launcher->start();
        QTRY_COMPARE_WITH_TIMEOUT(launcher->state(), TorLauncher::State::Bootstrapping, 30000);
        QCOMPARE(launcher->bootstrap().tag, QStringLiteral("starting"));
    }

    // Pitfall 4 of the test-network notes: guard options cannot be checked by latency on a tiny
    // network, so every preset's generated torrc is checked by tor itself.
    void presetTorrcsAreAcceptedByTor_data() {
        QTest::addColumn<int>("preset");
        QTest::newRow("standard") << int(SecurityPreset::Standard);
        QTest::newRow("more guards") << int(SecurityPreset::MoreGuards);
        QTest::newRow("one-way hotline") << int(SecurityPreset::OneWayHotline);
    }

    void presetTorrcsAreAcceptedByTor() {
        QFETCH(int, preset);
        QTemporaryDir data;
        TorLaunchConfig config;
        config.dataDirectory = data.path();
        config.extraTorrcLines = clientTorrcLines(SecurityPreset(preset));
        QVERIFY(verifiedByTor(config, data) == true);
        if (SecurityPreset(preset) != SecurityPreset::OneWayHotline)
            return;
        // The hotline's own instance: no SOCKS port, the service in its torrc.
        const QString serviceDir = data.filePath(QStringLiteral("hotline-service"));
        QString error;
        QVERIFY2(
            HotlineService::writeServiceDirectory(serviceDir, OnionIdentity::generate(), &error),
            qPrintable(error));
        QCOMPARE(QFile::permissions(serviceDir + QStringLiteral("/hs_ed25519_secret_key")),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                     QFileDevice::WriteUser);
        config.socksMode = TorLaunchConfig::SocksMode::Disabled;
        config.extraTorrcLines = HotlineService::torrcLines(
            serviceDir, 80,
            "unix:" + QFile::encodeName(data.filePath(QStringLiteral("link.sock"))));
        QVERIFY(verifiedByTor(config, data) == true);
    }

#ifndef Q_OS_WIN
    // tor's SOCKS port is a unix socket in tor's 0700 directory; tor reads the quoted path of a
    // data directory with spaces and quotes in it (C escapes) as the path itself.
    void unixSocksPortIsAcceptedByTor() {
        QTemporaryDir data;
        TorLaunchConfig config;
        config.dataDirectory = data.filePath(QStringLiteral("with space \"and\" quotes"));
        QVERIFY(QDir().mkpath(config.dataDirectory + QStringLiteral("/tor")));
        QVERIFY(QFile::setPermissions(config.dataDirectory + QStringLiteral("/tor"),
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner));
        const QString torrc = TorLauncher::generateTorrc(config, 1);
        QVERIFY(torrc.contains(QStringLiteral("\nSocksPort unix:\"")));
        QVERIFY(torrc.contains(QStringLiteral("/with space \\\"and\\\" quotes/tor/socks.sock\"")));
        QVERIFY(verifiedByTor(config, data) == true);
    }
#endif

    void invalidTorrcIsRefusedByTor() {
        QTemporaryDir data;
        TorLaunchConfig config;
        config.dataDirectory = data.path();
        config.extraTorrcLines = {QStringLiteral("NumEntryGuards lots")};
        QVERIFY(verifiedByTor(config, data) == false); // refused by a tor that ran
    }

    void controllerTalksToRealTor() {
        QList<TorReply> replies;
        auto record = [&](const TorReply& r) {
            replies.append(r);
        };
        launcher->controller()->send("GETINFO version config-file", record);
        launcher->controller()->send("GETINFO no-such-key", record);
        launcher->controller()->send("GETINFO config-text", record);
        QTRY_COMPARE(replies.size(), 3);
        QVERIFY(replies.at(0).value("version").startsWith("0.4."));
        QCOMPARE(replies.at(1).kind(), TorReply::Kind::CommandError);
        QCOMPARE(replies.at(1).code(), 552);
        QVERIFY(replies.at(2).value("config-text").contains("IsolateSOCKSAuth"));
    }

    void fixedVectorMatchesTor() {
        QVERIFY(publishes(vectorIdentity()));
    }

    void freshIdentitiesMatchTor() {
        for (int i = 0; i < 8; ++i)
            QVERIFY(publishes(OnionIdentity::generate()));
    }

    void serviceGoneBeforeTheReplyIsHarmless() {
        {
            OnionService service(launcher.get(), OnionIdentity::generate(),
                                 {80, "127.0.0.1:1", {}});
            service.publish();
        }
        QVERIFY(publishes(OnionIdentity::generate()));
    }

    void clientAuthorizationIsAccepted() {
        const ClientAuthKey key = ClientAuthKey::generate();
        const OnionIdentity identity = OnionIdentity::generate();
        QVERIFY(publishes(identity, {key.publicKeyBase32()}));
        std::optional<TorReply> reply;
        addClientAuthorization(launcher->controller(), identity.address(), key,
                               [&](const TorReply& r) { reply = r; });
        QTRY_VERIFY(reply.has_value());
        QVERIFY2(reply->isOk(), qPrintable(reply->errorMessage()));
        QVERIFY(!publishes(OnionIdentity::generate(), {"not-a-key"}));
    }

    // Renaming a contact removes and adds its key: two key changes before tor has answered the
    // first republication. The last ADD_ONION must win; tor refuses an ADD_ONION for a service it
    // still holds (550 collision), so Published (set by the newest ADD_ONION's reply only) means
    // the service tor holds is the one with the newest keys.
    void twoKeyChangesInARowPublishTheNewestKeys() {
        const QByteArray a = ClientAuthKey::generate().publicKeyBase32();
        const QByteArray b = ClientAuthKey::generate().publicKeyBase32();
        const OnionIdentity identity = OnionIdentity::generate();
        const auto service = republishedWithout(identity, a, b);
        QVERIFY(service);
        service->setClientAuthPublicKeys({a, b});
        QVERIFY(QTest::qWaitFor([&] { return service->state() != OnionService::State::Publishing; },
                                10000));
        QVERIFY2(service->state() == OnionService::State::Published,
                 qPrintable(service->failureReason()));
        const std::optional<QByteArray> onions = onionsInTor();
        QVERIFY(onions.has_value());
        QCOMPARE(onions->count(identity.address().toLatin1()), 1);
    }

    // Attack: two contacts blocked within one ADD_ONION round trip. The service must be gone from
    // tor, not only reported Withheld: with the old keys live a blocked contact still gets in.
    void withdrawnServiceIsGoneFromTor() {
        const QByteArray a = ClientAuthKey::generate().publicKeyBase32();
        const QByteArray b = ClientAuthKey::generate().publicKeyBase32();
        const OnionIdentity identity = OnionIdentity::generate();
        const auto service = republishedWithout(identity, a, b);
        QVERIFY(service);
        service->setClientAuthPublicKeys({});
        QCOMPARE(service->state(), OnionService::State::Withheld);
        const std::optional<QByteArray> onions = onionsInTor();
        QVERIFY(onions.has_value());
        QVERIFY2(!onions->contains(identity.address().toLatin1()),
                 "the withdrawn service is still live in tor, with a's key");
    }

    void closingTheControlConnectionEndsTor() {
        const qint64 pid = launcher->processId();
        QSignalSpy restarts(launcher.get(), &TorLauncher::restarting);
        launcher->controller()->disconnectFromTor();
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(launcher->state(), TorLauncher::State::Bootstrapping, 30000);
        QVERIFY(launcher->processId() != pid);
        QCOMPARE(restarts.size(), 1);
    }

    void restartsAfterKillAndPublishesAgain() {
        const qint64 pid = launcher->processId();
        QSignalSpy restarts(launcher.get(), &TorLauncher::restarting);
        ::kill(pid_t(pid), SIGKILL);
        QTRY_COMPARE_WITH_TIMEOUT(restarts.size(), 1, 10000);
        QVERIFY(restarts.at(0).at(1).toString().contains(QStringLiteral("killed")));
        QTRY_COMPARE_WITH_TIMEOUT(launcher->state(), TorLauncher::State::Bootstrapping, 30000);
        QVERIFY(processAlive(launcher->processId()));
        QVERIFY(publishes(vectorIdentity()));
    }

    // Fault, with a real tor: tor stops (SIGSTOP, as a debugger or a frozen process would) after
    // it has opened its control port and before it answers. The kernel still completes our
    // connection, so nothing fails; the old launcher waited in Starting for ever.
    void aTorStoppedBeforeItAnswersIsRestarted() {
        QTemporaryDir data;
        TorLaunchConfig config = offlineConfig(data.path());
        config.startTimeout = std::chrono::milliseconds(4000);
        TorLauncher stalled(config);
        qint64 stopped = 0;
        connect(stalled.controller(), &TorController::stateChanged, this,
                [&](TorController::State state) {
                    if (state == TorController::State::Connecting && stopped == 0) {
                        stopped = stalled.processId();
                        ::kill(pid_t(stopped), SIGSTOP);
                    }
                });
        QSignalSpy restarts(&stalled, &TorLauncher::restarting);
        stalled.start();
        verifyReplaced(stalled, restarts, stopped, QStringLiteral("did not answer"));
    }

    // Fault, with a real tor: tor stops (SIGSTOP) after it has started and taken our commands.
    // The old launcher kept it Bootstrapping for ever, every dial through it hanging; now it
    // owes a heartbeat's reply, stays silent through the reply timeout, and is replaced.
    void aTorThatFreezesOnceStartedIsRestarted() {
        QTemporaryDir data;
        TorLaunchConfig config = offlineConfig(data.path());
        config.heartbeatInterval = std::chrono::milliseconds(500);
        config.replyTimeout = std::chrono::milliseconds(3000);
        TorLauncher frozen(config);
        QSignalSpy restarts(&frozen, &TorLauncher::restarting);
        frozen.start();
        QTRY_COMPARE_WITH_TIMEOUT(frozen.state(), TorLauncher::State::Bootstrapping, 30000);
        QTest::qWait(2000); // heartbeats answered: a live tor is left alone
        QVERIFY(restarts.isEmpty());
        const qint64 stopped = frozen.processId();
        ::kill(pid_t(stopped), SIGSTOP);
        verifyReplaced(frozen, restarts, stopped, QStringLiteral("stopped answering"));
    }

    // Fault (a review found it): the hotline writes the identity's secret key where its tor
    // reads it, and the copy stayed for good: after the user left the hotline, and after
    // identity.key itself was deleted for a fresh identity. It is there only while the hotline's
    // tor runs.
    void theHotlinesCopyOfTheKeyGoesWithIt() {
        QTemporaryDir data;
        HotlineService::Config config;
        config.dataDirectory = data.filePath(QStringLiteral("hotline"));
        config.virtualPort = 80;
        config.target = "unix:" + QFile::encodeName(data.filePath(QStringLiteral("link.sock")));
        config.extraTorrcLines = offlineConfig(config.dataDirectory).extraTorrcLines;
        HotlineService hotline(OnionIdentity::generate(), config);
        const QString secret = HotlineService::serviceDirectoryIn(config.dataDirectory) +
                               QStringLiteral("/hs_ed25519_secret_key");
        hotline.start();
        QTRY_VERIFY_WITH_TIMEOUT(hotline.launcher() && hotline.launcher()->state() ==
                                                           TorLauncher::State::Bootstrapping,
                                 30000);
        QVERIFY(QFile::exists(secret));
        const qint64 pid = hotline.launcher()->processId();
        hotline.stop();
        QVERIFY(!processAlive(pid));
        QVERIFY(!QFile::exists(secret));
    }

    void stopLeavesNoProcess() {
        const qint64 pid = launcher->processId();
        QVERIFY(processAlive(pid));
        launcher->stop();
        QCOMPARE(launcher->state(), TorLauncher::State::NotStarted);
        QVERIFY(!processAlive(pid));
        launcher->start();
        QTRY_COMPARE_WITH_TIMEOUT(launcher->state(), TorLauncher::State::Bootstrapping, 30000);
        const qint64 second = launcher->processId();
        launcher.reset();
        QVERIFY(!processAlive(second));
    }
};

QTEST_GUILESS_MAIN(TestTorOffline)
#include "tst_toroffline.moc"
