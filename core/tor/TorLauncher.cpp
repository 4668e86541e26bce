// tor process life cycle: launch, control-port handshake, bootstrap and restarts (discovery and
// the torrc: TorLauncherSetup.cpp).
#include "TorLauncher.h"

#include "BundledTor.h"
#include "PrivateFile.h"
#include "SecretBytes.h"
#include "TorLog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <algorithm>
#include <cstring>
#include <memory>
#include <sodium.h>
#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

namespace onionvoice::tor {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr auto kStopTimeout = std::chrono::milliseconds(5000);
constexpr int kKeptLogLines = 20;
// sizeof(sockaddr_un::sun_path) is 108 on Linux, 104 on the BSDs and macOS; with its NUL.
constexpr qsizetype kMaxSocketPathBytes = 103;

// Why tor failed, in its own words: its last warnings and errors. A configuration it cannot
// read ends in "[err] Reading config failed--see warnings above", the cause in the "[warn]"
// lines before it, which the last line alone left out. Its last line when it said neither.
QString torsLastWords(const QStringList& lines) {
    constexpr qsizetype kKeptWords = 3;
    QStringList said;
    for (const QString& line : lines)
        for (const QLatin1StringView level :
             {QLatin1StringView("[warn] "), QLatin1StringView("[err] ")})
            if (const qsizetype at = line.indexOf(level); at >= 0)
                said.append(line.mid(at + level.size()));
    if (said.isEmpty())
        return lines.isEmpty() ? QString() : lines.last();
    return said.mid(std::max<qsizetype>(0, said.size() - kKeptWords)).join(QStringLiteral("; "));
}

// What of tor's words goes to our log, which a desktop session keeps in its journal: tor quotes
// the value it could not parse ("Error parsing Bridge address '198.51.100.7:44x3'"), and a bridge
// address is what a user in a censored network must keep to themselves, and so is the bridge's
// fingerprint. The window shows the words whole (the user needs them to find the typo); the log
// gets them without quoted values, addresses or relay identities.
QString scrubbedForLog(QString words) {
    // A quote opens after no letter (the apostrophes of "can't ... don't" are none).
    static const QRegularExpression quoted(
        QStringLiteral(R"((?<![A-Za-z])'[^']*'(?![A-Za-z])|"[^"]*")"));
    // Relay and bridge identities: RSA_ID=, ID=, $fingerprint~nickname, bare 40-digit
    // fingerprints, ed25519 identities (43 characters of base64), and a bridge line's arguments.
    static const QRegularExpression identity(QStringLiteral(
        R"(\b(?:RSA_)?ID=[^\s;]+|\$?\b[0-9A-Fa-f]{40}\b(?:[~=]\w+)?|\b[A-Za-z0-9+/]{43}\b|)"
        R"(\b(?:cert|url|fronts?|ice|utls-imitate)=[^\s;]+)"));
    // IPv4 with whatever follows its colon, bracketed IPv6, and bare IPv6 with a "::".
    static const QRegularExpression address(
        QStringLiteral(R"(\b[1-9]\d{0,2}(\.\d{1,3}){3}(:[^\s;]*)?|\[[0-9A-Fa-f:.]+\](:[^\s;]*)?|)"
                       R"([0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4})*::[0-9A-Fa-f:.]*)"));
    for (const QRegularExpression* secret : {&quoted, &identity, &address})
        words.replace(*secret, QStringLiteral("[scrubbed]"));
    return words;
}

// A configuration tor cannot parse is refused again on every restart. Not every "Reading config
// failed" is one: an earlier tor still holding the data directory (ours, in the seconds before it
// notices that its owner died) ends the same way, and a restart a moment later works.
bool configurationRefused(const QStringList& lines) {
    return std::any_of(lines.begin(), lines.end(), [](const QString& line) {
        return line.contains(QLatin1String("Failed to parse/validate config"));
    });
}

} // namespace

TorLauncher::TorLauncher(TorLaunchConfig config, QObject* parent)
    : QObject(parent)
    , config_(std::move(config)) {
    pollTimer_.setInterval(kPollInterval);
    connect(&pollTimer_, &QTimer::timeout, this, &TorLauncher::pollControlPortFile);
    restartTimer_.setSingleShot(true);
    connect(&restartTimer_, &QTimer::timeout, this, &TorLauncher::launchProcess);
    startDeadline_.setSingleShot(true);
    connect(&startDeadline_, &QTimer::timeout, this, &TorLauncher::onStartDeadline);
    connect(&heartbeat_, &QTimer::timeout, this, &TorLauncher::sendHeartbeat);
    connect(&process_, &QProcess::finished, this, &TorLauncher::onProcessFinished);
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        // A process that never started emits no finished(); it still counts as a failure.
        if (error == QProcess::FailedToStart && state_ == State::Starting)
            handleFailure(tr("tor could not be started: %1").arg(process_.errorString()));
    });
    connect(&process_, &QProcess::readyReadStandardOutput, this, [this] {
        while (process_.canReadLine()) {
            const QString line = QString::fromUtf8(process_.readLine()).trimmed();
            qCDebug(lcTor).noquote() << "tor:" << line;
            lastLogLines_.append(line);
            if (lastLogLines_.size() > kKeptLogLines)
                lastLogLines_.removeFirst();
            emit logLine(line);
        }
    });
    connect(&controller_, &TorController::stateChanged, this, [this](TorController::State s) {
        if (s == TorController::State::Connected)
            onControllerConnected();
    });
    connect(&controller_, &TorController::eventReceived, this, &TorLauncher::onEvent);
    connect(&controller_, &TorController::errorOccurred, this,
            [this](TorController::Error error, const QString& message) {
                // With TAKEOWNERSHIP tor exits when the control connection ends; the process
                // exit drives the restart. Make sure it does exit: a hung tor will not.
                if (state_ != State::NotStarted && state_ != State::Failed &&
                    process_.state() != QProcess::NotRunning) {
                    qCWarning(lcTor) << "control connection lost:" << message;
                    if (error == TorController::Error::ReplyTimeout)
                        stallReason_ = message;
                    process_.kill();
                }
            });
}

