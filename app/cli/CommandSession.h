// One run of `onionvoice-cli call` or `serve`: starts the engine (tor, the onion service), dials or
// waits for callers, answers by policy, prints progress and one statistics object per second, a
// summary when a call ends, and finishes with the exit code of the outcome. Ctrl-C hangs up
// first, then stops tor.
#pragma once

#include "CommonOptions.h"
#include "FrameLog.h"
#include "net/OnionLink.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

namespace onionvoice::cli {

enum class SessionRole { Caller, Server };
enum class AnswerMode { Auto, Never };

struct SessionConfig {
    SessionRole role = SessionRole::Caller;
    OutputFormat output = OutputFormat::Text;
    QString peer;                                // caller: normalised onion address
    std::optional<std::chrono::seconds> seconds; // caller: hang up after this long active
    AnswerMode answer = AnswerMode::Auto;        // server
    int calls = 0;                               // server: exit after this many calls (0: never)
    std::shared_ptr<FrameLog> frameLog;          // optional; also the engine's frame observer
    // --unknown-callers as given: the user's choice, which ends the refusal of strangers that
    // lost contacts cause (CallEngine::setUnknownCallers).
    std::optional<call::UnknownCallers> unknownCallersChosen;
    // tor not bootstrapped by then (no network, a censored one, a wrong clock): exit 5, not a
    // wait without end that --dial-timeout never bounds (no dial starts before tor is ready).
    std::chrono::seconds bootstrapTimeout{300};
};

class CommandSession : public QObject {
    Q_OBJECT
public:
    CommandSession(SessionConfig session, call::EngineConfig engine, QObject* parent = nullptr);
    ~CommandSession() override;

    void start();
    call::CallEngine& engine() { return *engine_; }

signals:
    // Tor is ready; the caller dials right after this signal returns.
    void torReady(const onionvoice::net::SocksEndpoint& socks);
    void callStateChanged(onionvoice::call::CallState state);
    void finished(int exitCode);

private:
    // Interrupted: Ctrl-C came during a call, which is being hung up before tor stops.
    enum class Phase { Starting, Online, Interrupted, Finished };

    void onTorState(tor::TorLauncher::State state, int percent, const QString& summary);
    void onBootstrapDeadline();
    void onServiceState(tor::OnionService::State state);
    void onCallState(call::CallState state, const QString& peer, call::EndReason reason);
    void onIncoming(const QString& peer, const QString& name, const QString& audioProblem);
    void onRefused(const QString& peer, call::EndReason reason);
    void onInterrupt(int count);
    void printStatistics();
    void announce(const QString& event, const QString& text, QJsonObject fields = {});
    double sinceStartMs() const;
    void logEvent(const char* name);
    // Stops the engine (hanging up any call; the engine lets the hang-up reach the peer before
    // tor stops) and reports the code.
    void finish(ExitCode code);

    SessionConfig config_;
    // How the service is offered (the identity event's access and preset): what the command line
    // and the desktop app's saved choices made of it.
    QJsonObject serviceChoices_;
    std::unique_ptr<call::CallEngine> engine_;
    Phase phase_ = Phase::Starting;
    QElapsedTimer clock_;
    QTimer statisticsTimer_;
    QTimer hangUpTimer_;
    QTimer bootstrapDeadline_;
    std::optional<call::CallStatistics> latest_;
    int callsDone_ = 0;
    int lastBootstrap_ = -1;
    QString lastBootstrapWarning_;
    std::optional<qint64> dialedAt_, ringingAt_, activeAt_;
};

} // namespace onionvoice::cli
