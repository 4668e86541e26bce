// Integration tests of calls between engines on the private Tor network (tests/testnet): a full
// call with audio both ways, every way a call can be refused or end (an audio device that cannot
// start among them), an impostor, replayed and forged records and a wrong join token, and the
// contacts-only mode.
#include "../testnet/TestnetEnv.h"
#include "call/CallEngine.h"
#include "call/OutgoingDial.h"
#include "media/WavFile.h"
#include "media/WavFileBackend.h"
#include "multipath/MultipathEndpoint.h"
#include "net/OnionLink.h"
#include "tor/ClientAuthKey.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <cerrno>
#include <cmath>
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
using namespace std::chrono_literals;

namespace {

constexpr int kStartTimeout = 90000;
constexpr int kCallTimeout = 60000;
constexpr std::chrono::milliseconds kRingTimeout = 8s;

struct Party {
    QString name;
    std::unique_ptr<CallEngine> engine;
    QString recording;
    // When not empty, the party's audio device fails to start with this error.
    std::shared_ptr<QString> audioFault = std::make_shared<QString>();
    std::unique_ptr<QSignalSpy> states, incoming, refused, statistics;

    EndReason endReason() const {
        for (const auto& args : *states)
            if (args.at(0).value<CallState>() == CallState::Ended)
                return args.at(2).value<EndReason>();
        return EndReason::None;
    }
    bool reached(CallState state) const {
        return std::any_of(states->begin(), states->end(), [&](const auto& args) {
            return args.at(0).template value<CallState>() == state;
        });
    }
    CallStatistics lastStatistics() const {
        return statistics->last().at(0).value<CallStatistics>();
    }
    void clear() {
        states->clear();
        incoming->clear();
        refused->clear();
        statistics->clear();
    }
};

QString speechFile() {
    static QTemporaryDir dir;
    const QString path = dir.filePath("speech.wav");
    if (!QFile::exists(path)) {
        QProcess p;
        p.start("sh", {QStringLiteral(ONIONVOICE_SPEECH_SCRIPT), path});
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            qFatal("cannot make test speech: %s", p.readAllStandardError().constData());
    }
    return path;
}

// Fraction of 20 ms frames of a recording whose level is that of speech, not silence.
double speechFraction(const QString& path) {
    media::WavAudio audio;
    QString error;
    if (!media::readWavFile(path, &audio, &error))
        return 0;
    const std::size_t frame = std::size_t(audio.sampleRate / 50);
    std::size_t frames = 0, loud = 0;
    for (std::size_t i = 0; i + frame <= audio.samples.size(); i += frame, ++frames) {
        double energy = 0;
        for (std::size_t j = 0; j < frame; ++j)
            energy += double(audio.samples[i + j]) * audio.samples[i + j];
        loud += std::sqrt(energy / double(frame)) > 0.01 ? 1 : 0;
    }
    return frames ? double(loud) / double(frames) : 0;
}

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

class CallsTest : public QObject {
    Q_OBJECT
private:
    std::map<QString, Party> parties_;
    QTemporaryDir recordings_;

    Party& party(const QString& name) { return parties_.at(name); }