TorLauncher::~TorLauncher() {
    stop();
}

QString TorLauncher::torDirectory() const {
    return config_.dataDirectory + QStringLiteral("/tor");
}

QString TorLauncher::controlPortFile() const {
    return torDirectory() + QStringLiteral("/control-port");
}

QString TorLauncher::cookieFile() const {
    return torDirectory() + QStringLiteral("/control_auth_cookie");
}

void TorLauncher::setState(State state) {
    if (state_ == state)
        return;
    state_ = state;
    emit stateChanged(state);
}

// Once tor has died, anyone on this machine may bind its SOCKS port (a TCP port, on Windows); a
// link dialled there would hand them the peer's onion address and our stream credentials. Until
// the next tor reports its own listener, socksPort() is 0, socksSocketPath() empty, and dials
// fail as "no tor".
void TorLauncher::forgetProcess() {
    heartbeat_.stop();
    controller_.setReplyTimeout(std::chrono::milliseconds::zero());
    controller_.disconnectFromTor();
    socksPort_ = 0;
    socksSocketPath_.clear();
}

void TorLauncher::failPermanently(const QString& reason) {
    qCWarning(lcTor).noquote() << "tor failed:" << scrubbedForLog(reason);
    failureReason_ = reason;
    pollTimer_.stop();
    restartTimer_.stop();
    startDeadline_.stop();
    // Failed first: the exit of the process stopped below is then expected, not a new failure.
    setState(State::Failed);
    forgetProcess();
    if (process_.state() != QProcess::NotRunning) {
        process_.kill();
        process_.waitForFinished(int(kStopTimeout.count()));
    }
}

