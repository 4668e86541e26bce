// `onionvoice-cli call` and `serve`: their options, the audio device of each call (WAV files, the
// echo contact or the sound card), and the event loop that runs a CommandSession to its end.
#include "CallReport.h"
#include "CommandSession.h"
#include "Commands.h"
#include "DataDirectoryLock.h"
#include "EchoBackend.h"
#include "FrameLog.h"
#include "ImpairRelay.h"
#include "PeerAddress.h"
#include "contacts/ContactBook.h"
#include "media/PortAudioBackend.h"
#include "media/WavFileBackend.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

namespace onionvoice::cli {
namespace {

using AudioFactory = std::function<std::unique_ptr<media::AudioBackend>(QString* error)>;

const QString kSessionHelp = QStringLiteral(
    "\nJSON output (--json): one object per line with an \"event\" field: identity (address, "
    "access: open or contacts-only, preset, unknown_callers: ring or refuse), tor, ready "
    "(serve: the service is reachable), incoming (audio_problem: what the sound card lacks, "
    "empty when nothing), refused, state, statistics (once a second "
    "during a call), summary (after each call, with end_reason), impair, error.\n"
    "--impair TRACE replays an onionvoice-link-trace v1 file onto the call's links (caller "
    "side); its control socket takes: break SLOT... [for SECONDS] | delay SLOT MS SECONDS | "
    "stats (see tests/e2e/README.md).\n\n");

// Longest --seconds, --dial-timeout and --bootstrap-timeout: a day. QTimer holds milliseconds in an
// int, so much larger values wrapped (2200000 s became a negative interval that never fired,
// 4294968 s 704 ms).
constexpr int kMaxSeconds = 86400;

// The option's value as 1 to kMaxSeconds seconds; nullopt when it is anything else (reported,
// with the usage exit code, into *exitCode).
std::optional<std::chrono::seconds> secondsOption(const QCommandLineParser& parser,
                                                  const QCommandLineOption& option, int* exitCode) {
    bool ok = false;
    const int n = parser.value(option).toInt(&ok);
    if (ok && n >= 1 && n <= kMaxSeconds)
        return std::chrono::seconds(n);
    *exitCode = fail(ExitCode::Usage, QStringLiteral("--%1 must be a whole number of seconds "
                                                     "from 1 to %2")
                                          .arg(option.names().constFirst())
                                          .arg(kMaxSeconds));
    return std::nullopt;
}

// The n-th call's recording: FILE for the first, FILE-2.wav, FILE-3.wav... after it.
QString recordingFor(const QString& path, int call) {
    if (call <= 1)
        return path;
    const QFileInfo info(path);
    return info.dir().filePath(
        QStringLiteral("%1-%2.%3").arg(info.completeBaseName()).arg(call).arg(info.suffix()));
}

// A link with a key opens the peer's contacts-only service; our tor gets keys from the contact
// book, so the key goes there (a new contact, or the existing one's key is set).
bool rememberServiceKey(const contacts::ContactUri& peer, const QString& dataDirectory,
                        QString* error) {
    contacts::ContactBook book(QDir(dataDirectory).filePath(QStringLiteral("contacts.json")));
    const auto loaded = book.load();
    if (loaded.outcome == contacts::ContactBook::LoadOutcome::Unreadable) {
        *error = loaded.message;
        return false;
    }
    // A damaged book was repaired and its file kept aside: where, only this message says.
    if (loaded.outcome == contacts::ContactBook::LoadOutcome::CorruptKeptAside)
        std::fputs(("onionvoice-cli: " + loaded.message + "\n").toUtf8().constData(), stderr);
    const auto contact = book.find(peer.address);
    if (contact && contact->outboundAuthPrivateKey == peer.clientAuthKey)
        return true;
    // An existing contact changes in place: its name, stored by any version, is not checked again.
    if (contact) {
        if (!book.setOutboundAccessKey(peer.address, peer.clientAuthKey, error))
            return false;
    } else {
        contacts::Contact c;
        c.address = peer.address;
        c.displayName = peer.displayName;
        c.added = QDateTime::currentDateTimeUtc();
        c.outboundAuthPrivateKey = peer.clientAuthKey;
        if (!book.add(c, error))
            return false;
    }
    if (!book.save(error))
        return false;
    // Without the address: stderr is the log, and no onion address goes there (the leak test).
    std::fputs("onionvoice-cli: the link's access key is kept in the contacts\n", stderr);
    return true;
}

struct AudioChoice {
    QString play, record;
    bool echo = false;
};

std::optional<OptionError> checkAudioFiles(const AudioChoice& audio) {
    if (!audio.play.isEmpty()) {
        QString error;
        if (!media::WavFileSource::open(audio.play, &error))
            return OptionError{ExitCode::FileError, "--play " + error};
    }
    if (!audio.record.isEmpty()) {
        const QFileInfo dir(QFileInfo(audio.record).absolutePath());
        if (!dir.isDir() || !dir.isWritable())
            return OptionError{ExitCode::FileError,
                               "--record " + audio.record + ": directory not writable"};
    }
    return std::nullopt;
}

AudioFactory audioFactory(const AudioChoice& audio) {
    if (audio.echo) {
        auto greeting = std::make_shared<const std::vector<float>>(makeGreeting());
        return [greeting](QString*) -> std::unique_ptr<media::AudioBackend> {
            return std::make_unique<EchoBackend>(greeting);
        };
    }
    if (!audio.play.isEmpty() || !audio.record.isEmpty()) {
        auto calls = std::make_shared<int>(0);
        return [audio, calls](QString* error) -> std::unique_ptr<media::AudioBackend> {
            return media::WavFileBackend::create(audio.play, recordingFor(audio.record, ++*calls),
                                                 media::Pacing::RealTime, error);
        };
    }
    return [](QString* error) -> std::unique_ptr<media::AudioBackend> {
        return media::PortAudioBackend::create(error);
    };
}

int runSession(SessionRole role, const QStringList& arguments) {
    QCommandLineParser parser;
    const bool caller = role == SessionRole::Caller;
    parser.setApplicationDescription(
        (caller ? QStringLiteral("Call ADDRESS_OR_URI (an onion address or an onionvoice: link). "
                                 "Without --play/--record the sound card is used.\n")
                : QStringLiteral("Stay online and take calls. Without --play/--record/--echo the "
                                 "sound card is used.\n")) +
        kSessionHelp + exitCodeHelp());
    parser.addHelpOption();
    CommonOptions common(parser);
    const QCommandLineOption play("play", "Speak this 48 kHz WAV file into each call.", "WAV");
    const QCommandLineOption record("record", "Record what the other side says into this WAV.",
                                    "WAV");
    const QCommandLineOption seconds(
        "seconds", QStringLiteral("Hang up after N seconds of call (at most %1).").arg(kMaxSeconds),
        "N");
    const QCommandLineOption dialTimeout(
        "dial-timeout",
        QStringLiteral("Give up dialing after N seconds (default 120, at most %1).")
            .arg(kMaxSeconds),
        "N");
    const QCommandLineOption bootstrapTimeout(
        "bootstrap-timeout",
        QStringLiteral("Give up (exit 5) if tor has not connected to the Tor network after N "
                       "seconds (default 300, at most %1).")
            .arg(kMaxSeconds),
        "N");
    const QCommandLineOption answer("answer", "auto (answer every call) or never.", "MODE", "auto");
    const QCommandLineOption echo(
        "echo", "Be the echo contact: a short greeting, then what it hears comes back.");
    const QCommandLineOption calls("calls", "Exit after N calls (default: never).", "N", "0");
    const QCommandLineOption frameLog(
        "frame-log", "Write per-frame timestamps (CLOCK_MONOTONIC) to FILE.", "FILE");
    const QCommandLineOption impair("impair", "Replay this link trace onto the call's links.",
                                    "TRACE");
    const QCommandLineOption impairControl(
        "impair-control", "Control socket of --impair (default: DATA_DIR/impair.sock).", "PATH");
    // The engine's defaults: all voice processing on the microphone, unless told otherwise.
    const QCommandLineOption noEcho(
        "no-echo-cancel", "Turn echo cancellation off (no acoustic path, e.g. WAV files).");
    const QCommandLineOption noNoise("no-noise-suppression", "Turn noise suppression off.");
    const QCommandLineOption noGain("no-gain-control", "Turn automatic gain control off.");
    parser.addOptions({play, record, frameLog, bootstrapTimeout, noEcho, noNoise, noGain});
    if (caller) {
        parser.addOptions({seconds, dialTimeout, impair, impairControl});
        parser.addPositionalArgument("ADDRESS_OR_URI", "Who to call.");
    } else {
        parser.addOptions({answer, echo, calls});
    }
    if (const auto exit = parseOrExit(parser, arguments))
        return *exit;
    OptionError error;
    auto settings = common.read(parser, &error);
    if (!settings)
        return fail(error.code, error.message);

    SessionConfig session;
    session.role = role;
    session.output = settings->output;
    if (settings->unknownCallersChosen)
        session.unknownCallersChosen = settings->engine.unknownCallers;
    if (parser.isSet(bootstrapTimeout)) {
        int exitCode = 0;
        const auto timeout = secondsOption(parser, bootstrapTimeout, &exitCode);
        if (!timeout)
            return exitCode;
        session.bootstrapTimeout = *timeout;
    }
    const QStringList positional = parser.positionalArguments();
    bool ok = true;
    std::optional<contacts::ContactUri> peer;
    if (caller) {
        if (positional.size() != 1)
            return fail(ExitCode::Usage, "call needs exactly one ADDRESS_OR_URI");
        QString reason;
        peer = parsePeer(positional.first(), &reason);
        if (!peer)
            return fail(ExitCode::InvalidAddress, reason);
        session.peer = peer->address;
        int exitCode = 0;
        if (parser.isSet(seconds)) {
            session.seconds = secondsOption(parser, seconds, &exitCode);
            if (!session.seconds)
                return exitCode;
        }
        if (parser.isSet(dialTimeout)) {
            const auto timeout = secondsOption(parser, dialTimeout, &exitCode);
            if (!timeout)
                return exitCode;
            settings->engine.dialTimeout = *timeout;
        }
    } else {
        if (!positional.isEmpty())
            return fail(ExitCode::Usage, "serve takes no arguments: " + positional.join(' '));
        const QString mode = parser.value(answer);
        if (mode != QLatin1String("auto") && mode != QLatin1String("never"))
            return fail(ExitCode::Usage, "--answer " + mode + ": expected auto or never");
        session.answer = mode == QLatin1String("auto") ? AnswerMode::Auto : AnswerMode::Never;
        session.calls = parser.value(calls).toInt(&ok);
        if (!ok || session.calls < 0)
            return fail(ExitCode::Usage, "--calls must be a number");
        if (parser.isSet(echo) && (parser.isSet(play) || parser.isSet(record)))
            return fail(ExitCode::Usage, "--echo cannot be combined with --play or --record");
    }

    const AudioChoice audio{parser.value(play), parser.value(record),
                            !caller && parser.isSet(echo)};
    if (const auto bad = checkAudioFiles(audio))
        return fail(bad->code, bad->message);
    // The echo contact's microphone is what it just played: echo cancellation would erase it.
    const auto onOff = [&](const QCommandLineOption& off) {
        return audio.echo || parser.isSet(off) ? media::Switch::Off : media::Switch::On;
    };
    settings->engine.processing.echoCancellation = onOff(noEcho);
    settings->engine.processing.noiseSuppression = onOff(noNoise);
    settings->engine.processing.gainControl = onOff(noGain);
    settings->engine.audio = audioFactory(audio);
    if (!audio.echo && audio.play.isEmpty() && audio.record.isEmpty())
        settings->engine.audioDevicesPresent = [](QString* error) {
            const auto backend = media::PortAudioBackend::create(error);
            return backend && backend->devicesPresent(error);
        };
    if (parser.isSet(frameLog)) {
        const QFileInfo dir(QFileInfo(parser.value(frameLog)).absolutePath());
        if (!dir.isDir() || !dir.isWritable())
            return fail(ExitCode::FileError,
                        "--frame-log " + parser.value(frameLog) + ": directory not writable");
        session.frameLog = std::make_shared<FrameLog>(parser.value(frameLog));
        settings->engine.frameObserver = session.frameLog;
        settings->engine.audio = [log = session.frameLog,
                                  make = settings->engine.audio](QString* error) {
            log->event("audio_start");
            return make(error);
        };
    }
    // One OnionVoice per data directory, the GUI included: a second engine there would take the
    // first one's socket for tor's streams and its tor's control files. Taken before anything in
    // the directory changes; a crashed holder leaves a stale lock, which does not count.
    app::DataDirectoryLock lock(settings->engine.dataDirectory);
    if (lock.tryAcquire() != app::DataDirectoryLock::Result::Acquired)
        return fail(ExitCode::Failure, lock.errorString());
    if (peer && !peer->clientAuthKey.isEmpty()) {
        QString reason;
        if (!rememberServiceKey(*peer, settings->engine.dataDirectory, &reason))
            return fail(ExitCode::FileError, reason);
    }
    std::unique_ptr<ImpairRelay> relay;
    if (caller && parser.isSet(impair)) {
        const QString control =
            parser.isSet(impairControl)
                ? parser.value(impairControl)
                : QDir(settings->engine.dataDirectory).filePath(QStringLiteral("impair.sock"));
        QDir().mkpath(settings->engine.dataDirectory);
        QString reason;
        relay = ImpairRelay::start(parser.value(impair), settings->engine.parameters.links, control,
                                   &reason);
        if (!relay)
            return fail(ExitCode::FileError, "--impair " + reason);
        const auto ports = relay->ports();
        settings->engine.slotSocksPorts.assign(ports.begin(), ports.end());
        if (session.output == OutputFormat::Json)
            printJsonLine(
                {{"event", "impair"}, {"trace", parser.value(impair)}, {"control", control}});
        else
            printLine("impairing links with " + parser.value(impair) + "; control: " + control);
    }

    CommandSession run(session, std::move(settings->engine));
    if (relay) {
        LinkImpairer* impairer = &relay->impairer();
        QObject::connect(&run, &CommandSession::torReady, impairer, &LinkImpairer::setSocksTarget,
                         Qt::DirectConnection);
        QObject::connect(&run, &CommandSession::callStateChanged, &run,
                         [impairer, log = session.frameLog](call::CallState state) {
                             if (state != call::CallState::Active)
                                 return;
                             const auto t0 = LinkImpairer::Clock::now();
                             impairer->startTraceClock(t0);
                             if (log)
                                 log->event("impair_t0", FrameLog::micros(t0));
                         });
    }
    int exitCode = 0;
    QObject::connect(&run, &CommandSession::finished, [&exitCode](int code) {
        exitCode = code;
        QCoreApplication::exit(code);
    });
    QTimer::singleShot(0, &run, &CommandSession::start);
    QCoreApplication::exec();
    return exitCode;
}

} // namespace

int runCall(const QStringList& arguments) {
    return runSession(SessionRole::Caller, arguments);
}

int runServe(const QStringList& arguments) {
    return runSession(SessionRole::Server, arguments);
}

} // namespace onionvoice::cli
