// Acceptance test of the Tor and link layers on the private network: two app tors bootstrap,
// one publishes an identity that becomes reachable, the other opens 12 isolated links to it
// (12 distinct rendezvous circuits), records flow both ways, and after the publisher's tor is
// killed the launcher restarts it, republishes, and links open again. Prints a JSON timing and
// memory report (also written to testnet-report.json in the working directory).
#include "TestnetEnv.h"
#include "net/LinkListener.h"
#include "net/LinkPool.h"
#include "tor/OnionService.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSignalSpy>
#include <QtTest>
#include <csignal>
#include <optional>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kRecord = 498;
constexpr quint16 kVirtualPort = 5060;
constexpr int kLinks = 12;
constexpr int kTimeout = 120000;
// After the callee's tor was killed and restarted, new links sometimes waited for about a minute
// (about 1 run in 10 here), and once (a CI rehearsal at stop 40) for the whole 240 s: the caller's
// tor gets INTRODUCE_ACK from the introduction points of the descriptor it cached before the
// restart, and no rendezvous follows. That is the stuck state the engine purges
// (call::RelinkRescue, "the third form"); a pool alone does not, so the test purges the caller's
// tor as the engine would before it opens the new pool.
constexpr int kRelinkTimeout = 240000;

bool processAlive(qint64 pid) {
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

QByteArray recordFor(int slot, char round) {
    QByteArray r(kRecord, char(slot));
    r[0] = round;
    return r;
}

QByteArray answerTo(const QByteArray& record) {
    QByteArray a = record;
    std::reverse(a.begin(), a.end());
    return a;
}

std::span<const std::uint8_t> bytes(const QByteArray& b) {
    return {reinterpret_cast<const std::uint8_t*>(b.constData()), std::size_t(b.size())};
}

double seconds(qint64 ms) {
    return double(ms) / 1000.0;
}

} // namespace

class TestTestnetLinks : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<tor::TorLauncher> callee;
    std::unique_ptr<tor::TorLauncher> caller;
    std::unique_ptr<net::LinkListener> listener;
    std::unique_ptr<tor::OnionService> service;
    std::unique_ptr<net::LinkPool> pool;
    QJsonObject report;
    QList<qint64> appTorPids;

    // Each slot sends one record; the callee answers each record on the link it came in on.
    void exchangeOnEveryLink(char round) {
        QMap<int, QByteArray> answers;
        auto connection =
            connect(pool.get(), &net::LinkPool::recordReceived, this,
                    [&](std::uint8_t slot, const QByteArray& r) { answers[slot] = r; });
        for (int slot = 0; slot < kLinks; ++slot)
            QVERIFY(pool->sendRecord(std::uint8_t(slot), bytes(recordFor(slot, round))));
        QTRY_COMPARE_WITH_TIMEOUT(answers.size(), kLinks, 30000);
        disconnect(connection);
        for (int slot = 0; slot < kLinks; ++slot)
            QCOMPARE(answers.value(slot), answerTo(recordFor(slot, round)));
    }

    QList<QByteArray> getInfoLines(const QByteArray& key) {
        std::optional<tor::TorReply> reply;
        caller->controller()->send("GETINFO " + key, [&](const tor::TorReply& r) { reply = r; });
        if (!QTest::qWaitFor([&] { return reply.has_value(); }, 10000) || !reply->isOk())
            return {};
        return reply->value(key).split('\n');
    }

    void openAllLinks(const char* firstKey, const char* allKey, int timeout) {
        QElapsedTimer timer;
        timer.start();
        qint64 firstLink = -1;
        auto connection = connect(pool.get(), &net::LinkPool::linkUp, this, [&](std::uint8_t) {
            if (firstLink < 0)
                firstLink = timer.elapsed();
        });
        QTRY_COMPARE_WITH_TIMEOUT(pool->openCount(), kLinks, timeout);
        disconnect(connection);
        report.insert(QLatin1String(firstKey), seconds(firstLink));
        report.insert(QLatin1String(allKey), seconds(timer.elapsed()));
    }

