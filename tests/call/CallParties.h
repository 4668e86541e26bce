// The parties of the call tests on the private Tor network (tst_calls, tst_whomayring,
// tst_contactsonly): engines that play a speech file and record what they hear, the spies on
// their signals, and the steps those tests share (ring and reject, wait until idle, open a raw
// link through a party's tor). Each test executable starts the parties it needs.
#pragma once

#include "../testnet/TestnetEngine.h"
#include "call/CallEngine.h"
#include "call/OutgoingDial.h"
#include "media/WavFile.h"
#include "media/WavFileBackend.h"
#include "multipath/Record.h"
#include "net/OnionLink.h"
#include "tor/OnionIdentity.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>

namespace onionvoice::call::testing {

using namespace std::chrono_literals;
using testnet::kCallTimeout;
using testnet::kStartTimeout;

// Short, so that tests of unanswered rings do not wait long.
constexpr std::chrono::milliseconds kRingTimeout = 8s;

struct Party {
    QString name;
    std::unique_ptr<CallEngine> engine;
    QString recording;
    // When not empty, the party's audio device fails to start with this error.
    std::shared_ptr<QString> audioFault = std::make_shared<QString>();
    // The audio device of its call under way (nullptr before the first): a test may stop it, as
    // an unplugged device stops.
    std::shared_ptr<media::AudioBackend*> audioDevice = std::make_shared<media::AudioBackend*>();
    std::unique_ptr<QSignalSpy> states, incoming, refused, statistics, errors;
    // What its tor did with onion services and streams (info; notices of the rest): read when a
    // test fails, since a call that never connects shows nothing else of why.
    QString torLog;

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
        errors->clear();
    }

    // Its calls since the last clear(), its errors, and the last lines of its tor's log.
    void report(int torLines = 30) const {
        QStringList calls;
        for (const auto& args : *states) {
            QString step = describe(args.at(0).value<CallState>());
            if (args.at(0).value<CallState>() == CallState::Ended)
                step += QStringLiteral(" (%1)").arg(describe(args.at(2).value<EndReason>()));
            calls << step;
        }
        QStringList messages;
        for (const auto& args : *errors)
            messages << args.at(0).toString();
        qInfo("%s: calls: %s; errors: %s; refused: %lld", qPrintable(name),
              qPrintable(calls.join(QStringLiteral(", "))),
              qPrintable(messages.join(QStringLiteral("; "))), qlonglong(refused->size()));
        QFile log(torLog);
        if (!log.open(QIODevice::ReadOnly))
            return;
        const QList<QByteArray> lines = log.readAll().trimmed().split('\n');
        for (qsizetype i = std::max<qsizetype>(0, lines.size() - torLines); i < lines.size(); ++i)
            qInfo("%s tor: %s", qPrintable(name), lines.at(i).constData());
    }
};

