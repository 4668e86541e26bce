// A stranger who only opens streams to a callee's onion service and sends nothing, on a few
// circuits of its own tor, while a contact calls. It keeps tor's per-circuit limit (MaxStreams,
// 4) and opens a new stream on a circuit the moment the callee closes one there, so its streams
// arrive as fast as the callee closes them: with more of them live than the callee holds
// unproven (32), each arrival pushes out the stream that has been silent longest. A genuine link
// is silent from the moment the callee takes it until its first record arrives; the contact's
// call must connect with all its links all the same. Prints what was measured: streams a second,
// the attacker's round trip, links up, time to connect (with and without the attack).
#include "../testnet/TestnetEngine.h"
#include "AttackScene.h"
#include "call/CallEngine.h"
#include "media/NullBackend.h"
#include "net/SocksHandshake.h"

#include <QElapsedTimer>
#include <QLocalSocket>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <atomic>

using namespace onionvoice;
using namespace onionvoice::call;
using namespace std::chrono_literals;

namespace {

using testnet::kStartTimeout;
// Longer than a plain call's: the attack loads the callee's tor with introductions.
constexpr int kCallTimeout = 90000;
// 16 circuits of 4 streams: 64 streams live, twice the callee's bound of 32 unproven links.
constexpr int kCircuits = 16;
constexpr int kStreamsPerCircuit = 4; // the service's MaxStreams: tor closes fuller circuits
constexpr int kLinks = CallParameters{}.links;
// Each way between the caller's engine and its tor (DelayRelay): its links' round trip becomes
// about 0.6 s, a public network's rendezvous circuit.
constexpr std::chrono::milliseconds kCallerDelay = 250ms;

// One of the attacker's streams: the SOCKS exchange, then silence.
struct SilentStream : QObject {
    SilentStream(QObject* parent, const QByteArray& host, quint16 port, int circuit)
        : QObject(parent)
        , socks(host, port, "cycler-" + QByteArray::number(circuit))
        , circuit(circuit) {}
    QLocalSocket socket{this};
    net::SocksHandshake socks;
    QByteArray in;
    int circuit = 0;
    bool open = false;
    bool done = false;
    QElapsedTimer clock; // from the SOCKS request to tor's answer, then to the close
};

// The attacker, on a thread of its own (the callee's engine must not wait for it, nor it for
// the callee): silent streams through its tor's SOCKS socket, each replaced on its circuit as
// soon as it closes.
class StreamCycler : public QObject {
public:
    std::atomic<qint64> opened{0};     // SOCKS requests sent
    std::atomic<qint64> accepted{0};   // tor answered: the callee's listener took the stream
    std::atomic<qint64> closed{0};     // accepted, then closed by the callee (or its tor)
    std::atomic<qint64> refused{0};    // never accepted (a circuit closed, tor gave up)
    std::atomic<qint64> toAcceptMs{0}; // summed: the attacker's circuit round trips
    std::atomic<qint64> toCloseMs{0};  // summed: how long the callee held its streams

    StreamCycler(QString socks, const QString& onion, quint16 port)
        : socks_(std::move(socks))
        , host_(onion.toLatin1() + ".onion")
        , port_(port) {}

    void start() {
        for (int circuit = 0; circuit < kCircuits; ++circuit)
            for (int i = 0; i < kStreamsPerCircuit; ++i)
                open(circuit);
    }
    void stop() {
        stopped_ = true;
        qDeleteAll(findChildren<SilentStream*>(Qt::FindDirectChildrenOnly));
    }

private:
    void open(int circuit) {
        if (stopped_)
            return;
        ++opened;
        auto* s = new SilentStream(this, host_, port_, circuit);
        connect(&s->socket, &QLocalSocket::connected, s,
                [s] { s->socket.write(s->socks.greeting()); });
        connect(&s->socket, &QLocalSocket::readyRead, s, [this, s] {
            s->in.append(s->socket.readAll());
            if (s->open)
                return;
            QByteArray out;
            const auto outcome = s->socks.consume(s->in, out);
            s->socket.write(out);
            if (outcome == net::SocksHandshake::Outcome::Open) {
                s->open = true;
                toAcceptMs += s->clock.restart();
                ++accepted;
            }
        });
        connect(&s->socket, &QLocalSocket::disconnected, this, [this, s] { ended(s); });
        connect(&s->socket, &QLocalSocket::errorOccurred, this, [this, s] { ended(s); });
        s->clock.start();
        s->socket.connectToServer(socks_);
    }
    // Its replacement at once: the circuit has a free stream again. One tor could not open waits
    // a little: its circuit may be rebuilding.
    void ended(SilentStream* s) {
        if (stopped_ || s->done)
            return;
        s->done = true;
        ++(s->open ? closed : refused);
        if (s->open)
            toCloseMs += s->clock.elapsed();
        QTimer::singleShot(s->open ? 0ms : 200ms, this,
                           [this, circuit = s->circuit] { open(circuit); });
        s->deleteLater();
    }

