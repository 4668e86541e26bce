// Unit tests of LinkPool and DialBudget against a scripted SOCKS5 server that plays tor's SOCKS
// port: the pool dials the current SOCKS port, isolates its links, replaces broken ones and
// abandons stuck attempts, rations its dials when the peer keeps closing links (what the budget
// charges and what it gives back), and dials in stages.
#include "ScriptedSocks.h"
#include "net/DialBudget.h"
#include "net/LinkPool.h"

#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace onionvoice::net;
using namespace onionvoice::net::testing;
using namespace std::chrono_literals;

namespace {

// A pool of `links` links to kHost through the scripted SOCKS server.
LinkPoolConfig poolConfig(const ScriptedSocks& socks, int links) {
    LinkPoolConfig config;
    config.socks = socks.endpoint();
    config.onionAddress = kHost.chopped(6);
    config.port = 9;
    config.links = links;
    config.recordSize = kRecord;
    return config;
}

// The scripted session that carries the link dialled with `isolationKey` (nullptr if none).
ScriptedSocks::Session* sessionWith(const ScriptedSocks& socks, const QByteArray& isolationKey) {
    for (const auto& s : socks.sessions)
        if (s->username == isolationKey)
            return s.get();
    return nullptr;
}

} // namespace

class TestLinkPool : public QObject {
    Q_OBJECT
private slots:
    // Fault: tor restarts during a call and its `auto` SOCKS port changes. Before the fix the
    // pool kept dialling the port it was created with (nobody listens there any more); now each
    // attempt asks for the current endpoint, and the replacement link reaches the new port.
    void poolDialsTheCurrentSocksPort() {
        ScriptedSocks before, after;
        const ScriptedSocks* current = &before;
        LinkPoolConfig config;
        config.socksFor = [&](std::uint8_t) {
            return current->endpoint();
        };
        config.onionAddress = kHost.chopped(6);
        config.port = 9;
        config.links = 2;
        config.recordSize = kRecord;
        config.replaceDelay = 50ms;
        LinkPool pool(config);
        QSignalSpy up(&pool, &LinkPool::linkUp);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 2);
        QCOMPARE(before.sessions.size(), std::size_t(2));
        current = &after; // "tor restarted": the old port is gone
        before.server.close();
        before.sessions.front()->socket->close();
        QTRY_COMPARE(up.size(), 3);
        QCOMPARE(after.sessions.size(), std::size_t(1));
        const QByteArray user = after.sessions.front()->username;
        QVERIFY(user == pool.isolationKey(0) || user == pool.isolationKey(1));
    }

    void poolOpensIsolatedLinksAndReplacesBrokenOnes() {
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 4);
        config.replaceDelay = 50ms;
        LinkPool pool(config);
        QSignalSpy up(&pool, &LinkPool::linkUp);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        QSignalSpy records(&pool, &LinkPool::recordReceived);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 4);
        QCOMPARE(up.size(), 4);
        QSet<QByteArray> users;
        for (auto& s : socks.sessions)
            users.insert(s->username);
        QCOMPARE(users.size(), 4);

        // Break slot 2: it goes down and comes back with a new isolation key.
        const QByteArray oldKey = pool.isolationKey(2);
        ScriptedSocks::Session* broken = sessionWith(socks, oldKey);
        QVERIFY(broken);
        broken->socket->close();
        QTRY_COMPARE(down.size(), 1);
        QCOMPARE(down.at(0).at(0).value<std::uint8_t>(), std::uint8_t(2));
        QTRY_COMPARE(up.size(), 5);
        QCOMPARE(up.at(4).at(0).value<std::uint8_t>(), std::uint8_t(2));
        QVERIFY(pool.isolationKey(2) != oldKey);
        QCOMPARE(socks.sessions.back()->username, pool.isolationKey(2));

        // Records are tagged with their slot.
        socks.sessions.back()->socket->write(record('r'));
        QTRY_COMPARE(records.size(), 1);
        QCOMPARE(records.at(0).at(0).value<std::uint8_t>(), std::uint8_t(2));
        QVERIFY(pool.sendRecord(2, bytes(record('s'))));
        QTRY_COMPARE(socks.sessions.back()->received, record('s'));

        // The engine can replace a link that went silent: new link, new key, same slot.
        const QByteArray key1 = pool.isolationKey(1);
        pool.replace(1);
        QCOMPARE(down.size(), 2);
        QCOMPARE(down.at(1).at(0).value<std::uint8_t>(), std::uint8_t(1));
        QTRY_COMPARE(up.size(), 6);
        QCOMPARE(up.at(5).at(0).value<std::uint8_t>(), std::uint8_t(1));
        QVERIFY(pool.isolationKey(1) != key1);
        QCOMPARE(pool.openCount(), 4);

        pool.stop();
        QCOMPARE(pool.openCount(), 0);
    }

    // Fault: a call ended, and while its links lingered for its last records the peer closed its
    // ends. The pool, still running, dialled every link that had been working again at once:
    // circuits built for a call that was over, after nearly every call the peer ended. A halted
    // pool dials nothing more (a late start() included) and keeps its open links for the flush.
    void aHaltedPoolDialsNothingMore() {
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 3);
        config.replaceDelay = 10ms;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 3);
        pool.halt();
        const auto sessionOf = [&](std::uint8_t slot) {
            return sessionWith(socks, pool.isolationKey(slot));
        };
        QVERIFY(sessionOf(0) && sessionOf(1));
        QVERIFY(pool.sendRecord(1, bytes(record('h'))));
        QTRY_COMPARE(sessionOf(1)->received, record('h'));
        sessionOf(0)->socket->close();
        QTRY_COMPARE(down.size(), 1);
        pool.start();
        QTest::qWait(200); // twenty replace delays
        QCOMPARE(socks.sessions.size(), std::size_t(3));
        QCOMPARE(pool.openCount(), 2);
    }

    // Each attempt carries its slot's first record right behind its CONNECT request (why:
    // tst_onionlink firstRecordGoesWithTheConnectRequest).
    void eachAttemptCarriesItsSlotsFirstRecord() {
        ScriptedSocks socks;
        socks.holdConnectReply = true;
        LinkPoolConfig config = poolConfig(socks, 3);
        config.firstRecord = [](std::uint8_t slot) {
            return record(char('a' + slot));
        };
        LinkPool pool(config);
        pool.start();
        QTRY_COMPARE(socks.sessions.size(), std::size_t(3));
        for (std::uint8_t slot = 0; slot < 3; ++slot) {
            const QByteArray key = pool.isolationKey(slot);
            const auto session = std::find_if(socks.sessions.begin(), socks.sessions.end(),
                                              [&](const auto& s) { return s->username == key; });
            QVERIFY(session != socks.sessions.end());
            QTRY_COMPARE((*session)->received, record(char('a' + slot)));
        }
    }

    void poolAbandonsAStuckRelinkAttempt() {
        // Once the peer has been reached, an attempt that tor keeps waiting (here: a proxy that
        // never answers) is given up after relinkTimeout and the slot is dialled on a fresh
        // circuit, instead of staying down for the whole connect timeout.
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 3);
        config.replaceDelay = 10ms;
        config.connectTimeout = 600s;
        config.relinkTimeout = 200ms;
        config.hedgeDelay = 600s; // only the timeout here
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        pool.start(1);
        QTRY_COMPARE(pool.openCount(), 1);
        socks.behaviour = ScriptedSocks::Behaviour::Silent;
        pool.start();
        QTRY_VERIFY(socks.sessions.size() >= 3);
        socks.behaviour = ScriptedSocks::Behaviour::Accept; // fresh attempts get through
        QTRY_COMPARE(pool.openCount(), 3);
        QVERIFY(down.size() >= 2); // the stuck attempts were reported and replaced
        QVERIFY(socks.sessions.size() >= 5);
    }

    void poolOpensASecondAttemptBesideASlowOne() {
        // Once the peer has been reached, an attempt that tor keeps waiting gets a second attempt
        // on fresh circuits after hedgeDelay, long before relinkTimeout: the slot opens on the
        // second one, the stuck first attempt is closed, and the slot is never reported down.
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 3);
        config.connectTimeout = 600s;
        config.relinkTimeout = 600s;
        config.hedgeDelay = 100ms;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        QSignalSpy up(&pool, &LinkPool::linkUp);
        socks.silent = {1, 2}; // the first attempts of slots 1 and 2
        pool.start(1);
        QTRY_COMPARE(pool.openCount(), 1);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 3);
        QCOMPARE(socks.sessions.size(), std::size_t(5)); // one second attempt per stuck slot
        QCOMPARE(down.size(), 0);
        QCOMPARE(up.size(), 3);
        for (const std::size_t stuck : {1, 2})
            QTRY_COMPARE(socks.sessions[stuck]->socket->state(), QAbstractSocket::UnconnectedState);
        // The slots now hold the second attempts, with their own isolation keys.
        const std::set<QByteArray> winners{socks.sessions[3]->username,
                                           socks.sessions[4]->username};
        QCOMPARE(winners, (std::set<QByteArray>{pool.isolationKey(1), pool.isolationKey(2)}));
        QVERIFY(pool.link(1)->sendRecord(bytes(record('h'))));
    }

    void poolHedgesAFirstLinkThatHangsBeforeThePeerWasReached() {
        // The call's first link (the handshake) that tor keeps waiting, before the peer has ever
        // been reached: a second attempt beside it after firstHedgeDelay opens the slot. Before,
        // the first link waited for the whole connectTimeout (a minute), and the dial with it.
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 3);
        config.connectTimeout = 600s;
        config.hedgeDelay = 600s; // only the first link's hedge here
        config.firstHedgeDelay = 100ms;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        QSignalSpy up(&pool, &LinkPool::linkUp);
        QSignalSpy slow(&pool, &LinkPool::attemptSlow);
        socks.silent = {0};
        pool.start(1);
        QTRY_COMPARE(pool.openCount(), 1);
        QCOMPARE(socks.sessions.size(), std::size_t(2));
        QCOMPARE(pool.isolationKey(0), socks.sessions[1]->username);
        // The slow attempt was reported with its isolation key (for the engine to ask tor).
        QCOMPARE(slow.size(), 1);
        QCOMPARE(slow.at(0).at(0).value<std::uint8_t>(), std::uint8_t(0));
        QCOMPARE(slow.at(0).at(1).toByteArray(), pool.dialledIsolationKeys().at(0));
        // The first attempt may have rung the callee, whose ring it holds until the callee has
        // answered on the winner (it took the winner's Hello as a twin): only then does it close.
        // Before, it closed at once, and a Hello the callee read after that close rang anew.
        QSignalSpy records(&pool, &LinkPool::recordReceived);
        QTest::qWait(300);
        QCOMPARE(socks.sessions[0]->socket->state(), QAbstractSocket::ConnectedState);
        socks.sessions[1]->socket->write(record('r'));
        QTRY_COMPARE(records.size(), 1);
        QTRY_COMPARE(socks.sessions[0]->socket->state(), QAbstractSocket::UnconnectedState);
        QCOMPARE(down.size(), 0);
        QCOMPARE(up.size(), 1);
        // Once the peer has been reached, later links are hedged after hedgeDelay: not here.
        socks.silent = {2};
        pool.start();
        QTRY_COMPARE(pool.openCount(), 2);
        QTest::qWait(300);
        QCOMPARE(socks.sessions.size(), std::size_t(4));
    }

    // A first attempt kept beside its winner (above) goes with the slot: when the winner breaks
    // before the callee answered on it, and when the pool stops.
    void aFirstAttemptKeptBesideItsWinnerGoesWithTheSlot() {
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 1);
        config.connectTimeout = 600s;
        config.firstHedgeDelay = 100ms;
        config.replaceDelay = 600s;
        socks.silent = {0, 2};
        LinkPool broken(config);
        broken.start(1);
        QTRY_COMPARE(broken.openCount(), 1);
        QCOMPARE(socks.sessions.size(), std::size_t(2));
        socks.sessions[1]->socket->close();
        QTRY_COMPARE(socks.sessions[0]->socket->state(), QAbstractSocket::UnconnectedState);

        LinkPool stopped(config);
        stopped.start(1);
        QTRY_COMPARE(stopped.openCount(), 1);
        QCOMPARE(socks.sessions.size(), std::size_t(4));
        QTest::qWait(100);
        QCOMPARE(socks.sessions[2]->socket->state(), QAbstractSocket::ConnectedState);
        stopped.stop();
        QTRY_COMPARE(socks.sessions[2]->socket->state(), QAbstractSocket::UnconnectedState);
    }

    // The engine may replace a slow handshake attempt (tor introduced it and the peer never came:
    // call::introducedWithoutRendezvous) when it hears of it. A replacement made by the signal's
    // receiver is the slot's only attempt: no second attempt goes beside the discarded one, and
    // the replacement is hedged in its turn.
    void aSlowAttemptReplacedByItsReceiverIsTheSlotsOnlyAttempt() {
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 1);
        config.connectTimeout = 600s;
        config.firstHedgeDelay = 100ms;
        config.replaceDelay = 50ms;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        QSignalSpy slow(&pool, &LinkPool::attemptSlow);
        connect(&pool, &LinkPool::attemptSlow, &pool, [&pool, &slow](std::uint8_t slot) {
            if (slow.size() == 1) // the first report only
                pool.replace(slot);
        });
        socks.silent = {0, 1};
        pool.start(1);
        QTRY_COMPARE(pool.openCount(), 1);
        QCOMPARE(slow.size(), 2);
        QCOMPARE(slow.at(0).at(1).toByteArray(), pool.dialledIsolationKeys().at(0));
        QCOMPARE(slow.at(1).at(1).toByteArray(), pool.dialledIsolationKeys().at(1));
        QCOMPARE(socks.sessions.size(), std::size_t(3)); // the replacement, then its hedge
        QCOMPARE(pool.dialledIsolationKeys().size(), 3);
        QCOMPARE(pool.isolationKey(0), socks.sessions[2]->username);
        QCOMPARE(down.size(), 1);
        QCOMPARE(down.at(0).at(1).toString(), QStringLiteral("replaced"));
    }

    void poolReplacesABrokenWorkingLinkAtOnce() {
        // A link that had been working and broke (a relay on its circuit died) is dialled again at
        // once; replaceDelay is for attempts that failed.
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 1);
        config.replaceDelay = 600s;
        config.workingAfter = 50ms;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 1);
        QTest::qWait(100); // open longer than workingAfter
        socks.sessions[0]->socket->abort();
        QTRY_COMPARE(down.size(), 1);
        QTRY_COMPARE(pool.openCount(), 1);
        QCOMPARE(socks.sessions.size(), std::size_t(2));
    }

    // Attack: a peer garbles the first record of every new link, and the engine replaces the
    // link (CallSession::closeSlot). Before the fix the replacement was dialled at once, a new
    // circuit every round trip for the whole call; now as after a failed attempt.
    void poolRedialsAReplacedNewLinkOnlyAfterTheDelay() {
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 1);
        config.replaceDelay = 3s; // long beside the 100 ms looked at, whatever the machine's load
        config.workingAfter = 600s;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        QSignalSpy up(&pool, &LinkPool::linkUp);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 1);
        pool.replace(0);
        QCOMPARE(down.size(), 1);
        QCOMPARE(pool.openCount(), 0);
        QTest::qWait(100);
        QCOMPARE(socks.sessions.size(), std::size_t(1)); // not dialled again yet
        QTRY_COMPARE_WITH_TIMEOUT(up.size(), 2, 20000);  // but after replaceDelay
        QCOMPARE(socks.sessions.size(), std::size_t(2));
    }

    // Attack: a callee closes every link as soon as it is open (or once it has worked: either way
    // the link counts as working here, workingAfter 0), and each was dialled again at once. Before
    // the fix every close cost a new circuit, hundreds a second here; now the pool dials its
    // budget and then waits for it to come back.
    void poolRationsDialsWhenThePeerKeepsClosingLinks() {
        ScriptedSocks socks;
        socks.closeOnceOpen = true;
        LinkPoolConfig config = poolConfig(socks, 4);
        config.workingAfter = 0ms;
        config.dialsPerLink = 2;          // 8 dials at once
        config.hedgeDelay = 3600s;        // no second attempts, however slow the machine
        config.dialRefillPerLink = 2400s; // one back every 10 minutes: none within the test
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        pool.start();
        QTRY_VERIFY(socks.sessions.size() >= 8);
        QTRY_COMPARE(down.size(), 8);
        QTest::qWait(500);
        QCOMPARE(socks.sessions.size(), std::size_t(8));
        QCOMPARE(down.size(), 8);
    }

    void rationedDialsComeBack() {
        ScriptedSocks socks;
        socks.closeOnceOpen = true;
        LinkPoolConfig config = poolConfig(socks, 4);
        config.workingAfter = 0ms;
        config.dialsPerLink = 2;
        config.dialRefillPerLink = 800ms; // one back every 200 ms
        config.hedgeDelay = 3600s;
        LinkPool pool(config);
        pool.start();
        QTRY_VERIFY(socks.sessions.size() >= 8);
        socks.closeOnceOpen = false; // the peer behaves again: every slot opens in time
        QTRY_COMPARE_WITH_TIMEOUT(pool.openCount(), 4, 20000);
    }

    // Fault: tor restarts, so its SOCKS port is 0 (not ready) or gone for a while, and every slot
    // is retried every replaceDelay. Those attempts reach no tor and build no circuit: they must
    // not spend the budget, or the call would come back at the rationed pace.
    void dialsThatReachNoTorAreFree_data() {
        QTest::addColumn<int>("noTor");
        QTest::newRow("no endpoint") << 0;
        QTest::newRow("closed port") << 1;
        QTest::newRow("no unix socket") << 2;
    }

    void dialsThatReachNoTorAreFree() {
        QFETCH(int, noTor);
        SocksEndpoint gone;
        QTemporaryDir directory;
        if (noTor == 1) {
            QTcpServer closed;
            closed.listen(QHostAddress::LocalHost);
            gone = SocksEndpoint::loopbackPort(closed.serverPort());
        } else if (noTor == 2) {
            gone = SocksEndpoint::unixSocket(directory.filePath(QStringLiteral("socks.sock")));
        }
        ScriptedSocks socks;
        bool torUp = false;
        LinkPoolConfig config = poolConfig(socks, 2);
        config.socksFor = [&](std::uint8_t) {
            return torUp ? socks.endpoint() : gone;
        };
        config.replaceDelay = 10ms;
        config.dialsPerLink = 1;
        config.dialRefillPerLink = 1200s;
        config.hedgeDelay = 3600s;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        pool.start();
        QTRY_VERIFY(down.size() >= 10);
        torUp = true;
        QTRY_COMPARE(pool.openCount(), 2);
        QCOMPARE(socks.sessions.size(), std::size_t(2));
    }

    // A peer refusing our introductions (tor answers 0xF2 after building circuits for the attempt)
    // or tor dropping us after the CONNECT: those attempts may have built circuits and stay spent.
    void dialsTorMayHaveActedOnAreSpent_data() {
        QTest::addColumn<int>("behaviour");
        QTest::newRow("introduction failed") << int(ScriptedSocks::Behaviour::Reply);
        QTest::newRow("dropped after CONNECT") << int(ScriptedSocks::Behaviour::DropAfterConnect);
    }

    void dialsTorMayHaveActedOnAreSpent() {
        QFETCH(int, behaviour);
        ScriptedSocks socks;
        socks.behaviour = ScriptedSocks::Behaviour(behaviour);
        socks.replyCode = 0xF2;
        LinkPoolConfig config = poolConfig(socks, 2);
        config.replaceDelay = 10ms;
        config.hedgeDelay = 3600s;
        config.dialsPerLink = 3;
        config.dialRefillPerLink = 1200s;
        LinkPool pool(config);
        QSignalSpy down(&pool, &LinkPool::linkDown);
        pool.start();
        QTRY_COMPARE(down.size(), 6);
        QTest::qWait(300);
        QCOMPARE(socks.sessions.size(), std::size_t(6));
    }

    // A second attempt beside a slow one never takes the dial that a slot which is down waits for:
    // none once the budget could not dial every slot again.
    void noSecondAttemptOnTheLastDials() {
        ScriptedSocks socks;
        socks.silent = {1}; // the first attempt of slot 1 hangs
        LinkPoolConfig config = poolConfig(socks, 2);
        config.connectTimeout = 600s;
        config.relinkTimeout = 600s;
        config.hedgeDelay = 50ms;
        config.dialsPerLink = 2; // 4 dials: after the first two, only the 2 that every slot needs
        config.dialRefillPerLink = 1200s;
        LinkPool pool(config);
        pool.start(1);
        QTRY_COMPARE(pool.openCount(), 1);
        pool.start();
        QTRY_COMPARE(socks.sessions.size(), std::size_t(2));
        QTest::qWait(300);
        QCOMPARE(socks.sessions.size(), std::size_t(2));
        QCOMPARE(pool.openCount(), 1);
    }

    void dialBudgetIsATokenBucket() {
        using Clock = DialBudget::Clock;
        const Clock::time_point t0{};
        DialBudget budget(3, 10s);
        QCOMPARE(budget.left(t0), 3);
        for (int i = 0; i < 3; ++i)
            QVERIFY(budget.take(t0 + 1s));
        QVERIFY(!budget.take(t0 + 1s));
        QVERIFY(budget.untilNext(t0 + 1s) == 10s); // counted from the first dial of the burst
        QVERIFY(budget.untilNext(t0 + 4s) == 7s);
        // What accrued beyond the whole dials counts towards the next one.
        QVERIFY(budget.take(t0 + 15s));
        QVERIFY(budget.untilNext(t0 + 15s) == 6s);
        QVERIFY(!budget.take(t0 + 20s));
        QVERIFY(budget.take(t0 + 21s));
        QVERIFY(!budget.take(t0 + 21s));
        QVERIFY(budget.untilNext(t0 + 21s) == 10s);
        QCOMPARE(budget.left(t0 + 41s), 2);
        budget.giveBack();
        QCOMPARE(budget.left(t0 + 41s), 3);
        // A full bucket stays at its burst however long it waits.
        QVERIFY(budget.take(t0 + 1000s));
        QCOMPARE(budget.left(t0 + 5000s), 3);
        for (int i = 0; i < 3; ++i)
            QVERIFY(budget.take(t0 + 5000s));
        QVERIFY(!budget.take(t0 + 5000s));
    }

    void poolDialsInStages() {
        ScriptedSocks socks;
        LinkPoolConfig config = poolConfig(socks, 5);
        LinkPool pool(config);
        pool.start(1);
        QTRY_COMPARE(pool.openCount(), 1);
        QTest::qWait(100);
        QCOMPARE(socks.sessions.size(), std::size_t(1));
        QVERIFY(pool.link(0) != nullptr);
        QVERIFY(pool.link(1) == nullptr);
        pool.start();
        QTRY_COMPARE(pool.openCount(), 5);
        QCOMPARE(socks.sessions.size(), std::size_t(5));
    }
};

QTEST_GUILESS_MAIN(TestLinkPool)
#include "tst_linkpool.moc"