void TorLauncher::start() {
    if (state_ != State::NotStarted && state_ != State::Failed)
        return;
    failureReason_.clear();
    consecutiveFailures_ = 0;
    setState(State::Starting);

    QStringList searched;
    const std::optional<QString> tor = findTor(config_.torExecutableSetting, &searched);
    if (!tor) {
        failPermanently(tr("tor was not found (looked in: %1). Install tor or set "
                           "ONIONVOICE_TOR to its path.")
                            .arg(searched.join(QStringLiteral(", "))));
        return;
    }
    torPath_ = *tor;

    if (const VersionCheck check = checkVersion(torPath_); !check.problem.isEmpty()) {
        failPermanently(check.problem);
        return;
    }

    const QStringList bundledLines = bundledTorrcLines(torPath_, config_.extraTorrcLines);
    if (const auto bad = checkTorrcValues(config_, bundledLines)) {
        failPermanently(*bad);
        return;
    }
    if (!QDir().mkpath(torDirectory())) {
        failPermanently(tr("cannot create %1").arg(torDirectory()));
        return;
    }
    QFile::setPermissions(torDirectory(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
#ifndef Q_OS_WIN
    // A data directory whose path is too long for a socket address gets a private temporary
    // directory (0700, ours) for the SOCKS socket; tor refuses one in a directory others can use.
    if (config_.socksMode == TorLaunchConfig::SocksMode::Isolated &&
        QFile::encodeName(socksSocketPathFor(config_)).size() > kMaxSocketPathBytes) {
        if (!socksSocketFallback_)
            socksSocketFallback_ = std::make_unique<QTemporaryDir>();
        if (!socksSocketFallback_->isValid()) {
            failPermanently(tr("cannot create a directory for tor's SOCKS socket: %1")
                                .arg(socksSocketFallback_->errorString()));
            return;
        }
        config_.socksSocketDirectory = socksSocketFallback_->path();
    }
#endif
    QString error;
    QString torrc = generateTorrc(config_, QCoreApplication::applicationPid());
    for (const QString& line : bundledLines)
        torrc += line + QLatin1Char('\n');
    if (!writePrivateFile(torDirectory() + QStringLiteral("/torrc"), torrc.toUtf8(), &error) ||
        !writePrivateFile(torDirectory() + QStringLiteral("/torrc-defaults"), {}, &error)) {
        failPermanently(error);
        return;
    }
    launchProcess();
}

void TorLauncher::launchProcess() {
    QFile::remove(controlPortFile());
    QFile::remove(cookieFile()); // a cookie left by an earlier tor would be the wrong one
    socksPort_ = 0;
    socksSocketPath_.clear();
    lastLogLines_.clear();
    bootstrap_ = {};
    setState(State::Starting);
    process_.setProcessChannelMode(QProcess::MergedChannels);
    // tor starts its pluggable transports from here: a bundled one whose path has a space is
    // named relative to tor's directory (transportPluginLine). Every path in the torrc and on
    // the command line is absolute.
    process_.setWorkingDirectory(QFileInfo(torPath_).absolutePath());
#ifdef Q_OS_UNIX
    // A process group of its own: a terminal's Ctrl-C, or a signal to our whole group, reached
    // tor too, which exits at once, and a call's HangUp went into a dying tor (the peer heard
    // nothing, then ended the call as lost). We stop tor ourselves, after the hang-up, and tor
    // follows us if we die (__OwningControllerProcess).
    process_.setChildProcessModifier([] { ::setpgid(0, 0); });
#endif
    process_.start(torPath_, {QStringLiteral("-f"), torDirectory() + QStringLiteral("/torrc"),
                              QStringLiteral("--defaults-torrc"),
                              torDirectory() + QStringLiteral("/torrc-defaults")});
    stallReason_.clear();
    startDeadline_.start(config_.startTimeout);
    pollTimer_.start();
}

// A connection to a tor that has stopped (a frozen process, a debugger) does not fail: the kernel
// takes it on tor's behalf, and then nothing comes back. Only a deadline ends that wait.
void TorLauncher::onStartDeadline() {
    pollTimer_.stop();
    const bool connected = controller_.state() != TorController::State::Disconnected;
    stallReason_ = (connected ? tr("tor did not answer on its control port within %1 s")
                              : tr("tor did not open its control port within %1 s"))
                       .arg(std::chrono::duration<double>(config_.startTimeout).count());
    qCWarning(lcTor).noquote() << stallReason_;
    process_.kill();
}

void TorLauncher::pollControlPortFile() {
    QFile file(controlPortFile());
    if (!file.open(QIODevice::ReadOnly))
        return;
    const QByteArray content = file.readAll().trimmed();
    static const QRegularExpression pattern(QStringLiteral(R"(^PORT=([0-9.]+):(\d+)$)"));
    const QRegularExpressionMatch match = pattern.match(QString::fromLatin1(content));
    if (!match.hasMatch())
        return; // tor is still writing it
    // tor opens its control listener (and writes the port file) a moment before it writes the
    // cookie; under load that moment is long enough to find no cookie (2 of 40 starts in the
    // end-to-end benchmark).
    if (!QFile::exists(cookieFile()))
        return;
    pollTimer_.stop();
    controller_.holdCommands();
    controller_.connectToTor(QHostAddress(match.captured(1)), quint16(match.captured(2).toUInt()));
}

namespace {

// HMAC-SHA256 of SAFECOOKIE (control-spec 3.24) with one of its two fixed keys.
QByteArray safeCookieHash(const char* key, const QByteArray& cookie, const QByteArray& clientNonce,
                          const QByteArray& serverNonce) {
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(key),
                                std::strlen(key));
    for (const QByteArray* part : {&cookie, &clientNonce, &serverNonce})
        crypto_auth_hmacsha256_update(&state,
                                      reinterpret_cast<const unsigned char*>(part->constData()),
                                      std::size_t(part->size()));
    QByteArray mac(crypto_auth_hmacsha256_BYTES, '\0');
    crypto_auth_hmacsha256_final(&state, reinterpret_cast<unsigned char*>(mac.data()));
    sodium_memzero(&state, sizeof state);
    return mac;
}

} // namespace

// SAFECOOKIE, not COOKIE: the cookie itself never goes over the socket, and whatever listens on
// the control port must first prove that it knows the cookie (another local program squatting the
// port learns nothing and is refused).
void TorLauncher::onControllerConnected() {
    QFile file(cookieFile());
    // Unbuffered: a buffered read leaves the cookie in QFile's own buffer, freed without a wipe.
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        failPermanently(tr("cannot read tor's control cookie: %1").arg(file.errorString()));
        return;
    }
    auto cookie = std::make_shared<QByteArray>(file.read(64));
    auto clientNonce = std::make_shared<QByteArray>(32, '\0');
    randombytes_buf(clientNonce->data(), std::size_t(clientNonce->size()));
    controller_.sendForAuthentication(
        "AUTHCHALLENGE SAFECOOKIE " + clientNonce->toHex(),
        [this, cookie, clientNonce](const TorReply& reply) {
            const auto done = qScopeGuard([&] { wipe(*cookie); });
            if (reply.kind() == TorReply::Kind::ConnectionLost)
                return;
            const TorArguments args = parseTorArguments(
                reply.lines().isEmpty() ? QByteArray() : reply.lines().first().text);
            const QByteArray serverHash = QByteArray::fromHex(args.keyed.value("SERVERHASH"));
            const QByteArray serverNonce = QByteArray::fromHex(args.keyed.value("SERVERNONCE"));
            QByteArray expected =
                safeCookieHash("Tor safe cookie authentication server-to-controller hash", *cookie,
                               *clientNonce, serverNonce);
            const bool genuine = reply.isOk() && serverNonce.size() == 32 &&
                                 serverHash.size() == expected.size() &&
                                 sodium_memcmp(serverHash.constData(), expected.constData(),
                                               std::size_t(expected.size())) == 0;
            wipe(expected);
            if (!genuine) {
                failPermanently(tr("the control port did not prove that it is our tor "
                                   "(SAFECOOKIE challenge failed)"));
                return;
            }
            QByteArray clientHash =
                safeCookieHash("Tor safe cookie authentication controller-to-server hash", *cookie,
                               *clientNonce, serverNonce);
            QByteArray command;
            command.reserve(128);
            command.append("AUTHENTICATE ").append(clientHash.toHex());
            wipe(clientHash);
            controller_.sendForAuthentication(command, [this](const TorReply& r) {
                if (r.isOk())
                    onAuthenticated();
                else if (r.kind() != TorReply::Kind::ConnectionLost)
                    failPermanently(tr("tor refused authentication: %1").arg(r.errorMessage()));
            });
            wipe(command);
            controller_.openForCommands();
            sendStartupCommands();
        });
}