    QString socks_;
    QByteArray host_;
    quint16 port_;
    bool stopped_ = false;
};

// Between the caller's engine and its tor's SOCKS socket: every byte each way waits `delay`, so
// the round trip of the caller's links, from the callee taking the stream to its first record,
// grows by twice that. The loopback network's rendezvous circuits take about 0.12 s; the public
// network's about 0.5-1.5 s, and an attacker there builds as many circuits as it needs.
class DelayRelay : public QObject {
public:
    DelayRelay(std::function<QString()> target, std::chrono::milliseconds delay)
        : target_(std::move(target))
        , delay_(delay) {
        server_.listen(QHostAddress::LocalHost);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* in = server_.nextPendingConnection())
                relay(in);
        });
    }
    quint16 port() const { return server_.serverPort(); }

private:
    void relay(QTcpSocket* in) {
        auto* out = new QLocalSocket(in);
        auto* early = new QByteArray;
        connect(out, &QObject::destroyed, [early] { delete early; });
        const auto later = [this](QIODevice* to, QByteArray bytes) {
            QTimer::singleShot(delay_, to, [to, bytes] { to->write(bytes); });
        };
        connect(in, &QTcpSocket::readyRead, out, [in, out, early, later] {
            if (out->state() == QLocalSocket::ConnectedState)
                later(out, in->readAll());
            else
                early->append(in->readAll());
        });
        connect(out, &QLocalSocket::connected, out, [out, early, later] {
            if (!early->isEmpty())
                later(out, *early);
        });
        connect(out, &QLocalSocket::readyRead, in, [in, out, later] { later(in, out->readAll()); });
        const auto closeLater = [this, in] {
            QTimer::singleShot(delay_, in, [in] {
                in->disconnectFromHost();
                in->deleteLater();
            });
        };
        connect(out, &QLocalSocket::disconnected, in, closeLater);
        connect(in, &QTcpSocket::disconnected, in, closeLater);
        out->connectToServer(target_());
    }

    QTcpServer server_;
    std::function<QString()> target_;
    std::chrono::milliseconds delay_;
};

// The attack, running from construction to destruction.
class Attack {
public:
    Attack(const QString& socks, const QString& onion, quint16 port)
        : cycler_(new StreamCycler(socks, onion, port)) {
        cycler_->moveToThread(&thread_);
        QObject::connect(&thread_, &QThread::finished, cycler_, &QObject::deleteLater);
        thread_.start();
        QMetaObject::invokeMethod(cycler_, [c = cycler_] { c->start(); });
    }
    ~Attack() {
        QMetaObject::invokeMethod(
            cycler_, [c = cycler_] { c->stop(); }, Qt::BlockingQueuedConnection);
        thread_.quit();
        thread_.wait();
    }
    Attack(const Attack&) = delete;
    Attack& operator=(const Attack&) = delete;
    const StreamCycler& cycler() const { return *cycler_; }

private:
    QThread thread_;
    StreamCycler* cycler_; // lives on thread_, deleted there
};

} // namespace

class StreamCyclingTest : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<CallEngine> victim_, friend_;
    std::unique_ptr<tor::TorLauncher> attackerTor_;
    DelayRelay relay_{[this] { return friend_->torLauncher()->socksSocketPath(); }, kCallerDelay};

    std::unique_ptr<CallEngine> engine(const QString& name, std::vector<quint16> slotSocks = {}) {
        EngineConfig config = testnet::engineConfig(name); // data made afresh
        config.slotSocksPorts = std::move(slotSocks);
        config.dialTimeout = 90s;
        config.audio = [](QString*) -> std::unique_ptr<media::AudioBackend> {
            return std::make_unique<media::NullBackend>();
        };
        return std::make_unique<CallEngine>(config);
    }

    struct Connected {
        bool active = false;
        EndReason ended = EndReason::None;
        qint64 elapsedMs = 0;
        int calleeLinks = 0, callerLinks = 0;
    };
    // The friend calls the victim, who answers; waits until the call is active (or ended) and
    // then until every link is up on both sides or the wait runs out.
    Connected friendCalls() {
        Connected result;
        QSignalSpy friendStates(friend_.get(), &CallEngine::callStateChanged);
        QSignalSpy victimStatistics(victim_.get(), &CallEngine::statisticsChanged);
        QSignalSpy friendStatistics(friend_.get(), &CallEngine::statisticsChanged);
        QElapsedTimer clock;
        clock.start();
        friend_->dial(victim_->address());
        const auto settled = [&] {
            return friend_->callState() == CallState::Active ||
                   std::any_of(friendStates.begin(), friendStates.end(), [](const auto& args) {
                       return args.at(0).template value<CallState>() == CallState::Ended;
                   });
        };
        static_cast<void>(QTest::qWaitFor(settled, kCallTimeout));
        result.elapsedMs = clock.elapsed();
        result.active = friend_->callState() == CallState::Active;
        for (const auto& args : friendStates)
            if (args.at(0).value<CallState>() == CallState::Ended)
                result.ended = args.at(2).value<EndReason>();
        if (!result.active)
            return result;
        const auto last = [](const QSignalSpy& spy) {
            return spy.isEmpty() ? 0 : spy.last().at(0).value<CallStatistics>().linksUp();
        };
        static_cast<void>(QTest::qWaitFor(
            [&] { return last(victimStatistics) == kLinks && last(friendStatistics) == kLinks; },
            60000));
        result.calleeLinks = last(victimStatistics);
        result.callerLinks = last(friendStatistics);
        friend_->hangUp();
        static_cast<void>(
            QTest::qWaitFor([&] { return victim_->callState() == CallState::Idle; }, 15000));
        static_cast<void>(
            QTest::qWaitFor([&] { return friend_->callState() == CallState::Idle; }, 15000));
        return result;
    }

