// Contacts-only mode on the private network: a service published with ClientAuthV3 refuses a
// caller whose tor lacks the key (SOCKS error 0xF4) and accepts it once ONION_CLIENT_AUTH_ADD
// gave its tor the private key.
#include "TestnetEnv.h"
#include "net/LinkListener.h"
#include "net/OnionLink.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionService.h"

#include <QtTest>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kRecord = 498;
constexpr quint16 kVirtualPort = 5062;
constexpr int kTimeout = 120000;

} // namespace

class TestTestnetClientAuth : public QObject {
    Q_OBJECT
private:
    // Dials once and waits until the link is open or has failed.
    static std::unique_ptr<net::OnionLink>
    dial(const net::SocksEndpoint& socks, const QString& address, const QByteArray& isolationKey) {
        auto link = std::make_unique<net::OnionLink>(kRecord);
        link->connectToOnion(socks, address + QStringLiteral(".onion"), kVirtualPort, isolationKey,
                             60s);
        [[maybe_unused]] const bool settled = QTest::qWaitFor(
            [&] {
                return link->state() == net::OnionLink::State::Open ||
                       link->state() == net::OnionLink::State::Failed;
            },
            kTimeout);
        return link;
    }

private slots:
    void onlyAuthorizedCallersGetThrough() {
        testnet::dieWithParent();
        QVERIFY2(!testnet::clientTorrcLines().isEmpty(), "no private network (ONIONVOICE_TESTNET)");
        net::LinkListener listener(kRecord);
        QVERIFY(listener.listen());
        int accepted = 0;
        connect(&listener, &net::LinkListener::linkAccepted, this, [&] { ++accepted; });

        tor::TorLauncher callee(testnet::clientConfig(QStringLiteral("auth-callee")));
        tor::TorLauncher caller(testnet::clientConfig(QStringLiteral("auth-caller")));
        callee.start();
        caller.start();
        const tor::ClientAuthKey contactKey = tor::ClientAuthKey::generate();
        tor::OnionService service(
            &callee, tor::OnionIdentity::generate(),
            {kVirtualPort, listener.torTarget(), {contactKey.publicKeyBase32()}});
        QTRY_COMPARE_WITH_TIMEOUT(service.state(), tor::OnionService::State::Reachable, kTimeout);
        // Reachable means one HSDir has the descriptor; the caller may ask another one.
        QTRY_VERIFY_WITH_TIMEOUT(service.uploads().allSettled(), kTimeout);
        QTRY_COMPARE_WITH_TIMEOUT(caller.state(), tor::TorLauncher::State::Ready, kTimeout);

        const auto refused =
            dial({caller.socksSocketPath(), caller.socksPort()}, service.address(), "no-auth");
        QCOMPARE(refused->state(), net::OnionLink::State::Failed);
        QCOMPARE(refused->failure(), net::OnionLink::Failure::SocksReply);
        QCOMPARE(refused->socksReplyCode(), 0xF4);
        QCOMPARE(accepted, 0);

        std::optional<tor::TorReply> reply;
        tor::addClientAuthorization(caller.controller(), service.address(), contactKey,
                                    [&](const tor::TorReply& r) { reply = r; });
        QTRY_VERIFY(reply.has_value());
        QVERIFY2(reply->isOk(), qPrintable(reply->errorMessage()));

        const auto allowed =
            dial({caller.socksSocketPath(), caller.socksPort()}, service.address(), "with-auth");
        QVERIFY2(allowed->state() == net::OnionLink::State::Open,
                 qPrintable(allowed->failureText()));
        QTRY_COMPARE(accepted, 1);
    }
};

QTEST_GUILESS_MAIN(TestTestnetClientAuth)
#include "tst_testnetclientauth.moc"
