// Integration tests of the contacts-only service on the private Tor network (tests/testnet): only
// callers holding a client key dave made reach his service, and no other local user can reach it
// through their tor; a key made while the service runs, a contact removed or blocked take effect
// without a restart; a contacts-only service with no key is not published; and a call to it
// survives the caller's tor restarting. The tests run in order: each starts from what the one
// before left of dave's contacts.
#include "CallParties.h"
#include "contacts/ContactBook.h"
#include "tor/ClientAuthKey.h"

#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <netinet/in.h>
#include <optional>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace onionvoice;
using namespace onionvoice::call;
using namespace onionvoice::call::testing;
using namespace std::chrono_literals;

namespace {

// What a SOCKS5 CONNECT through a tor's SOCKS endpoint gets, tried by a forked process as
// ourselves or as another local user (nobody). A probe that could not become nobody proves
// nothing, so it is told apart from a refusal.
struct SocksProbe {
    enum class Outcome { Opened, SocksError, ConnectRefused, NotNobody, NoAnswer };
    Outcome outcome = Outcome::NoAnswer;
    int detail = 0; // the SOCKS reply code, connect's errno, or the step that got no answer

    QByteArray describe() const {
        static const char* const names[] = {"opened", "SOCKS error", "connect refused",
                                            "could not become nobody", "no answer"};
        return QByteArray(names[int(outcome)]) + " (" + QByteArray::number(detail, 16) + ")";
    }
};

SocksProbe probeThroughTor(const net::SocksEndpoint& socks, const QByteArray& host, quint16 port,
                           bool asNobody) {
    // Every byte is made before fork: the child of a process with threads makes system calls only.
    const QByteArray greeting("\x05\x01\x02", 3);
    const QByteArray user = "probe-" + QByteArray::number(QRandomGenerator::global()->generate());
    const QByteArray auth =
        QByteArray("\x01", 1) + char(user.size()) + user + char(user.size()) + user;
    const QByteArray request = QByteArray("\x05\x01\x00\x03", 4) + char(host.size()) + host +
                               char(port >> 8) + char(port & 0xff);
    sockaddr_un unixAddress{};
    sockaddr_in inetAddress{};
    const QByteArray path = QFile::encodeName(socks.path);
    if (!socks.path.isEmpty()) {
        unixAddress.sun_family = AF_UNIX;
        std::memcpy(unixAddress.sun_path, path.constData(),
                    std::min(std::size_t(path.size()), sizeof unixAddress.sun_path - 1));
    } else {
        inetAddress.sin_family = AF_INET;
        inetAddress.sin_port = htons(socks.port);
        inetAddress.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    int channel[2];
    if (::pipe(channel) != 0)
        return {};
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(channel[0]);
        const auto finish = [&](SocksProbe::Outcome outcome, int detail) {
            const int result[2] = {int(outcome), detail};
            [[maybe_unused]] const auto written = ::write(channel[1], result, sizeof result);
            ::_exit(0);
        };
        if (asNobody && (::setgid(65534) != 0 || ::setuid(65534) != 0))
            finish(SocksProbe::Outcome::NotNobody, 0);
        const int s = ::socket(socks.path.isEmpty() ? AF_INET : AF_UNIX, SOCK_STREAM, 0);
        const timeval timeout{60, 0};
        ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        const int connected =
            socks.path.isEmpty()
                ? ::connect(s, reinterpret_cast<const sockaddr*>(&inetAddress), sizeof inetAddress)
                : ::connect(s, reinterpret_cast<const sockaddr*>(&unixAddress), sizeof unixAddress);
        if (connected != 0)
            finish(SocksProbe::Outcome::ConnectRefused, errno);
        unsigned char reply[10] = {};
        // Sends `out`, then reads `want` bytes of the answer (fewer if tor closes); how many.
        const auto exchange = [&](const QByteArray& out, std::size_t want) {
            if (::write(s, out.constData(), std::size_t(out.size())) != out.size())
                return std::size_t(0);
            std::size_t got = 0;
            while (got < want) {
                const auto n = ::read(s, reply + got, want - got);
                if (n <= 0)
                    break;
                got += std::size_t(n);
            }
            return got;
        };
        if (exchange(greeting, 2) != 2 || reply[1] != 0x02)
            finish(SocksProbe::Outcome::NoAnswer, 1);
        if (exchange(auth, 2) != 2 || reply[1] != 0x00)
            finish(SocksProbe::Outcome::NoAnswer, 2);
        if (exchange(request, 10) < 2)
            finish(SocksProbe::Outcome::NoAnswer, 3);
        finish(reply[1] == 0 ? SocksProbe::Outcome::Opened : SocksProbe::Outcome::SocksError,
               reply[1]);
    }
    ::close(channel[1]);
    // The event loop runs meanwhile: the engines of this process answer what tor delivers.
    int status = 0;
    if (!QTest::qWaitFor([&] { return ::waitpid(child, &status, WNOHANG) == child; }, 90000)) {
        ::kill(child, SIGKILL);
        ::waitpid(child, &status, 0);
    }
    int result[2] = {int(SocksProbe::Outcome::NoAnswer), 0};
    const bool read = ::read(channel[0], result, sizeof result) == sizeof result;
    ::close(channel[0]);
    if (!read)
        return {};
    return {SocksProbe::Outcome(result[0]), result[1]};
}

} // namespace