private slots:
    void initTestCase() {
        testnet::dieWithParent();
        if (testnet::networkDirectory().isEmpty())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        victim_ = engine("cycling-victim");
        friend_ = engine("cycling-friend", std::vector<quint16>(kLinks, relay_.port()));
        attackerTor_ = std::make_unique<tor::TorLauncher>(testnet::clientConfig("cycler"));
        testing::setTheAttackScene(*victim_, *friend_, *attackerTor_);
        if (QTest::currentTestFailed())
            return;
        const Connected baseline = friendCalls();
        QVERIFY2(baseline.active, "the call without an attack did not connect");
        qInfo("without attack: active after %lld ms, links up: callee %d, caller %d",
              baseline.elapsedMs, baseline.calleeLinks, baseline.callerLinks);
    }

    // Before the fix the caller sent its Hello (and each further link its Join) only once tor
    // had told it the stream was open: a full circuit round trip after the callee had taken the
    // stream, long enough for 32 of the attacker's streams to arrive behind it and push it out.
    // The Hello's link closed, and the call ended (NetworkFailure) before it rang.
    void cyclingStreamsDoNotKeepAContactOut() {
        const Attack attack(attackerTor_->socksSocketPath(), victim_->address(),
                            EngineConfig{}.servicePort);
        const StreamCycler& cycler = attack.cycler();
        const RefusalCounters& refusals = victim_->refusals();
        // The attack at full speed: its circuits built, the callee pushing streams out.
        const auto before = refusals.linksOverLimit;
        QTRY_VERIFY_WITH_TIMEOUT(refusals.linksOverLimit > before + 500, kCallTimeout);
        QElapsedTimer clock;
        clock.start();
        const auto pushedFrom = refusals.linksOverLimit;
        const qint64 acceptedFrom = cycler.accepted;

        const Connected call = friendCalls();

        const double seconds = double(clock.elapsed()) / 1000.0;
        qInfo("attack: %d circuits x %d streams; %.0f streams/s taken by the callee's listener, "
              "%.0f/s pushed out unproven; %lld opened, %lld refused by tor; the attacker's "
              "round trip %.0f ms, the callee held each stream %.0f ms",
              kCircuits, kStreamsPerCircuit, double(cycler.accepted - acceptedFrom) / seconds,
              double(refusals.linksOverLimit - pushedFrom) / seconds, qint64(cycler.opened),
              qint64(cycler.refused), double(cycler.toAcceptMs) / double(cycler.accepted),
              double(cycler.toCloseMs) / double(std::max<qint64>(cycler.closed, 1)));
        qInfo("contact's call under attack: %s after %lld ms (%s), links up: callee %d, caller "
              "%d of %d",
              call.active ? "active" : "not active", call.elapsedMs,
              qPrintable(describe(call.ended)), call.calleeLinks, call.callerLinks, kLinks);
        // The attack went on through the dial: more streams were pushed out meanwhile than the
        // listener holds (32), as many as once pushed the Hello's link out on the old code. A
        // cycler that stalled would have let the contact call an idle callee.
        QVERIFY2(refusals.linksOverLimit - pushedFrom > 32,
                 qPrintable(QStringLiteral("only %1 streams pushed out during the call")
                                .arg(refusals.linksOverLimit - pushedFrom)));
        QVERIFY2(call.active, "the contact's call did not connect under the attack");
        QCOMPARE(call.calleeLinks, kLinks);
        QCOMPARE(call.callerLinks, kLinks);
    }

    void cleanupTestCase() {
        victim_.reset();
        friend_.reset();
        attackerTor_.reset();
    }
};

QTEST_GUILESS_MAIN(StreamCyclingTest)
#include "tst_streamcycling.moc"
