// The call and serve commands' event handling (see CommandSession.h).
#include "CommandSession.h"

#include "CallReport.h"
#include "InterruptWatcher.h"
#include "call/OutgoingDial.h"
#include "contacts/ContactUri.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace onionvoice::cli {
namespace {

using namespace std::chrono_literals;

QString torStateName(tor::TorLauncher::State state) {
    switch (state) {
    case tor::TorLauncher::State::NotStarted:
        return QStringLiteral("not-started");
    case tor::TorLauncher::State::Starting:
        return QStringLiteral("starting");
    case tor::TorLauncher::State::Bootstrapping:
        return QStringLiteral("bootstrapping");
    case tor::TorLauncher::State::Ready:
        return QStringLiteral("ready");
    case tor::TorLauncher::State::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

} // namespace

CommandSession::CommandSession(SessionConfig session, call::EngineConfig engine, QObject* parent)
    : QObject(parent)
    , config_(std::move(session))
    , serviceChoices_{{"access", engine.access == call::ServiceAccess::ContactsOnly
                                     ? QStringLiteral("contacts-only")
                                     : QStringLiteral("open")},
                      {"preset", tor::presetKey(engine.preset)},
                      {"unknown_callers", engine.unknownCallers == call::UnknownCallers::Refuse
                                              ? QStringLiteral("refuse")
                                              : QStringLiteral("ring")}}
    , engine_(std::make_unique<call::CallEngine>(std::move(engine))) {
    clock_.start();
    statisticsTimer_.setInterval(1s);
    connect(&statisticsTimer_, &QTimer::timeout, this, &CommandSession::printStatistics);
    bootstrapDeadline_.setSingleShot(true);
    connect(&bootstrapDeadline_, &QTimer::timeout, this, &CommandSession::onBootstrapDeadline);
    hangUpTimer_.setSingleShot(true);
    connect(&hangUpTimer_, &QTimer::timeout, engine_.get(), &call::CallEngine::hangUp);
    connect(engine_.get(), &call::CallEngine::torStateChanged, this, &CommandSession::onTorState);
    connect(engine_.get(), &call::CallEngine::serviceStateChanged, this,
            &CommandSession::onServiceState);
    connect(engine_.get(), &call::CallEngine::callStateChanged, this, &CommandSession::onCallState);
    connect(engine_.get(), &call::CallEngine::incomingCall, this, &CommandSession::onIncoming);
    connect(engine_.get(), &call::CallEngine::callRefused, this, &CommandSession::onRefused);
    connect(engine_.get(), &call::CallEngine::statisticsChanged, this,
            [this](const call::CallStatistics& s) { latest_ = s; });
    connect(engine_.get(), &call::CallEngine::errorOccurred, this, [this](const QString& message) {
        if (config_.output == OutputFormat::Json)
            printJsonLine({{"event", "error"}, {"message", message}});
        else
            std::fputs(("onionvoice-cli: " + message + "\n").toUtf8().constData(), stderr);
    });
    auto* watcher = new app::InterruptWatcher(this);
    connect(watcher, &app::InterruptWatcher::interrupted, this, &CommandSession::onInterrupt);
}

CommandSession::~CommandSession() = default;

void CommandSession::start() {
    QString error;
    if (!engine_->start(&error)) {
        fail(ExitCode::Failure, error);
        finish(ExitCode::Failure);
        return;
    }
    if (config_.unknownCallersChosen)
        engine_->setUnknownCallers(*config_.unknownCallersChosen);
    bootstrapDeadline_.start(config_.bootstrapTimeout);
    QJsonObject identity = serviceChoices_;
    identity.insert("address", engine_->address());
    announce(QStringLiteral("identity"), QStringLiteral("address: %1").arg(engine_->address()),
             identity);
}

void CommandSession::logEvent(const char* name) {
    if (config_.frameLog)
        config_.frameLog->event(name);
}

double CommandSession::sinceStartMs() const {
    return double(clock_.nsecsElapsed()) / 1e6;
}

void CommandSession::announce(const QString& event, const QString& text, QJsonObject fields) {
    if (config_.output == OutputFormat::Json) {
        fields.insert("event", event);
        fields.insert("t_ms", sinceStartMs());
        printJsonLine(fields);
    } else {
        printLine(text);
    }
}

void CommandSession::onTorState(tor::TorLauncher::State state, int percent,
                                const QString& summary) {
    if (phase_ == Phase::Finished)
        return;
    if (state == tor::TorLauncher::State::Failed) {
        const QString reason =
            engine_->torLauncher() ? engine_->torLauncher()->failureReason() : summary;
        fail(ExitCode::TorFailed, QStringLiteral("tor failed: %1").arg(reason));
        finish(ExitCode::TorFailed);
        return;
    }
    // Every phase: a tor stuck at 5 % ("Connecting to a relay") showed as "0% Starting".
    if (state == tor::TorLauncher::State::Bootstrapping && percent != lastBootstrap_) {
        lastBootstrap_ = percent;
        announce(QStringLiteral("tor"), QStringLiteral("tor: %1% %2").arg(percent).arg(summary),
                 {{"state", torStateName(state)}, {"bootstrap", percent}});
    }
    if (const tor::TorLauncher* launcher = engine_->torLauncher();
        launcher && launcher->bootstrap().warning != lastBootstrapWarning_) {
        lastBootstrapWarning_ = launcher->bootstrap().warning;
        if (!lastBootstrapWarning_.isEmpty())
            announce(QStringLiteral("tor"),
                     QStringLiteral("tor warns: %1").arg(lastBootstrapWarning_),
                     {{"state", torStateName(state)},
                      {"bootstrap", percent},
                      {"warning", lastBootstrapWarning_}});
    }
    if (state != tor::TorLauncher::State::Ready)
        return;
    bootstrapDeadline_.stop();
    if (phase_ != Phase::Starting)
        return;
    announce(QStringLiteral("tor"), QStringLiteral("tor: ready"),
             {{"state", torStateName(state)}, {"bootstrap", 100}});
    if (config_.role == SessionRole::Caller) {
        phase_ = Phase::Online;
        emit torReady(call::torSocksEndpoint(*engine_->torLauncher()));
        dialedAt_ = clock_.elapsed();
        logEvent("dial");
        engine_->dial(config_.peer);
        // Refused before anything rang (the reason went out with errorOccurred): no sound card.
        if (engine_->callState() == call::CallState::Idle)
            finish(ExitCode::Failure);
    }
}

void CommandSession::onBootstrapDeadline() {
    if (phase_ == Phase::Finished)
        return;
    QString where = QStringLiteral("it did not start");
    if (const tor::TorLauncher* launcher = engine_->torLauncher()) {
        const tor::TorLauncher::Bootstrap& b = launcher->bootstrap();
        where = QStringLiteral("it stopped at %1% (%2)").arg(b.percent).arg(b.summary);
        if (!b.warning.isEmpty())
            where += QStringLiteral("; tor warns: %1").arg(b.warning);
    }
    fail(ExitCode::TorFailed, QStringLiteral("tor did not connect to the Tor network within %1 s: "
                                             "%2. Check the network connection and the clock.")
                                  .arg(config_.bootstrapTimeout.count())
                                  .arg(where));
    finish(ExitCode::TorFailed);
}

void CommandSession::onServiceState(tor::OnionService::State state) {
    if (phase_ == Phase::Finished)
        return;
    if (state == tor::OnionService::State::Failed && config_.role == SessionRole::Server) {
        fail(ExitCode::TorFailed, QStringLiteral("the onion service could not be published"));
        finish(ExitCode::TorFailed);
        return;
    }
    if (state != tor::OnionService::State::Reachable || config_.role != SessionRole::Server ||
        phase_ != Phase::Starting)
        return;
    phase_ = Phase::Online;
    const QString uri = contacts::ContactUri{engine_->address(), {}, {}}.toString();
    announce(QStringLiteral("ready"), QStringLiteral("online: %1").arg(uri),
             {{"address", engine_->address()}, {"uri", uri}});
}

// `audio_problem` is the engine's device check at the ring (empty when the devices are there): a
// serve on the sound card without a microphone says so before it answers, as the app's prompt does.
void CommandSession::onIncoming(const QString& peer, const QString& name,
                                const QString& audioProblem) {
    announce(QStringLiteral("incoming"),
             QStringLiteral("incoming call from %1%2%3")
                 .arg(peer, name.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(name),
                      audioProblem.isEmpty()
                          ? QString()
                          : QStringLiteral(" (sound problem: %1)").arg(audioProblem)),
             {{"peer", peer}, {"name", name}, {"audio_problem", audioProblem}});
    if (config_.answer == AnswerMode::Auto) {
        logEvent("answer");
        engine_->answer();
    }
}

void CommandSession::onRefused(const QString& peer, call::EndReason reason) {
    announce(QStringLiteral("refused"),
             QStringLiteral("refused a call from %1: %2").arg(peer, call::describe(reason)),
             {{"peer", peer}, {"reason", endReasonName(reason)}});
}

void CommandSession::onCallState(call::CallState state, const QString& peer,
                                 call::EndReason reason) {
    if (state == call::CallState::Ringing || state == call::CallState::Active ||
        state == call::CallState::Ended)
        logEvent(state == call::CallState::Ringing  ? "ringing"
                 : state == call::CallState::Active ? "active"
                                                    : "ended");
    emit callStateChanged(state);
    const qint64 now = clock_.elapsed();
    if (state == call::CallState::Ringing)
        ringingAt_ = now;
    if (state == call::CallState::Active) {
        activeAt_ = now;
        latest_.reset();
        statisticsTimer_.start();
        if (config_.seconds)
            hangUpTimer_.start(*config_.seconds);
    }
    if (state != call::CallState::Ended) {
        announce(QStringLiteral("state"), QStringLiteral("call %1: %2").arg(stateName(state), peer),
                 {{"state", stateName(state)}, {"peer", peer}});
        return;
    }
    statisticsTimer_.stop();
    hangUpTimer_.stop();
    QJsonObject summary{{"peer", peer},
                        {"end_reason", endReasonName(reason)},
                        {"end_reason_text", call::describe(reason)}};
    if (dialedAt_ && ringingAt_)
        summary.insert("dial_to_ringing_ms", double(*ringingAt_ - *dialedAt_));
    if (activeAt_)
        summary.insert("active_ms", double(now - *activeAt_));
    if (latest_)
        summary.insert("statistics", statisticsJson(*latest_));
    announce(QStringLiteral("summary"),
             QStringLiteral("call ended: %1").arg(call::describe(reason)), summary);
    ringingAt_.reset();
    activeAt_.reset();
    ++callsDone_;
    if (phase_ == Phase::Interrupted) {
        finish(ExitCode::Interrupted);
    } else if (config_.role == SessionRole::Caller) {
        finish(exitCodeFor(reason));
    } else if (config_.calls > 0 && callsDone_ >= config_.calls) {
        finish(ExitCode::Ok);
    } else {
        dialedAt_.reset();
    }
}

void CommandSession::printStatistics() {
    if (!latest_)
        return;
    if (config_.output == OutputFormat::Json) {
        QJsonObject o = statisticsJson(*latest_);
        o.insert("t_ms", sinceStartMs());
        printJsonLine(o);
    } else {
        printLine(statisticsLine(*latest_));
    }
}

void CommandSession::onInterrupt(int count) {
    if (count > 1 || phase_ == Phase::Finished) { // a second Ctrl-C does not wait for the peer
        finish(ExitCode::Interrupted);
        return;
    }
    const call::CallState state = engine_->callState();
    if (state == call::CallState::Idle || state == call::CallState::Ended) {
        finish(ExitCode::Interrupted);
        return;
    }
    phase_ = Phase::Interrupted;
    engine_->hangUp(); // the Ended state finishes the run
}

void CommandSession::finish(ExitCode code) {
    if (phase_ == Phase::Finished)
        return;
    phase_ = Phase::Finished;
    statisticsTimer_.stop();
    hangUpTimer_.stop();
    // Leave the signal handlers of the engine first: stop() ends a call and tears tor down.
    engine_->disconnect(this);
    // Not from inside the engine's signal: stop() gives an ended call's hang-up its time to leave.
    QTimer::singleShot(0, this, [this, code] {
        engine_->stop();
        QString error;
        if (config_.frameLog && !config_.frameLog->save(&error))
            fail(ExitCode::FileError, error);
        emit finished(toInt(code));
    });
}

} // namespace onionvoice::cli