class ContactsOnlyTest : public QObject, public CallParties {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!networkUp())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        for (const char* name : {"alice", "bob", "carol"})
            addParty(name);
        // dave's service admits only alice and bob, who hold the client keys dave made for them.
        const tor::ClientAuthKey key = tor::ClientAuthKey::generate();
        const tor::ClientAuthKey bobKey = tor::ClientAuthKey::generate();
        EngineConfig closed = partyConfig();
        closed.access = ServiceAccess::ContactsOnly;
        const QString daveDir = testnet::clientConfig("dave").dataDirectory;
        QFile::remove(daveDir + "/contacts.json"); // dave's book is this one alone
        contacts::ContactBook daveBook(daveDir + "/contacts.json");
        daveBook.load();
        QString error;
        QVERIFY(daveBook.add({party("alice").engine->address(),
                              "Alice",
                              {},
                              false,
                              true,
                              keyBytes(key.publicKey()),
                              {}},
                             &error));
        QVERIFY(daveBook.add({party("bob").engine->address(),
                              "Bob",
                              {},
                              false,
                              true,
                              keyBytes(bobKey.publicKey()),
                              {}},
                             &error));
        QVERIFY(daveBook.save(&error));
        addParty("dave", closed, testnet::AppData::Kept);
        QVERIFY(party("alice").engine->contacts().add({party("dave").engine->address(),
                                                       "Dave",
                                                       {},
                                                       false,
                                                       false,
                                                       {},
                                                       keyBytes(key.privateKey())},
                                                      &error));
        QVERIFY(party("bob").engine->contacts().add({party("dave").engine->address(),
                                                     "Dave",
                                                     {},
                                                     false,
                                                     false,
                                                     {},
                                                     keyBytes(bobKey.privateKey())},
                                                    &error));
        // erin is new: contacts-only, and nobody holds a key to her service yet.
        addParty("erin", closed);
        waitReachable({"alice", "bob", "carol", "dave"});
    }
    void init() { resetParties(); }
    void cleanup() { reportIfFailed(); }
    void cleanupTestCase() { stopParties(); }

    void contactsOnlyService() {
        Party& alice = party("alice");
        Party& carol = party("carol");
        Party& dave = party("dave");
        // carol holds no key: her tor cannot even open a link to dave's service.
        carol.engine->dial(dave.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(carol.endReason(), EndReason::Unreachable, 60000);
        QVERIFY(dave.incoming->isEmpty() && dave.refused->isEmpty());
        // alice, a contact with a key, reaches it and it rings.
        ringAndReject(alice, dave);
        waitIdle({"alice", "carol", "dave"});
    }

    // Attack: another user of this machine dials our contacts-only contact through our tor.
    // Having called dave, alice's tor holds dave's client authorization for as long as it runs.
    // Before the fix tor's SOCKS port was TCP on 127.0.0.1, open to every local user (its port is
    // in /proc/net/tcp): anyone could reach dave's service through it with alice's authorization
    // (learning whether dave is online, ringing him), or probe tor's extended errors (0xF4: no
    // authorization) for whom alice holds a key. Now the SOCKS port is a unix socket in alice's
    // tor's 0700 directory: user nobody cannot connect to it. Control: the same probe, run as
    // alice's own user, reaches dave's service.
    void otherLocalUserCannotDialThroughOurTor() {
        Party& alice = party("alice");
        Party& dave = party("dave");
        ringAndReject(alice, dave);
        waitIdle({"alice", "dave"});

        const net::SocksEndpoint socks = call::torSocksEndpoint(*alice.engine->torLauncher());
        QVERIFY(socks.isSet());
        const QByteArray host = dave.engine->address().toLatin1() + ".onion";
        const SocksProbe own = probeThroughTor(socks, host, EngineConfig{}.servicePort, false);
        QVERIFY2(own.outcome == SocksProbe::Outcome::Opened, own.describe().constData());
        if (::geteuid() != 0)
            QSKIP("only root can become another user to try tor's SOCKS port");
        const SocksProbe other = probeThroughTor(socks, host, EngineConfig{}.servicePort, true);
        QVERIFY2(other.outcome == SocksProbe::Outcome::ConnectRefused,
                 other.describe().constData());
        QCOMPARE(other.detail, EACCES);
        QTest::qWait(4000); // dave's engine closes the probe's unproven link (linkProofTimeout)
        QVERIFY(dave.incoming->isEmpty());
    }

    // An access key made for a contact while the service runs (what the app's "Share with an
    // access key" does): the service is published again with it, and the contact gets through
    // without tor being restarted (carol could not reach dave without a key just before).
    void aNewAccessKeyLetsAContactInWithoutARestart() {
        Party& carol = party("carol");
        Party& dave = party("dave");
        const tor::ClientAuthKey key = tor::ClientAuthKey::generate();
        QString error;
        QVERIFY(dave.engine->contacts().add(
            {carol.engine->address(), "Carol", {}, false, false, {}, {}}, &error));
        const int published = dave.engine->service()->publishCount();
        QVERIFY2(dave.engine->contacts().grantAccess(carol.engine->address(),
                                                     keyBytes(key.publicKey()), &error),
                 qPrintable(error));
        waitRepublished(dave, published);
        QVERIFY(carol.engine->contacts().add(
            {dave.engine->address(), "Dave", {}, false, false, {}, keyBytes(key.privateKey())},
            &error));
        ringAndReject(carol, dave);
        QVERIFY(dave.engine->contacts().remove(carol.engine->address()));
        QVERIFY(carol.engine->contacts().remove(dave.engine->address()));
        waitIdle({"carol", "dave"});
    }

    // Before the fix a contacts-only service without any client key was published with no
    // ClientAuthV3 at all: open to everyone. Now it is not published until a contact holds a key,
    // and then at once.
    void contactsOnlyWithoutKeysIsNotPublished() {
        Party& erin = party("erin");
        QTRY_COMPARE_WITH_TIMEOUT(erin.engine->torLauncher()->state(),
                                  tor::TorLauncher::State::Ready, kStartTimeout);
        QTest::qWait(2000); // tor answers ADD_ONION at once; give a wrong publish the chance
        QCOMPARE(erin.engine->service()->state(), tor::OnionService::State::Withheld);
        QCOMPARE(erin.engine->service()->publishCount(), 0);
        QVERIFY(erin.engine->service()->failureReason().contains("Contacts-only"));
        const tor::ClientAuthKey key = tor::ClientAuthKey::generate();
        QString error;
        QVERIFY(erin.engine->contacts().add(
            {party("bob").engine->address(), "Bob", {}, false, true, keyBytes(key.publicKey()), {}},
            &error));
        QTRY_COMPARE_WITH_TIMEOUT(erin.engine->service()->publishCount(), 1, 30000);
    }

    // Before the fix the allowlist was read once at start: a removed contact kept access until a
    // restart. dave removes bob, one of his two key holders: the service is published again with
    // alice's key alone. bob, who got through before, no longer reaches it; alice still does.
    void removedContactLosesAccess() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        Party& dave = party("dave");
        ringAndReject(bob, dave);
        waitIdle({"bob", "dave"});
        const int published = dave.engine->service()->publishCount();
        QVERIFY(dave.engine->contacts().remove(bob.engine->address()));
        waitRepublished(dave, published);
        bob.engine->dial(dave.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::Unreachable, kCallTimeout);
        QVERIFY(dave.incoming->isEmpty() && dave.refused->isEmpty());
        ringAndReject(alice, dave);
        waitIdle({"alice", "bob", "dave"});
    }

    // Before the fix the allowlist was read once at start: a contact blocked later kept access
    // until a restart. dave blocks alice (the only key holder left): his service is withdrawn at
    // once and alice's call does not get through; unblocked, it is published again.
    void blockedContactLosesAccessAtOnce() {
        Party& alice = party("alice");
        Party& dave = party("dave");
        const int published = dave.engine->service()->publishCount();
        QVERIFY(dave.engine->contacts().setBlocked(alice.engine->address(), true));
        QTRY_COMPARE(dave.engine->service()->state(), tor::OnionService::State::Withheld);
        alice.engine->dial(dave.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::Unreachable, kCallTimeout);
        QVERIFY(dave.incoming->isEmpty() && dave.refused->isEmpty());
        QVERIFY(dave.engine->contacts().setBlocked(alice.engine->address(), false));
        waitRepublished(dave, published);
        waitIdle({"alice", "dave"});
    }

    // Fault: the caller's tor dies twice during a call to a contacts-only peer. A tor started in
    // its place knows none of the client keys given to the one before: every relink failed
    // ("client authorization missing") until a rescue, at most one per 10 minutes, happened to
    // add the key again, so the second crash lost the call. Now the key is given to each new tor
    // at once: it is there for the first command anyone else sends the new tor.
    void contactsOnlyCallSurvivesTheCallersTorRestarting() {
        Party& alice = party("alice");
        Party& dave = party("dave");
        // The test before withdrew dave's service and published it again: alice's tor may still
        // hold the old descriptor, whose introduction points acknowledge and never answer. The
        // engine purges that state once per 10 minutes (RelinkRescue), and the tests before may
        // have spent it (one CI rehearsal: unreachable at the dial timeout). This test is about
        // the call that follows, so alice's tor starts from a clean state, as after a purge.
        std::optional<tor::TorReply> purged;
        alice.engine->torLauncher()->controller()->send(
            "SIGNAL NEWNYM", [&](const tor::TorReply& reply) { purged = reply; });
        QTRY_VERIFY(purged.has_value());
        QVERIFY(purged->isOk());
        connect(dave.engine.get(), &CallEngine::incomingCall, dave.engine.get(),
                &CallEngine::answer, Qt::SingleShotConnection);
        alice.engine->dial(dave.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        tor::TorLauncher* tor = alice.engine->torLauncher();
        const QByteArray daveAddress = dave.engine->address().toLatin1();
        for (int crash = 1; crash <= 2; ++crash) {
            std::optional<tor::TorReply> view;
            const auto viewing = connect(tor, &tor::TorLauncher::controlReady, this, [&] {
                tor->controller()->send("ONION_CLIENT_AUTH_VIEW " + daveAddress,
                                        [&](const tor::TorReply& reply) { view = reply; });
            });
            ::kill(pid_t(tor->processId()), SIGKILL);
            QTRY_VERIFY_WITH_TIMEOUT(view.has_value(), kStartTimeout);
            disconnect(viewing);
            QVERIFY2(view->isOk(), qPrintable(view->errorMessage()));
            QVERIFY2(
                std::any_of(view->lines().begin(), view->lines().end(),
                            [&](const auto& line) {
                                return line.text.startsWith("CLIENT " + daveAddress);
                            }),
                qPrintable(QStringLiteral("crash %1: the new tor has no key for dave").arg(crash)));
            // The call goes on over new links: alice hears dave again.
            const std::uint64_t heard = alice.lastStatistics().framesReceived;
            QTRY_VERIFY_WITH_TIMEOUT(alice.lastStatistics().framesReceived > heard + 50,
                                     kCallTimeout);
        }
        QCOMPARE(dave.engine->callState(), CallState::Active);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(dave.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"alice", "dave"});
        QTRY_COMPARE_WITH_TIMEOUT(alice.engine->service()->state(),
                                  tor::OnionService::State::Reachable, kStartTimeout);
    }
};

QTEST_GUILESS_MAIN(ContactsOnlyTest)
#include "tst_contactsonly.moc"
