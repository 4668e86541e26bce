// The one-way hotline preset on the private network: the callee's service runs single-hop on a
// dedicated tor (HiddenServiceDir, HiddenServiceSingleHopMode), an anonymous caller reaches it,
// records flow both ways, the service side's circuits have one hop and the caller's have three.
#include "TestnetEnv.h"
#include "net/LinkListener.h"
#include "net/OnionLink.h"
#include "tor/HotlineService.h"

#include <QElapsedTimer>
#include <QtTest>
#include <csignal>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kRecord = 498;
constexpr quint16 kVirtualPort = 5061;
constexpr int kTimeout = 120000;

// Hop counts of the circuits of one purpose, from GETINFO circuit-status.
QList<int> hopCounts(tor::TorController* controller, const QByteArray& purpose) {
    std::optional<tor::TorReply> reply;
    controller->send("GETINFO circuit-status", [&](const tor::TorReply& r) { reply = r; });
    if (!QTest::qWaitFor([&] { return reply.has_value(); }, 10000) || !reply->isOk())
        return {};
    QList<int> hops;
    for (const QByteArray& line : reply->value("circuit-status").split('\n')) {
        const tor::TorArguments args = tor::parseTorArguments(line);
        if (args.positional.size() >= 3 && args.positional.at(1) == "BUILT" &&
            args.keyed.value("PURPOSE") == purpose)
            hops.append(int(args.positional.at(2).count(',')) + 1);
    }
    return hops;
}

} // namespace

class TestTestnetHotline : public QObject {
    Q_OBJECT
private slots:
    void anonymousCallerReachesSingleHopService() {
        testnet::dieWithParent();
        QVERIFY2(!testnet::clientTorrcLines().isEmpty(), "no private network (ONIONVOICE_TESTNET)");
        net::LinkListener listener(kRecord);
        QVERIFY(listener.listen());
        connect(&listener, &net::LinkListener::linkAccepted, this, [](net::OnionLink* link) {
            connect(link, &net::OnionLink::recordReceived, link, [link](const QByteArray& r) {
                QByteArray answer = r;
                std::reverse(answer.begin(), answer.end());
                link->sendRecord({reinterpret_cast<const std::uint8_t*>(answer.constData()),
                                  std::size_t(answer.size())});
            });
        });

        const tor::TorLaunchConfig hotlineBase = testnet::clientConfig(QStringLiteral("hotline"));
        tor::HotlineService hotline(tor::OnionIdentity::generate(),
                                    {hotlineBase.dataDirectory, kVirtualPort, listener.torTarget(),
                                     hotlineBase.extraTorrcLines,
                                     hotlineBase.torExecutableSetting});
        tor::TorLauncher caller(testnet::clientConfig(QStringLiteral("hotline-caller")));
        QElapsedTimer timer;
        timer.start();
        hotline.start();
        caller.start();
        QTRY_COMPARE_WITH_TIMEOUT(hotline.state(), tor::HotlineService::State::Reachable, kTimeout);
        // Reachable means one HSDir has the descriptor; the caller may ask another one.
        const qint64 reachable = timer.elapsed();
        QTRY_VERIFY_WITH_TIMEOUT(hotline.uploads()->allSettled(), kTimeout);
        QTRY_COMPARE_WITH_TIMEOUT(caller.state(), tor::TorLauncher::State::Ready, kTimeout);
        QVERIFY(QFile::exists(hotlineBase.dataDirectory +
                              QStringLiteral("/hotline-service/hs_ed25519_secret_key")));

        timer.restart();
        net::OnionLink link(kRecord);
        link.connectToOnion({caller.socksSocketPath(), caller.socksPort()},
                            hotline.address() + QStringLiteral(".onion"), kVirtualPort, "hotline-1",
                            60s);
        QTRY_VERIFY_WITH_TIMEOUT(link.state() == net::OnionLink::State::Open ||
                                     link.state() == net::OnionLink::State::Failed,
                                 kTimeout);
        QVERIFY2(link.state() == net::OnionLink::State::Open, qPrintable(link.failureText()));
        std::printf("{\"hotline_start_to_reachable_s\": %.3f, \"hotline_first_link_s\": %.3f}\n",
                    double(reachable) / 1000.0, double(timer.elapsed()) / 1000.0);

        QByteArray answer;
        connect(&link, &net::OnionLink::recordReceived, this,
                [&](const QByteArray& r) { answer = r; });
        QByteArray record(kRecord, 'h');
        record[0] = 'x';
        QVERIFY(
            link.sendRecord({reinterpret_cast<const std::uint8_t*>(record.constData()), kRecord}));
        QTRY_VERIFY_WITH_TIMEOUT(!answer.isEmpty(), 30000);
        QCOMPARE(answer.back(), 'x');

        // The service's side of the rendezvous is one hop; the caller's side is a full path.
        const QList<int> serviceHops =
            hopCounts(hotline.launcher()->controller(), "HS_SERVICE_REND");
        const QList<int> callerHops = hopCounts(caller.controller(), "HS_CLIENT_REND");
        qInfo() << "service rendezvous hops" << serviceHops << "caller rendezvous hops"
                << callerHops;
        QVERIFY(!serviceHops.isEmpty());
        for (int hops : serviceHops)
            QCOMPARE(hops, 1);
        QVERIFY(!callerHops.isEmpty());
        for (int hops : callerHops)
            QVERIFY(hops >= 3);

        const qint64 hotlinePid = hotline.launcher()->processId();
        hotline.stop();
        QVERIFY(::kill(pid_t(hotlinePid), 0) != 0);
    }
};

QTEST_GUILESS_MAIN(TestTestnetHotline)
#include "tst_testnethotline.moc"