private slots:
    void initTestCase() {
        testnet::dieWithParent();
        QVERIFY2(!testnet::clientTorrcLines().isEmpty(),
                 "no private network: run through ctest, or start tests/testnet/testnet.py up DIR "
                 "and set ONIONVOICE_TESTNET=DIR");
        listener = std::make_unique<net::LinkListener>(kRecord);
        QVERIFY(listener->listen());
        connect(listener.get(), &net::LinkListener::linkAccepted, this, [](net::OnionLink* link) {
            connect(link, &net::OnionLink::recordReceived, link,
                    [link](const QByteArray& r) { link->sendRecord(bytes(answerTo(r))); });
        });
    }

    void bootstrapBothLaunchers() {
        callee =
            std::make_unique<tor::TorLauncher>(testnet::clientConfig(QStringLiteral("callee")));
        caller =
            std::make_unique<tor::TorLauncher>(testnet::clientConfig(QStringLiteral("caller")));
        QElapsedTimer timer;
        timer.start();
        callee->start();
        caller->start();
        qint64 calleeReady = -1, callerReady = -1;
        QVERIFY(QTest::qWaitFor(
            [&] {
                if (calleeReady < 0 && callee->state() == tor::TorLauncher::State::Ready)
                    calleeReady = timer.elapsed();
                if (callerReady < 0 && caller->state() == tor::TorLauncher::State::Ready)
                    callerReady = timer.elapsed();
                return calleeReady >= 0 && callerReady >= 0;
            },
            kTimeout));
        QCOMPARE(callee->bootstrap().percent, 100);
        QVERIFY(!caller->socksSocketPath().isEmpty() || caller->socksPort() != 0);
        report.insert(QStringLiteral("bootstrap_s"),
                      QJsonObject{{QStringLiteral("callee"), seconds(calleeReady)},
                                  {QStringLiteral("caller"), seconds(callerReady)}});
        appTorPids = {callee->processId(), caller->processId()};
    }

    void publishAndBecomeReachable() {
        QElapsedTimer timer;
        timer.start();
        service = std::make_unique<tor::OnionService>(
            callee.get(), tor::OnionIdentity::generate(),
            tor::OnionService::Config{kVirtualPort, listener->torTarget(), {}});
        QTRY_COMPARE_WITH_TIMEOUT(service->state(), tor::OnionService::State::Reachable, kTimeout);
        report.insert(QStringLiteral("publish_s"), seconds(timer.elapsed()));
        // Reachable means one HSDir has the descriptor; links are timed once all of them have it.
        QTRY_VERIFY_WITH_TIMEOUT(service->uploads().allSettled(), kTimeout);
        report.insert(QStringLiteral("publish_all_hsdirs_s"), seconds(timer.elapsed()));
    }

    void openTwelveIsolatedLinks() {
        net::LinkPoolConfig config;
        config.socks = {caller->socksSocketPath(), caller->socksPort()};
        config.onionAddress = service->address();
        config.port = kVirtualPort;
        config.links = kLinks;
        config.recordSize = kRecord;
        config.connectTimeout = 15s;
        pool = std::make_unique<net::LinkPool>(config);
        pool->start();
        openAllLinks("first_link_s", "all_links_s", kTimeout);
    }

    // Each of the 12 streams to the service rides its own circuit, and that circuit is a joined
    // rendezvous circuit opened for that link's SOCKS username.
    void twelveDistinctRendezvousCircuits() {
        QMap<QByteArray, QByteArray> usernameOfRendCircuit;
        for (const QByteArray& line : getInfoLines("circuit-status")) {
            if (!line.contains("PURPOSE=HS_CLIENT_REND") || !line.contains("HS_STATE=HSCR_JOINED"))
                continue;
            const tor::TorArguments args = tor::parseTorArguments(line);
            usernameOfRendCircuit.insert(args.positional.value(0),
                                         args.keyed.value("SOCKS_USERNAME"));
        }
        const QByteArray target =
            service->address().toLatin1() + ".onion:" + QByteArray::number(kVirtualPort);
        QSet<QByteArray> circuits, users;
        for (const QByteArray& line : getInfoLines("stream-status")) {
            const QList<QByteArray> fields = line.split(' ');
            if (fields.size() < 4 || fields.at(1) != "SUCCEEDED" || fields.at(3) != target)
                continue;
            QVERIFY2(usernameOfRendCircuit.contains(fields.at(2)),
                     "a link's stream is not on a joined rendezvous circuit");
            circuits.insert(fields.at(2));
            users.insert(usernameOfRendCircuit.value(fields.at(2)));
        }
        QSet<QByteArray> keys;
        for (int slot = 0; slot < kLinks; ++slot)
            keys.insert(pool->isolationKey(std::uint8_t(slot)));
        QCOMPARE(keys.size(), kLinks);
        QCOMPARE(circuits.size(), kLinks);
        QCOMPARE(users, keys);
        report.insert(QStringLiteral("rendezvous_circuits"), int(circuits.size()));
    }

    void recordsFlowBothWays() { exchangeOnEveryLink('A'); }

    void publisherRestartsAndRepublishes() {
        QSignalSpy restarts(callee.get(), &tor::TorLauncher::restarting);
        const qint64 oldPid = callee->processId();
        QElapsedTimer timer;
        timer.start();
        ::kill(pid_t(oldPid), SIGKILL);
        QTRY_COMPARE_WITH_TIMEOUT(restarts.size(), 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(service->state(), tor::OnionService::State::Reachable, kTimeout);
        QCOMPARE(service->publishCount(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(service->uploads().allSettled(), kTimeout);
        QVERIFY(!processAlive(oldPid));
        QVERIFY(callee->processId() != oldPid);
        report.insert(QStringLiteral("republish_after_kill_s"), seconds(timer.elapsed()));
        appTorPids.append(callee->processId());
    }

    // How fast tor tears down the old circuits is not this layer's business (the engine's link
    // monitor notices silent links); a fresh pool shows that links open again.
    void linksOpenAgainAfterRestart() {
        const net::LinkPoolConfig config = pool->config();
        pool->stop();
        std::optional<tor::TorReply> purged;
        caller->controller()->send("SIGNAL NEWNYM", [&](const tor::TorReply& r) { purged = r; });
        QTRY_VERIFY_WITH_TIMEOUT(purged.has_value(), 10000);
        QVERIFY(purged->isOk());
        pool = std::make_unique<net::LinkPool>(config);
        pool->start();
        openAllLinks("relink_first_s", "relink_all_s", kRelinkTimeout);
        exchangeOnEveryLink('B');
    }

    void cleanupTestCase() {
        QJsonObject rss;
        if (callee)
            rss.insert(QStringLiteral("app_tor_callee"),
                       testnet::residentKilobytes(callee->processId()));
        if (caller)
            rss.insert(QStringLiteral("app_tor_caller"),
                       testnet::residentKilobytes(caller->processId()));
        rss.insert(QStringLiteral("test_process"),
                   testnet::residentKilobytes(QCoreApplication::applicationPid()));
        for (const auto& [node, pid] : testnet::networkPids())
            rss.insert(node, testnet::residentKilobytes(pid));
        report.insert(QStringLiteral("rss_kb"), rss);

        if (pool)
            pool->stop();
        service.reset();
        callee.reset();
        caller.reset();
        for (qint64 pid : appTorPids)
            QVERIFY2(!processAlive(pid), "an app tor outlived its launcher");

        const QByteArray json = QJsonDocument(report).toJson();
        QSaveFile file(QStringLiteral("testnet-report.json"));
        if (file.open(QIODevice::WriteOnly)) {
            file.write(json);
            file.commit();
        }
        std::printf("%s\n", json.constData());
    }
};

QTEST_GUILESS_MAIN(TestTestnetLinks)
#include "tst_testnetlinks.moc"