    void addParty(const QString& name, EngineConfig config, bool wipe = true) {
        Party& p = parties_[name];
        p.name = name;
        p.recording = recordings_.filePath(name + "-heard.wav");
        config.dataDirectory =
            wipe ? testnet::clientConfig(name).dataDirectory
                 : QDir(testnet::networkDirectory()).absoluteFilePath("../apps/" + name);
        config.extraTorrcLines = testnet::clientTorrcLines();
        const QString input = speechFile(), output = p.recording;
        config.audio = [input, output, fault = p.audioFault](
                           QString* error) -> std::unique_ptr<media::AudioBackend> {
            if (!fault->isEmpty()) {
                *error = *fault;
                return nullptr;
            }
            return media::WavFileBackend::create(input, output, media::Pacing::RealTime, error);
        };
        p.engine = std::make_unique<CallEngine>(config);
        p.states = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::callStateChanged);
        p.incoming = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::incomingCall);
        p.refused = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::callRefused);
        p.statistics = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::statisticsChanged);
        QString error;
        QVERIFY2(p.engine->start(&error), qPrintable(error));
    }

    // `caller` rings `callee`, who rejects the call.
    void ringAndReject(Party& caller, Party& callee) {
        caller.engine->dial(callee.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(callee.reached(CallState::Ringing), kCallTimeout);
        QCOMPARE(callee.incoming->first().at(0).toString(), caller.engine->address());
        callee.engine->reject();
        QTRY_COMPARE_WITH_TIMEOUT(caller.endReason(), EndReason::RejectedByPeer, 10000);
    }

    // Waits until `p`'s service, republished since it had `published` publications, is reachable
    // and every HSDir it uploaded to has answered: a caller whose tor still holds the descriptor
    // before (its introduction points gone) would otherwise fetch it again from a directory that
    // has not got the new one yet, and wait on dead introduction points past the dial timeout.
    void waitRepublished(Party& p, int published) {
        QTRY_COMPARE_WITH_TIMEOUT(p.engine->service()->publishCount(), published + 1, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(p.engine->service()->state(), tor::OnionService::State::Reachable,
                                  kStartTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(p.engine->service()->uploads().allSettled(), kStartTimeout);
    }

    void waitIdle(std::initializer_list<const char*> names) {
        for (const char* n : names)
            QTRY_COMPARE_WITH_TIMEOUT(party(n).engine->callState(), CallState::Idle, 5000);
        for (const char* n : names)
            party(n).clear();
    }

    // Opens a link to `to` through `via`'s tor with its own circuit.
    std::unique_ptr<net::OnionLink> rawLink(const QString& via, const QString& to, int tag) {
        auto link = std::make_unique<net::OnionLink>(multipath::kRecordSize);
        link->connectToOnion(call::torSocksEndpoint(*party(via).engine->torLauncher()),
                             party(to).engine->address() + ".onion", EngineConfig{}.servicePort,
                             QByteArray("raw-") + QByteArray::number(tag), 60s);
        return link;
    }

private slots:
    // Every test starts from idle engines with empty spies, whatever an earlier failure left.
    void init() {
        for (auto& [name, p] : parties_) {
            p.audioFault->clear();
            if (p.engine->callState() != CallState::Idle)
                p.engine->hangUp();
            if (name == "bob" || name == "carol") { // dave's key stays (alice keeps all)
                const auto contacts = p.engine->contacts().contacts();
                for (const auto& c : contacts)
                    if (c.address != party("dave").engine->address())
                        p.engine->contacts().remove(c.address);
            }
            p.engine->setUnknownCallers(UnknownCallers::Ring);
        }
        for (auto& [name, p] : parties_) {
            QTRY_COMPARE_WITH_TIMEOUT(p.engine->callState(), CallState::Idle, 5000);
            p.clear();
        }
    }

    void initTestCase() {
        if (testnet::networkDirectory().isEmpty())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        EngineConfig config;
        config.ringTimeout = kRingTimeout;
        config.linkProofTimeout = 3s;
        config.dialTimeout = 40s;
        // These parties call each other often; the limits themselves are attacked in
        // tests/security.
        config.defence.ringsPerCallerPerMinute = 100;
        config.defence.strangerRingsPerMinute = 100;
        for (const char* name : {"alice", "bob", "carol"})
            addParty(name, config);
        // dave's service admits only alice and bob, who hold the client keys dave made for them.
        const tor::ClientAuthKey key = tor::ClientAuthKey::generate();
        const tor::ClientAuthKey bobKey = tor::ClientAuthKey::generate();
        const auto raw = [](std::span<const std::uint8_t, 32> k) {
            return QByteArray(reinterpret_cast<const char*>(k.data()), 32);
        };
        EngineConfig closed = config;
        closed.access = ServiceAccess::ContactsOnly;
        const QString daveDir = testnet::clientConfig("dave").dataDirectory;
        contacts::ContactBook daveBook(daveDir + "/contacts.json");
        QString error;
        QVERIFY(daveBook.add(
            {party("alice").engine->address(), "Alice", {}, false, true, raw(key.publicKey()), {}},
            &error));
        QVERIFY(daveBook.add(
            {party("bob").engine->address(), "Bob", {}, false, true, raw(bobKey.publicKey()), {}},
            &error));
        QVERIFY(daveBook.save(&error));
        addParty("dave", closed, /*wipe=*/false);
        QVERIFY(party("alice").engine->contacts().add(
            {party("dave").engine->address(), "Dave", {}, false, false, {}, raw(key.privateKey())},
            &error));
        QVERIFY(party("bob").engine->contacts().add({party("dave").engine->address(),
                                                     "Dave",
                                                     {},
                                                     false,
                                                     false,
                                                     {},
                                                     raw(bobKey.privateKey())},
                                                    &error));

        // erin is new: contacts-only, and nobody holds a key to her service yet.
        addParty("erin", closed);

        for (auto& [name, p] : parties_)
            if (name != "erin")
                QTRY_COMPARE_WITH_TIMEOUT(p.engine->service()->state(),
                                          tor::OnionService::State::Reachable, kStartTimeout);
    }

    void fullCallWithAudioBothWays() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        connect(bob.engine.get(), &CallEngine::incomingCall, bob.engine.get(), &CallEngine::answer,
                Qt::SingleShotConnection);
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), kCallTimeout);
        QCOMPARE(bob.incoming->size(), 1);
        QCOMPARE(bob.incoming->first().at(0).toString(), alice.engine->address()); // verified
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), 10000);
        // All twelve links join on both sides.
        const auto linksUp = [](const Party& p) {
            if (p.statistics->isEmpty())
                return 0;
            const auto links = p.lastStatistics().links;
            return int(std::count_if(links.begin(), links.end(),
                                     [](const LinkStatistics& l) { return l.state == "up"; }));
        };
        QTRY_COMPARE_WITH_TIMEOUT(linksUp(alice), 12, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(linksUp(bob), 12, 30000);
        QTest::qWait(20000); // 20 s of audio both ways
        bob.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::HungUpByPeer, 10000);
        QCOMPARE(bob.endReason(), EndReason::HungUpLocally);

        for (const Party* p : {&alice, &bob}) {
            const CallStatistics s = p->lastStatistics();
            QVERIFY2(s.framesReceived > 400, qPrintable(QString::number(s.framesReceived)));
            int carried = 0;
            for (const LinkStatistics& l : s.links)
                carried += l.recordsSent > 0 ? 1 : 0;
            // Every link: the scheduler sends a copy over any link it has not used for 3 s
            // (AdaptivePolicy's exploration), so in 20 s none stays unused.
            QCOMPARE(carried, 12);
            QVERIFY(s.cellsPerSecond < 30); // one record per 40 ms packet, plus a few copies
            QCOMPARE(s.recordsRejected, 0u);
            qInfo("%s: %llu frames, p50 %.0f ms, p99 %.0f ms, MOS %.2f, %d links carried records",
                  qPrintable(p->name), (unsigned long long)s.framesReceived, s.delayP50Ms,
                  s.delayP99Ms, s.mos, carried);
        }
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(alice.recording) && QFile::exists(bob.recording),
                                 5000);
        QVERIFY2(speechFraction(alice.recording) > 0.3, "alice heard no speech");
        QVERIFY2(speechFraction(bob.recording) > 0.3, "bob heard no speech");
        waitIdle({"alice", "bob"});
    }

    // Fault: the callee's audio device cannot start (a machine without a microphone), then the
    // caller's. The call ended as "you hung up" and the audio error, reported just before, was
    // overwritten by that end in the app. It must end as AudioFailed, straight after the error
    // (the app pairs the two), while the other side sees an ordinary hang-up.
    void audioThatCannotStartEndsTheCallAsSuch() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        for (Party* broken : {&bob, &alice}) {
            Party& other = broken == &bob ? alice : bob;
            *broken->audioFault = QStringLiteral("no input device");
            QStringList said;
            QObject context;
            connect(broken->engine.get(), &CallEngine::errorOccurred, &context,
                    [&](const QString& message) { said.append(message); });
            connect(broken->engine.get(), &CallEngine::callStateChanged, &context,
                    [&](CallState state, const QString&, EndReason reason) {
                        if (state == CallState::Ended)
                            said.append(describe(reason));
                    });
            connect(bob.engine.get(), &CallEngine::incomingCall, bob.engine.get(),
                    &CallEngine::answer, Qt::SingleShotConnection);
            alice.engine->dial(bob.engine->address());
            QTRY_COMPARE_WITH_TIMEOUT(broken->endReason(), EndReason::AudioFailed, kCallTimeout);
            QCOMPARE(said, QStringList({QStringLiteral("Audio could not start: no input device"),
                                        describe(EndReason::AudioFailed)}));
            QTRY_COMPARE_WITH_TIMEOUT(other.endReason(), EndReason::HungUpByPeer, 10000);
            broken->audioFault->clear();
            waitIdle({"alice", "bob"});
        }
    }

    void rejected() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        connect(bob.engine.get(), &CallEngine::incomingCall, bob.engine.get(), &CallEngine::reject,
                Qt::SingleShotConnection);
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::RejectedByPeer, kCallTimeout);
        QCOMPARE(bob.endReason(), EndReason::RejectedLocally);
        waitIdle({"alice", "bob"});
    }

    // Attack: a stranger probes whether bob is in a call. Before the fix carol got "Busy"; now
    // she hears it ring unanswered, as when bob is idle and does not pick up.
    void strangerCannotTellBusy() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        Party& carol = party("carol");
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Ringing), kCallTimeout);
        carol.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(carol.reached(CallState::Ringing), kCallTimeout);
        QCOMPARE(bob.refused->size(), 1);
        QVERIFY(bob.refused->first().at(0).toString() == carol.engine->address());
        QCOMPARE(bob.refused->first().at(1).value<EndReason>(), EndReason::Busy);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::Cancelled, 10000);
        QCOMPARE(alice.endReason(), EndReason::Cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(carol.endReason(), EndReason::NoAnswer, kCallTimeout);
        QCOMPARE(bob.incoming->size(), 1); // only alice rang
        waitIdle({"alice", "bob", "carol"});
    }

    // A contact calling while a stranger's call rings is not kept out: the stranger's ring
    // ends, the contact's rings. A contact calling during a call hears "busy", and bob gets a
    // missed-call notice.
    // A contact's call displaces a stranger's ring. Attack: the displaced stranger heard NoAnswer
    // at once, where an unanswered ring lasts its full time, and so learnt the moment a contact
    // of ours called; now its ring goes on to its end. Bob hands it to the rings that go on
    // unanswered (counted with the decoy rings); how long it goes on (ringTimeLeft) and that it
    // then ends as NoAnswer (IncomingLinks::letRingOn) are tested in tst_incominglinks.
    void contactGetsThrough() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        Party& carol = party("carol");
        QString error;
        QVERIFY(bob.engine->contacts().add(
            {alice.engine->address(), "Alice", {}, false, false, {}, {}}, &error));
        carol.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Ringing), kCallTimeout);
        const auto decoys = bob.engine->refusals().decoyRings;
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(bob.incoming->size(), 2, kCallTimeout);
        QCOMPARE(bob.incoming->last().at(0).toString(), alice.engine->address());
        QCOMPARE(bob.incoming->last().at(1).toString(), QStringLiteral("Alice"));
        QCOMPARE(bob.endReason(), EndReason::NoAnswer);          // carol's ring, displaced
        QCOMPARE(bob.engine->refusals().decoyRings, decoys + 1); // ringing on, not refused
        bob.engine->answer();
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        // Carol's ring ends as an unanswered one: NoAnswer, not a closed link (Unreachable, a
        // network failure) nor "busy".
        QTRY_COMPARE_WITH_TIMEOUT(carol.endReason(), EndReason::NoAnswer, kCallTimeout);
        // Now busy for real: a contact calling (carol, now in bob's contacts) hears so and bob
        // is told about the missed call.
        QVERIFY(bob.engine->contacts().add(
            {carol.engine->address(), "Carol", {}, false, false, {}, {}}, &error));
        bob.clear();
        carol.clear();
        carol.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(carol.endReason(), EndReason::Busy, kCallTimeout);
        QTRY_COMPARE(bob.refused->size(), 1);
        QCOMPARE(bob.refused->last().at(0).toString(), carol.engine->address());
        QCOMPARE(bob.refused->last().at(1).value<EndReason>(), EndReason::Busy);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        QVERIFY(bob.engine->contacts().remove(alice.engine->address()));
        QVERIFY(bob.engine->contacts().remove(carol.engine->address()));
        waitIdle({"alice", "bob", "carol"});
    }

    void noAnswer() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Ringing), kCallTimeout);
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::NoAnswer, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::NoAnswer, 10000);
        waitIdle({"alice", "bob"});
    }

    void blockedCaller() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        QString error;
        QVERIFY(bob.engine->contacts().add(
            {alice.engine->address(), "Alice", {}, true, false, {}, {}}, &error));
        // Attack: alice probes whether bob blocked her. Before the fix she got "NotAccepted";
        // now it rings unanswered, as for anyone bob does not pick up.
        const auto decoys = bob.engine->refusals().decoyRings;
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Ringing), kCallTimeout);
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::NoAnswer, kCallTimeout);
        QCOMPARE(bob.engine->refusals().decoyRings, decoys + 1); // was counted twice
        QTRY_COMPARE(bob.refused->size(), 1);
        QCOMPARE(bob.refused->first().at(1).value<EndReason>(), EndReason::NotAccepted);
        QVERIFY(bob.incoming->isEmpty()); // bob was not disturbed
        QCOMPARE(bob.engine->callState(), CallState::Idle);
        QVERIFY(bob.engine->contacts().remove(alice.engine->address()));
        waitIdle({"alice", "bob"});
    }

    // Fault: an application slot connected directly ends the call while the engine announces its
    // state (hangs up as soon as it dials, rejects as soon as it rings). The engine went on using
    // the call after the announcement and crashed on the null pointer.
    void endingTheCallFromTheStateSignal() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        const auto endAt = [](CallEngine* engine, CallState at, void (CallEngine::*how)()) {
            return connect(
                engine, &CallEngine::callStateChanged, engine,
                [engine, at, how](CallState state) {
                    if (state == at)
                        (engine->*how)();
                },
                Qt::DirectConnection);
        };
        auto hangUp = endAt(alice.engine.get(), CallState::Dialing, &CallEngine::hangUp);
        alice.engine->dial(bob.engine->address());
        QCOMPARE(alice.engine->callState(), CallState::Idle);
        QCOMPARE(alice.endReason(), EndReason::Cancelled);
        disconnect(hangUp);
        waitIdle({"alice"});

        auto reject = endAt(bob.engine.get(), CallState::Ringing, &CallEngine::reject);
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::RejectedByPeer, kCallTimeout);
        QCOMPARE(bob.endReason(), EndReason::RejectedLocally);
        QVERIFY(bob.incoming->isEmpty()); // rejected before it was announced as a call
        disconnect(reject);
        waitIdle({"alice", "bob"});

        // Answered as soon as it rings: the ring timeout armed after the announcement ended the
        // answered call with NoAnswer once it ran out.
        auto answer = endAt(bob.engine.get(), CallState::Ringing, &CallEngine::answer);
        alice.engine->dial(bob.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), kCallTimeout);
        disconnect(answer);
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        QTest::qWait(10000); // past bob's ring timeout of 8 s
        QCOMPARE(bob.engine->callState(), CallState::Active);
        QCOMPARE(bob.endReason(), EndReason::None);
        alice.engine->hangUp();
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, kCallTimeout);
        waitIdle({"alice", "bob"});
    }

    // Fault: an application slot connected directly hangs up when the call's statistics are
    // announced. The engine announced the final statistics from inside end() with the call still
    // in place, so the hang-up ended it again, and again (the stack overflowed); from the
    // periodic announcement it went on with the call it no longer had.
    void endingTheCallFromTheStatisticsSignal() {
        Party& alice = party("alice");
        Party& bob = party("bob");
        alice.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(bob.incoming->size(), 1, kCallTimeout);
        bob.engine->answer();
        QTRY_VERIFY_WITH_TIMEOUT(alice.reached(CallState::Active), kCallTimeout);
        CallEngine* engine = alice.engine.get();
        auto hangUp = connect(
            engine, &CallEngine::statisticsChanged, engine, [engine] { engine->hangUp(); },
            Qt::DirectConnection);
        QTRY_COMPARE_WITH_TIMEOUT(alice.endReason(), EndReason::HungUpLocally, kCallTimeout);
        disconnect(hangUp);
        QCOMPARE(alice.engine->callState(), CallState::Idle);
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, kCallTimeout);
        waitIdle({"alice", "bob"});
    }

    void unknownCallerRefused() {
        Party& carol = party("carol");
        Party& bob = party("bob");
        bob.engine->setUnknownCallers(UnknownCallers::Refuse);
        carol.engine->dial(bob.engine->address());
        QTRY_COMPARE_WITH_TIMEOUT(carol.endReason(), EndReason::NotAccepted, kCallTimeout);
        QTRY_COMPARE(bob.refused->size(), 1);
        QCOMPARE(bob.refused->first().at(1).value<EndReason>(), EndReason::NotAccepted);
        QVERIFY(bob.incoming->isEmpty());
        bob.engine->setUnknownCallers(UnknownCallers::Ring);
        waitIdle({"carol", "bob"});
    }

    void impostorIsRefused() {
        // carol signs a Hello that claims alice's address.
        Party& bob = party("bob");
        auto link = rawLink("carol", "bob", 1);
        QTRY_COMPARE_WITH_TIMEOUT(link->state(), net::OnionLink::State::Open, kCallTimeout);
        QSignalSpy replies(link.get(), &net::OnionLink::recordReceived);
        const QString carolDir = testnet::networkDirectory() + "/../apps/carol/identity.key";
        QString error;
        const auto carolId = tor::OnionIdentity::load(carolDir, &error);
        QVERIFY2(carolId, qPrintable(error));
        EphemeralKey e;
        Hello forged = makeHello(*carolId, bob.engine->address(), e, {}, 0,
                                 std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch()));
        forged.caller = party("alice").engine->address();
        link->sendRecord(encodeHandshake(forged));
        QTRY_COMPARE_WITH_TIMEOUT(replies.size(), 1, 10000);
        const HandshakeDecode answer = decodeHandshake(
            {reinterpret_cast<const std::uint8_t*>(replies.first().at(0).toByteArray().constData()),
             multipath::kRecordSize});
        QVERIFY(answer.message && std::holds_alternative<Refusal>(*answer.message));
        QCOMPARE(std::get<Refusal>(*answer.message).reason, RefusalReason::BadRequest);
        QTRY_COMPARE(bob.refused->size(), 1);
        QCOMPARE(bob.refused->first().at(1).value<EndReason>(), EndReason::ProtocolError);
        QVERIFY(bob.incoming->isEmpty());
        waitIdle({"bob"});
    }

    void replayedForgedAndUnprovenRecordsAreRejected() {
        // The test is the caller itself, with carol's identity, over raw links: it completes
        // a genuine handshake with bob and then misbehaves on some links.
        Party& bob = party("bob");
        connect(bob.engine.get(), &CallEngine::incomingCall, bob.engine.get(), &CallEngine::answer,
                Qt::SingleShotConnection);
        std::array<std::unique_ptr<net::OnionLink>, 4> links;
        for (int i = 0; i < 4; ++i)
            links[std::size_t(i)] = rawLink("carol", "bob", 10 + i);
        for (auto& l : links)
            QTRY_COMPARE_WITH_TIMEOUT(l->state(), net::OnionLink::State::Open, kCallTimeout);
        QSignalSpy control(links[0].get(), &net::OnionLink::recordReceived);
        QString error;
        const auto carolId = tor::OnionIdentity::load(
            testnet::networkDirectory() + "/../apps/carol/identity.key", &error);
        QVERIFY(carolId);
        EphemeralKey e;
        const Hello hello =
            makeHello(*carolId, bob.engine->address(), e, {32000, 40, 4, 4}, 0,
                      std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch()));
        links[0]->sendRecord(encodeHandshake(hello));
        // Ringing, then Accept; bob's first records may follow in the same poll interval.
        QTRY_VERIFY_WITH_TIMEOUT(control.size() >= 2, kCallTimeout);
        const auto accept = decodeHandshake(
            {reinterpret_cast<const std::uint8_t*>(control.at(1).at(0).toByteArray().constData()),
             multipath::kRecordSize});
        QVERIFY(accept.message && std::holds_alternative<Accept>(*accept.message));
        const auto keys = deriveCallKeys(Role::Caller, e, hello, std::get<Accept>(*accept.message));
        QVERIFY(keys);
        links[1]->sendRecord(encodeHandshake(makeJoin(*keys, 1)));
        links[2]->sendRecord(encodeHandshake(makeJoin(*keys, 2)));
        Join wrong = makeJoin(*keys, 3);
        wrong.token[5] ^= 0x40;
        QSignalSpy wrongClosed(links[3].get(), &net::OnionLink::failed);
        links[3]->sendRecord(encodeHandshake(wrong));
        QTRY_VERIFY_WITH_TIMEOUT(!wrongClosed.isEmpty(), 10000); // the unproven link is closed

        RecordSealer sealer(keys->send);
        multipath::MultipathEndpoint endpoint({}, multipath::makePolicy("simple"));
        endpoint.linkUp(0);
        std::vector<SealedRecord> sent;
        auto sendAudio = [&](std::uint32_t seq, int slot) {
            const multipath::Frame f{seq, std::vector<std::uint8_t>(100, std::uint8_t(seq))};
            const auto out = endpoint.sendPacket(multipath::Millis(40 * seq), std::span(&f, 1));
            sent.push_back(sealer.seal(out.front().bytes));
            links[std::size_t(slot)]->sendRecord(sent.back());
        };
        for (std::uint32_t seq = 0; seq < 20; ++seq)
            sendAudio(seq, seq % 2);
        QTRY_VERIFY_WITH_TIMEOUT(
            !bob.statistics->isEmpty() && bob.lastStatistics().framesReceived >= 20, 10000);
        const auto rejectedBefore = bob.lastStatistics().recordsRejected;

        links[1]->sendRecord(sent[4]); // replayed on another link
        // A fresh record (its counter not yet seen) with one bit changed on the way.
        const multipath::Frame next{20, std::vector<std::uint8_t>(100, 20)};
        SealedRecord forged = sealer.seal(
            endpoint.sendPacket(multipath::Millis(800), std::span(&next, 1)).front().bytes);
        forged[100] ^= 0x01;
        QSignalSpy forgedClosed(links[2].get(), &net::OnionLink::failed);
        links[2]->sendRecord(forged);
        QTRY_VERIFY_WITH_TIMEOUT(bob.lastStatistics().recordsRejected >= rejectedBefore + 2, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!forgedClosed.isEmpty(), 10000); // the forged link is closed
        // The call goes on over the other links.
        for (std::uint32_t seq = 21; seq < 41; ++seq)
            sendAudio(seq, 0);
        QTRY_VERIFY_WITH_TIMEOUT(bob.lastStatistics().framesReceived >= 40, 10000);
        QCOMPARE(bob.engine->callState(), CallState::Active);
        links[1]->sendRecord(sealer.seal(encodeControl(ControlCode::HangUp)));
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::HungUpByPeer, 10000);
        waitIdle({"bob"});
    }

    // A cancel that crosses the answer: the caller's plain Refusal arrives on the control link
    // after bob answered. Before the fix bob took it for a forged record and stayed "Active"
    // until the 20 s network-loss timeout.
    void cancelCrossingTheAnswerEndsTheCall() {
        Party& bob = party("bob");
        connect(bob.engine.get(), &CallEngine::incomingCall, bob.engine.get(), &CallEngine::answer,
                Qt::SingleShotConnection);
        auto link = rawLink("carol", "bob", 30);
        QTRY_COMPARE_WITH_TIMEOUT(link->state(), net::OnionLink::State::Open, kCallTimeout);
        QSignalSpy control(link.get(), &net::OnionLink::recordReceived);
        QString error;
        const auto carolId = tor::OnionIdentity::load(
            testnet::networkDirectory() + "/../apps/carol/identity.key", &error);
        QVERIFY(carolId);
        EphemeralKey e;
        link->sendRecord(encodeHandshake(
            makeHello(*carolId, bob.engine->address(), e, {32000, 40, 4, 4}, 0,
                      std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch()))));
        QTRY_VERIFY_WITH_TIMEOUT(control.size() >= 2, kCallTimeout); // Ringing, Accept
        QTRY_VERIFY_WITH_TIMEOUT(bob.reached(CallState::Active), 10000);
        link->sendRecord(encodeHandshake(Refusal{RefusalReason::Cancelled}));
        QTRY_COMPARE_WITH_TIMEOUT(bob.endReason(), EndReason::Cancelled, 10000);
        waitIdle({"bob"});
    }

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
        const auto raw = [](std::span<const std::uint8_t, 32> k) {
            return QByteArray(reinterpret_cast<const char*>(k.data()), 32);
        };
        QString error;
        QVERIFY(dave.engine->contacts().add(
            {carol.engine->address(), "Carol", {}, false, false, {}, {}}, &error));
        const int published = dave.engine->service()->publishCount();
        QVERIFY2(dave.engine->contacts().grantAccess(carol.engine->address(), raw(key.publicKey()),
                                                     &error),
                 qPrintable(error));
        waitRepublished(dave, published);
        QVERIFY(carol.engine->contacts().add(
            {dave.engine->address(), "Dave", {}, false, false, {}, raw(key.privateKey())}, &error));
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
            {party("bob").engine->address(),
             "Bob",
             {},
             false,
             true,
             QByteArray(reinterpret_cast<const char*>(key.publicKey().data()), 32),
             {}},
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

    void cleanupTestCase() {
        for (auto& [name, p] : parties_)
            p.engine->stop();
        parties_.clear();
    }
};

QTEST_GUILESS_MAIN(CallsTest)
#include "tst_calls.moc"
