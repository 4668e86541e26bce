// Starts and owns one tor process: finds the binary, checks its version, writes the torrc,
// authenticates on the control port, follows bootstrap progress and restarts tor when it dies.
#pragma once

#include "TorController.h"

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <chrono>
#include <memory>
#include <optional>

class QTemporaryDir;

namespace onionvoice::tor {

struct TorVersion {
    int major = 0, minor = 0, micro = 0, patch = 0;
    auto operator<=>(const TorVersion&) const = default;
    QString toString() const;
};

struct TorLaunchConfig {
    enum class SocksMode { Isolated, Disabled };

    // The app's data directory, absolute (tor runs in its own directory); tor's files live in
    // <it>/tor.
    QString dataDirectory;
    QString torExecutableSetting; // explicit choice of the user, tried after the bundled tor
    QStringList extraTorrcLines;  // preset options, test-network options
    SocksMode socksMode = SocksMode::Isolated;
    // Where tor's SOCKS unix socket is made (not on Windows): empty for tor's own 0700 directory.
    // The launcher sets it to a private temporary directory when that path is too long for a
    // socket address.
    QString socksSocketDirectory;
    int maxConsecutiveFailures = 5;                // tor deaths before the launcher gives up
    std::chrono::milliseconds restartBackoff{500}; // doubled after each failure
    // From launch until tor has taken our authentication: a tor that has not opened its control
    // port by then, or opened it and answers nothing, is killed and started again.
    std::chrono::milliseconds startTimeout{30000};
    // Once tor has taken our authentication: a tor that owes a reply and says nothing for
    // replyTimeout is taken for hung (a deadlock, a frozen process) and is killed and started
    // again. A command every heartbeatInterval makes sure that a reply is owed now and then.
    std::chrono::milliseconds replyTimeout{20000};
    std::chrono::milliseconds heartbeatInterval{10000};
};

class TorLauncher : public QObject {
    Q_OBJECT
public:
    enum class State { NotStarted, Starting, Bootstrapping, Ready, Failed };
    Q_ENUM(State)
    struct Bootstrap {
        int percent = 0;
        QString tag;
        QString summary;
        // tor's latest complaint about this phase (a refused connection, a skewed clock) when it
        // recommends telling the user; empty while there is none.
        QString warning;
    };

    static constexpr TorVersion kMinimumVersion{0, 4, 8, 0};

    explicit TorLauncher(TorLaunchConfig config, QObject* parent = nullptr);
    ~TorLauncher() override;

    // Looks at the setting (the user's choice: Settings, `--tor`), then next to the executable
    // (the bundled tor; `bundleDirectory`, the application's directory when empty), then
    // $ONIONVOICE_TOR, then PATH (and the sbin directories Debian puts tor in). *searched lists
    // the places tried, for the error.
    static std::optional<QString> findTor(const QString& setting, QStringList* searched,
                                          const QString& bundleDirectory = {});
    static std::optional<TorVersion> parseVersion(const QString& versionOutput);
    // What `tor --version` says of the executable at `path` (waiting up to 10 s): its version,
    // and why it cannot be used (no answer, no version, too old), empty when it can.
    struct VersionCheck {
        std::optional<TorVersion> version;
        QString problem;
    };
    static VersionCheck checkVersion(const QString& path);
    static QString generateTorrc(const TorLaunchConfig& config, qint64 owningPid);
    // The unix socket the torrc names as tor's SOCKS port: <socksSocketDirectory or tor's
    // directory>/socks.sock. Not used on Windows (a TCP port on 127.0.0.1 there).
    static QString socksSocketPathFor(const TorLaunchConfig& config);
    // Why the torrc could not be written safely (a value with CR, LF, NUL or '#', or one ending
    // in a backslash), if so. addedLines: the lines the launcher adds itself (bundledTorrcLines).
    static std::optional<QString> checkTorrcValues(const TorLaunchConfig& config,
                                                   const QStringList& addedLines = {});

    void start();
    // Stops tor and waits for it to exit; the launcher can be started again afterwards.
    void stop();

    State state() const { return state_; }
    const Bootstrap& bootstrap() const { return bootstrap_; }
    QString failureReason() const { return failureReason_; }
    TorController* controller() { return &controller_; }
    // Where tor takes SOCKS connections, once a live tor has reported its listener: where the
    // platform has unix sockets, a socket in a 0700 directory (only our user can connect to it),
    // and socksPort() is 0; on Windows a TCP port on 127.0.0.1, and socksSocketPath() is empty.
    // Empty and 0 while no live tor has reported it (starting, restarting, stopped, failed).
    QString socksSocketPath() const { return socksSocketPath_; }
    quint16 socksPort() const { return socksPort_; }
    qint64 processId() const { return process_.processId(); }
    QString torDirectory() const;

signals:
    void stateChanged(onionvoice::tor::TorLauncher::State state);
    void bootstrapChanged(const onionvoice::tor::TorLauncher::Bootstrap& bootstrap);
    // tor died and a new process is being started (attempt counts consecutive failures).
    void restarting(int attempt, const QString& reason);
    // A tor process took our authentication and start-up commands. What an earlier tor was told
    // (client keys, onion services) this one does not know.
    void controlReady();
    // One line of tor's own log (notice level), for a view of what tor is doing.
    void logLine(const QString& line);

private:
    void setState(State state);
    void failPermanently(const QString& reason);
    void forgetProcess();
    void launchProcess();
    void pollControlPortFile();
    void onStartDeadline();
    void onControllerConnected();
    void onAuthenticated();
    void sendHeartbeat();
    void sendStartupCommands();
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void handleFailure(const QString& reason);
    void onEvent(const TorEvent& event);
    void takeSocksListeners(const QByteArray& listeners);
    void applyBootstrapPhase(const QByteArray& text);
    QString controlPortFile() const;
    QString cookieFile() const;

    TorLaunchConfig config_;
    State state_ = State::NotStarted;
    Bootstrap bootstrap_;
    QString failureReason_;
    QString torPath_;
    QProcess process_;
    TorController controller_;
    QTimer pollTimer_;
    QTimer restartTimer_;
    QTimer startDeadline_;
    QTimer heartbeat_;
    QString stallReason_; // why a tor that did not start in time, or hung, was killed
    int consecutiveFailures_ = 0;
    quint16 socksPort_ = 0;
    QString socksSocketPath_;
    std::unique_ptr<QTemporaryDir> socksSocketFallback_; // when tor's directory's path is too long
    QStringList lastLogLines_;
};

} // namespace onionvoice::tor