// From here the start deadline's work is the reply timeout's: tor has shown that it answers, and
// from now on must go on answering.
void TorLauncher::onAuthenticated() {
    startDeadline_.stop();
    controller_.setReplyTimeout(config_.replyTimeout);
    heartbeat_.start(config_.heartbeatInterval);
}

// Without it a tor that hangs while nobody asks it anything is noticed only by calls that fail.
void TorLauncher::sendHeartbeat() {
    if (!controller_.awaitingReply())
        controller_.send("GETINFO version");
}

void TorLauncher::sendStartupCommands() {
    controller_.send("TAKEOWNERSHIP");
    controller_.send("SETEVENTS STATUS_CLIENT HS_DESC");
    controller_.send("GETINFO net/listeners/socks", [this](const TorReply& reply) {
        if (reply.isOk())
            takeSocksListeners(reply.value("net/listeners/socks"));
    });
    controller_.send("GETINFO status/bootstrap-phase", [this](const TorReply& reply) {
        if (reply.isOk())
            applyBootstrapPhase(reply.value("status/bootstrap-phase"));
    });
    emit controlReady();
}

// listeners: tor's space-separated QuotedStrings, "unix:<path>" or "<address>:<port>". Only the
// listener the torrc asked for is taken: the socket we named (Linux, macOS), or a port on
// 127.0.0.1 (Windows).
void TorLauncher::takeSocksListeners(const QByteArray& listeners) {
    for (qsizetype pos = 0; pos < listeners.size();) {
        if (listeners.at(pos) == ' ') {
            ++pos;
            continue;
        }
        const std::optional<QByteArray> listener =
            listeners.at(pos) == '"' ? decodeQuotedString(listeners, &pos) : std::nullopt;
        if (!listener)
            break;
#ifdef Q_OS_WIN
        if (listener->startsWith("127.0.0.1:")) {
            socksPort_ = quint16(listener->mid(10).toUInt());
            return;
        }
#else
        const QString expected = socksSocketPathFor(config_);
        if (listener->startsWith("unix:") && QFile::decodeName(listener->mid(5)) == expected) {
            socksSocketPath_ = expected;
            return;
        }
#endif
    }
    if (!listeners.isEmpty()) // none at all: DisableNetwork (tests)
        qCWarning(lcTor) << "tor reported no SOCKS listener of ours";
}