// The speech the parties play, made once per process by tests/media/make_speech.sh.
inline QString speechFile() {
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

// The speech `name` plays: the same sentences, begun at a point of its own (4 s on from the
// previous party's). When both ends of a
// call played the same file in step, each one's echo canceller could take its own voice for the
// echo of the other's (they differ by about the mouth-to-ear delay, within its filter) and
// cancel it: "bob heard no speech" with every frame delivered (CI, once).
inline QString speechFileOf(const QString& name) {
    static QTemporaryDir dir;
    const QString path = dir.filePath(name + "-speech.wav");
    if (QFile::exists(path))
        return path;
    media::WavAudio audio;
    QString error;
    if (!media::readWavFile(speechFile(), &audio, &error) || audio.samples.empty())
        qFatal("cannot read test speech: %s", qPrintable(error));
    // 4 s apart from party to party, in the order they are first asked for.
    static std::map<QString, std::size_t> order;
    const std::size_t index = order.emplace(name, order.size()).first->second;
    const std::size_t start = index * 4 * std::size_t(audio.sampleRate) % audio.samples.size();
    std::rotate(audio.samples.begin(), audio.samples.begin() + std::ptrdiff_t(start),
                audio.samples.end());
    if (!media::writeWavFile(path, audio.samples, audio.sampleRate, &error))
        qFatal("cannot write test speech: %s", qPrintable(error));
    return path;
}

// A client-authorization key as the contact book holds it.
inline QByteArray keyBytes(std::span<const std::uint8_t, 32> key) {
    return QByteArray(reinterpret_cast<const char*>(key.data()), 32);
}

// The identity a party's engine made in its data directory (a test then speaks as that party
// over raw links).
inline std::optional<tor::OnionIdentity> partyIdentity(const QString& name, QString* error) {
    return tor::OnionIdentity::load(
        testnet::networkDirectory() + "/../apps/" + name + "/identity.key", error);
}

// Engines these tests call each other with. The rates of rings are raised: these parties call
// each other often; the limits themselves are attacked in tests/security.
inline EngineConfig partyConfig() {
    EngineConfig config;
    config.ringTimeout = kRingTimeout;
    config.linkProofTimeout = 3s;
    config.dialTimeout = 40s;
    config.defence.ringsPerCallerPerMinute = 100;
    config.defence.strangerRingsPerMinute = 100;
    return config;
}

// A test's parties, by name: the second base of each test class (after QObject, so that moc sees
// only the test's own slots), which forwards its initTestCase, init and cleanupTestCase here.
class CallParties {
public:
    static bool networkUp() { return !testnet::networkDirectory().isEmpty(); }

    Party& party(const QString& name) { return parties_.at(name); }
    bool has(const QString& name) const { return parties_.count(name) != 0; }

    // Starts an engine for `name` on the network; its audio plays speechFileOf(name) in real time
    // and records what it hears.
    void addParty(const QString& name, const EngineConfig& base = partyConfig(),
                  testnet::AppData data = testnet::AppData::Fresh) {
        Party& p = parties_[name];
        p.name = name;
        p.recording = recordings_.filePath(name + "-heard.wav");
        p.torLog = recordings_.filePath(name + "-tor.log");
        EngineConfig config = testnet::engineConfig(name, base, data);
        config.extraTorrcLines
            << QStringLiteral("Log [rend,edge]info notice file %1").arg(p.torLog);
        const QString input = speechFileOf(name), output = p.recording;
        config.audio = [input, output, fault = p.audioFault, device = p.audioDevice](
                           QString* error) -> std::unique_ptr<media::AudioBackend> {
            if (!fault->isEmpty()) {
                *error = *fault;
                return nullptr;
            }
            auto backend =
                media::WavFileBackend::create(input, output, media::Pacing::RealTime, error);
            *device = backend.get();
            return backend;
        };
        config.audioDevicesPresent = [fault = p.audioFault](QString* error) {
            if (fault->isEmpty())
                return true;
            *error = *fault;
            return false;
        };
        p.engine = std::make_unique<CallEngine>(config);
        p.states = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::callStateChanged);
        p.incoming = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::incomingCall);
        p.refused = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::callRefused);
        p.statistics = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::statisticsChanged);
        p.errors = std::make_unique<QSignalSpy>(p.engine.get(), &CallEngine::errorOccurred);
        QString error;
        QVERIFY2(p.engine->start(&error), qPrintable(error));
    }

    // Starts a party for each name and waits until their services are reachable.
    void startParties(std::initializer_list<const char*> names) {
        for (const char* n : names)
            addParty(n);
        waitReachable(names);
    }

    // Reachable is the first HSDir's confirmation; a caller's tor that asks the others before
    // their uploads are done hears 404 from each and fails the link "descriptor not found" (seen
    // at the first dial of tst_whomayring in CI). So every upload has to have been answered too.
    void waitReachable(std::initializer_list<const char*> names) {
        for (const char* n : names) {
            const tor::OnionService* service = party(n).engine->service();
            QTRY_COMPARE_WITH_TIMEOUT(service->state(), tor::OnionService::State::Reachable,
                                      kStartTimeout);
            QTRY_VERIFY_WITH_TIMEOUT(service->uploads().allSettled(), kStartTimeout);
        }
    }

    // Every test starts from idle engines with empty spies, whatever an earlier failure left:
    // no audio fault, strangers ring, and bob and carol hold no contacts but dave (whose key
    // they may have been given at the start).
    void resetParties() {
        const QString kept = has("dave") ? party("dave").engine->address() : QString();
        for (auto& [name, p] : parties_) {
            p.audioFault->clear();
            if (p.engine->callState() != CallState::Idle)
                p.engine->hangUp();
            if (name == "bob" || name == "carol") {
                const auto contacts = p.engine->contacts().contacts();
                for (const auto& c : contacts)
                    if (c.address != kept)
                        p.engine->contacts().remove(c.address);
            }
            p.engine->setUnknownCallers(UnknownCallers::Ring);
        }
        for (auto& [name, p] : parties_) {
            QTRY_COMPARE_WITH_TIMEOUT(p.engine->callState(), CallState::Idle, 5000);
            p.clear();
        }
    }

    // Forgets a party whose engine a test stopped itself.
    void dropParty(const QString& name) { parties_.erase(name); }

    void stopParties() {
        for (auto& [name, p] : parties_)
            p.engine->stop();
        parties_.clear();
    }

    // `callee` answers the next call that rings it, and only that one.
    static void answerNextCall(Party& callee) {
        QObject::connect(callee.engine.get(), &CallEngine::incomingCall, callee.engine.get(),
                         &CallEngine::answer, Qt::SingleShotConnection);
    }

    // `caller` calls `callee`, who answers: both are in the call (a failure is the test's).
    static void answeredCall(Party& caller, Party& callee) {
        answerNextCall(callee);
        caller.engine->dial(callee.engine->address());
        QTRY_VERIFY_WITH_TIMEOUT(caller.reached(CallState::Active), kCallTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(callee.reached(CallState::Active), kCallTimeout);
    }

    // `caller` rings `callee`, who rejects the call.
    static void ringAndReject(Party& caller, Party& callee) {
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
    static void waitRepublished(Party& p, int published) {
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

    // Every party's report (Party::report) when the test function failed: the call tests run on
    // a real network, and a failure seen once in CI has to explain itself from the log.
    void reportIfFailed() const {
        if (!QTest::currentTestFailed())
            return;
        for (const auto& [name, p] : parties_)
            p.report();
    }

    // Opens a link to `to` through `via`'s tor with its own circuit.
    std::unique_ptr<net::OnionLink> rawLink(const QString& via, const QString& to, int tag) {
        auto link = std::make_unique<net::OnionLink>(multipath::kRecordSize);
        link->connectToOnion(torSocksEndpoint(*party(via).engine->torLauncher()),
                             party(to).engine->address() + ".onion", EngineConfig{}.servicePort,
                             QByteArray("raw-") + QByteArray::number(tag), 60s);
        return link;
    }

private:
    std::map<QString, Party> parties_;
    QTemporaryDir recordings_;
};

} // namespace onionvoice::call::testing