void TorLauncher::onEvent(const TorEvent& event) {
    if (event.type != "STATUS_CLIENT" || event.lines.isEmpty())
        return;
    const QByteArray& text = event.lines.first().text;
    applyBootstrapPhase(text.mid(text.indexOf(' ') + 1));
}

void TorLauncher::applyBootstrapPhase(const QByteArray& text) {
    const TorArguments args = parseTorArguments(text);
    if (args.positional.size() < 2 || args.positional.at(1) != "BOOTSTRAP")
        return;
    bool ok = false;
    const int percent = args.keyed.value("PROGRESS").toInt(&ok);
    // Tor writes a command's reply at once and flushes queued events later, so a phase its
    // startup GETINFO already passed can arrive after it: old news of this tor (bootstrap_ starts
    // afresh with each), not a step back, which took a ready tor back to Bootstrapping and had
    // the onion service published again.
    if (!ok || percent < bootstrap_.percent)
        return;
    // Only WARNING (tor's words): HOSTADDR would name the relay or the bridge it tried.
    const bool warns =
        args.positional.at(0) == "WARN" && args.keyed.value("RECOMMENDATION") == "warn";
    if (warns)
        bootstrap_.warning = QString::fromUtf8(args.keyed.value("WARNING"));
    else if (percent > bootstrap_.percent)
        bootstrap_.warning.clear();
    bootstrap_.percent = percent;
    bootstrap_.tag = QString::fromUtf8(args.keyed.value("TAG"));
    bootstrap_.summary = QString::fromUtf8(args.keyed.value("SUMMARY"));
    emit bootstrapChanged(bootstrap_);
    if (percent >= 100) {
        consecutiveFailures_ = 0;
        setState(State::Ready);
    } else {
        setState(State::Bootstrapping);
    }
}

void TorLauncher::onProcessFinished(int exitCode, QProcess::ExitStatus status) {
    if (state_ == State::NotStarted || state_ == State::Failed)
        return;
    handleFailure(!stallReason_.isEmpty()         ? stallReason_
                  : status == QProcess::CrashExit ? tr("tor was killed or crashed")
                                                  : tr("tor exited with code %1").arg(exitCode));
}

void TorLauncher::handleFailure(const QString& reason) {
    // tor's last words go to our log and into a final failure; the restart signal (what the
    // window shows while tor starts again) carries the reason alone.
    const QString detailed =
        lastLogLines_.isEmpty() ? reason
                                : tr("%1 (tor said: %2)").arg(reason, torsLastWords(lastLogLines_));
    pollTimer_.stop();
    startDeadline_.stop();
    forgetProcess();
    if (configurationRefused(lastLogLines_)) {
        failPermanently(detailed);
        return;
    }
    ++consecutiveFailures_;
    if (consecutiveFailures_ > config_.maxConsecutiveFailures) {
        failPermanently(tr("tor failed %1 times in a row; last failure: %2")
                            .arg(consecutiveFailures_)
                            .arg(detailed));
        return;
    }
    // Doubling per failure, the exponent bounded: a configured limit above 31 failures would
    // shift past the int.
    const auto delay = config_.restartBackoff * (1 << std::min(consecutiveFailures_ - 1, 10));
    qCWarning(lcTor).noquote() << scrubbedForLog(detailed) << "- restarting tor in" << delay.count()
                               << "ms";
    failureReason_ = detailed;
    bootstrap_ = {}; // the next tor starts from nothing (the window showed the dead one's)
    setState(State::Starting);
    emit restarting(consecutiveFailures_, reason);
    restartTimer_.start(delay);
}

void TorLauncher::stop() {
    pollTimer_.stop();
    restartTimer_.stop();
    startDeadline_.stop();
    const bool running = process_.state() != QProcess::NotRunning;
    setState(State::NotStarted);
    forgetProcess();
    if (running) {
        process_.terminate();
        if (!process_.waitForFinished(int(kStopTimeout.count()))) {
            process_.kill();
            process_.waitForFinished(int(kStopTimeout.count()));
        }
    }
}

} // namespace onionvoice::tor
