// onionvoice-cli: headless calls and tools. `id`, `serve`, `call` and `contacts` drive the call
// engine (Commands.h); `audio-loop` pushes speech through the audio engine (and optionally a
// simulated multipath network replaying a link trace) and prints quality as JSON.
#include "../NoCoreDumps.h"
#include "../PrivateFileMode.h"
#include "../ProcessListSecrets.h"
#include "AudioLoop.h"
#include "Commands.h"
#include "ExitCode.h"
#include "PesqScorer.h"
#include "media/CallQuality.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

constexpr int kUsageError = 2;

double percentile(std::vector<double> values, double q) {
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const auto rank = std::size_t(std::ceil(q * double(values.size()))) - 1;
    return values[std::min(rank, values.size() - 1)];
}

int fail(const QString& message, int code = 1) {
    QTextStream(stderr) << "onionvoice-cli: " << message << "\n";
    return code;
}

QJsonObject jitterJson(const media::JitterBufferStats& s) {
    return {
        {"target_delay_ms", double(s.targetDelay.count()) / 1000.0},
        {"packets_received", double(s.packetsReceived)},
        {"duplicates", double(s.duplicates)},
        {"packets_decoded", double(s.packetsDecoded)},
        {"fec_recovered", double(s.fecRecovered)},
        {"late", double(s.late)},
        {"lost", double(s.lost)},
        {"concealed_ms", double(s.concealedMs.count())},
        {"stretched_ms", double(s.stretchedMs.count())},
        {"dropped_ms", double(s.droppedMs.count())},
    };
}

int audioLoop(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Push speech through capture processing, Opus, an optional simulated network, the "
        "jitter buffer and the decoder; print PESQ-WB, mouth-to-ear delay and loss as JSON.\n\n" +
        cli::exitCodeHelp());
    parser.addHelpOption();
    const QCommandLineOption in("in", "Input speech, 48 kHz 16-bit or float WAV.", "WAV");
    const QCommandLineOption out("out", "Where to write what the listener hears.", "WAV");
    const QCommandLineOption trace("trace", "Replay this onionvoice link trace.", "TRACE");
    const QCommandLineOption policy("policy", "Multipath policy for --trace.", "NAME", "adaptive");
    const QCommandLineOption loss("loss", "Random packet loss in percent.", "PCT", "0");
    const QCommandLineOption seed("seed", "Seed of the random loss.", "N", "1");
    const QCommandLineOption bitrate("bitrate", "Opus bitrate in bit/s (24000..32000).", "BPS",
                                     "32000");
    const QCommandLineOption packetMs("packet-ms", "Packet period, a multiple of 20 ms.", "MS",
                                      "40");
    // The engine's defaults: the sending side runs all voice processing unless told otherwise.
    const QCommandLineOption noEcho("no-echo-cancel", "Turn echo cancellation off.");
    const QCommandLineOption noNoise("no-noise-suppression", "Turn noise suppression off.");
    const QCommandLineOption noGain("no-gain-control", "Turn automatic gain control off.");
    const QCommandLineOption noPesq("no-pesq", "Skip the PESQ score.");
    const QCommandLineOption venv("pesq-venv", "Virtual environment for the PESQ helper.", "DIR");
    parser.addOptions({in, out, trace, policy, loss, seed, bitrate, packetMs, noEcho, noNoise,
                       noGain, noPesq, venv});
    // Not parser.process(): it exits with status 1 on an unknown option, where the table says 2.
    if (const auto exit = cli::parseOrExit(parser, arguments))
        return *exit;
    if (!parser.isSet(in) || !parser.isSet(out))
        return fail("audio-loop needs --in and --out (see --help)", kUsageError);

    bool okLoss = false, okSeed = false, okBitrate = false, okPacket = false;
    const double lossPercent = parser.value(loss).toDouble(&okLoss);
    const quint64 seedValue = parser.value(seed).toULongLong(&okSeed);
    const int bitrateValue = parser.value(bitrate).toInt(&okBitrate);
    const int packetValue = parser.value(packetMs).toInt(&okPacket);
    if (!okLoss || lossPercent < 0 || lossPercent > 100)
        return fail("--loss must be a percentage between 0 and 100", kUsageError);
    if (!okSeed)
        return fail("--seed must be a non-negative integer", kUsageError);
    if (!okBitrate || bitrateValue < 24000 || bitrateValue > 32000)
        return fail("--bitrate must be between 24000 and 32000", kUsageError);
    if (!okPacket || packetValue < 20 || packetValue > 120 || packetValue % 20 != 0)
        return fail("--packet-ms must be 20, 40, 60, 80, 100 or 120", kUsageError);
    // A usage error, not a failure of the run: checked before any file is read, with or without
    // --trace (an unknown name was taken without one, exit 0).
    if (const QStringList policies = cli::TraceNetwork::policies();
        !policies.contains(parser.value(policy)))
        return fail("--policy must be one of: " + policies.join(QLatin1Char(' ')), kUsageError);

    // A missing or unreadable file named on the command line is exit code 4 (README, --help);
    // audio-loop exited 1 for them. What a readable file holds is checked where it is read.
    for (const QCommandLineOption* file : {&in, &trace}) {
        if (!parser.isSet(*file))
            continue;
        QFile f(parser.value(*file));
        if (!f.open(QIODevice::ReadOnly))
            return fail("--" + file->names().constFirst() + " " + f.fileName() + ": " +
                            f.errorString(),
                        cli::toInt(cli::ExitCode::FileError));
    }

    cli::AudioLoopConfig config;
    config.input = parser.value(in);
    config.output = parser.value(out);
    config.encoder.bitrate = bitrateValue;
    config.encoder.packetPeriod = std::chrono::milliseconds(packetValue);
    const auto onOff = [&](const QCommandLineOption& off) {
        return parser.isSet(off) ? media::Switch::Off : media::Switch::On;
    };
    config.processing.echoCancellation = onOff(noEcho);
    config.processing.noiseSuppression = onOff(noNoise);
    config.processing.gainControl = onOff(noGain);

    QString error;
    QJsonObject network{{"loss_pct", lossPercent}};
    std::unique_ptr<cli::LoopNetwork> model;
    if (parser.isSet(trace)) {
        model = cli::TraceNetwork::create(parser.value(trace), parser.value(policy), packetValue,
                                          bitrateValue, &error);
        if (!model)
            return fail(error);
        network.insert("trace", parser.value(trace));
        network.insert("policy", parser.value(policy));
    } else {
        model = std::make_unique<cli::FixedDelayNetwork>(0ms);
    }
    if (lossPercent > 0)
        model = std::make_unique<cli::RandomLossNetwork>(std::move(model), lossPercent, seedValue);

    const auto result = cli::runAudioLoop(config, *model, &error);
    if (!result)
        return fail(error);

    const auto& m2e = result->mouthToEarMs;
    const double packets = double(result->packetsSent);
    const double missingPct =
        packets > 0 ? 100.0 * double(result->jitter.late + result->jitter.lost) / packets : 0.0;
    media::EModelInput emodelInput;
    emodelInput.mouthToEar = std::chrono::milliseconds(std::lround(percentile(m2e, 0.5)));
    emodelInput.packetLossPercent = missingPct;
    const media::EModelResult emodel = media::computeEModel(emodelInput);
    network.insert("packets_sent", double(result->packetsSent));
    network.insert("packets_lost", double(result->packetsLostInNetwork));

    QJsonObject report{
        {"input_seconds", result->inputSeconds},
        {"bitrate", bitrateValue},
        {"packet_ms", packetValue},
        {"processing", QJsonObject{{"echo_cancel", !parser.isSet(noEcho)},
                                   {"noise_suppression", !parser.isSet(noNoise)},
                                   {"gain_control", !parser.isSet(noGain)}}},
        {"network", network},
        // Per-frame percentiles at 1 ms resolution.
        {"mouth_to_ear_ms", QJsonObject{{"p50", std::round(percentile(m2e, 0.5))},
                                        {"p95", std::round(percentile(m2e, 0.95))},
                                        {"p99", std::round(percentile(m2e, 0.99))},
                                        {"max", std::round(percentile(m2e, 1.0))}}},
        {"frames_sent", double(result->framesSent)},
        {"missing_pct", missingPct},
        {"jitter_buffer", jitterJson(result->jitter)},
        {"emodel", QJsonObject{{"r", emodel.rFactor}, {"mos", emodel.mos}}},
        {"r_factor", emodel.rFactor},
    };
    if (!parser.isSet(noPesq)) {
        cli::PesqSetup setup;
        if (parser.isSet(venv))
            setup.venv = parser.value(venv);
        const auto score = cli::scorePesqWb(setup, config.input, config.output, &error);
        if (!score)
            return fail(error);
        report.insert("pesq_wb", *score);
    }
    std::fputs(QJsonDocument(report).toJson(QJsonDocument::Indented).constData(), stdout);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    onionvoice::app::restrictFileCreationMask();
    onionvoice::app::disableCoreDumps();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("onionvoice-cli");
    QCoreApplication::setApplicationVersion(QStringLiteral(ONIONVOICE_VERSION));
    // stdout is for results and stderr for one-line errors: the engine's progress notes (tor's
    // own log included) stay quiet unless QT_LOGGING_RULES asks for them.
    QLoggingCategory::setFilterRules(
        QStringLiteral("onionvoice.*.debug=false\nonionvoice.*.info=false"));
    QStringList arguments = QCoreApplication::arguments();
    onionvoice::app::hideAccessKeysFromProcessList(argc, argv);
    const QString command = arguments.size() > 1 ? arguments.at(1) : QString();
    const std::map<QString, int (*)(const QStringList&)> commands{
        {"audio-loop", audioLoop},      {"id", cli::runId},
        {"serve", cli::runServe},       {"call", cli::runCall},
        {"contacts", cli::runContacts},
    };
    if (const auto it = commands.find(command); it != commands.end()) {
        arguments.removeAt(1);
        return it->second(arguments);
    }
    if (command == QLatin1String("--version") || command == QLatin1String("-v")) {
        std::printf("onionvoice-cli %s\n", ONIONVOICE_VERSION);
        return 0;
    }
    const QString usage =
        QStringLiteral(
            "usage: onionvoice-cli COMMAND [options]   (onionvoice-cli COMMAND --help for "
            "details)\n"
            "  id                       create or show your identity (onionvoice: link, --qr)\n"
            "  serve                    stay online and take calls (--answer, --play, --record, "
            "--echo)\n"
            "  call ADDRESS_OR_URI      call someone (--play, --record, --seconds N)\n"
            "  contacts ACTION          list, add, remove, block, unblock\n"
            "  audio-loop               audio quality through a simulated network\n"
            "  --version                print the version\n\n") +
        cli::exitCodeHelp();
    if (command == QLatin1String("--help") || command == QLatin1String("-h") ||
        command == QLatin1String("help")) {
        std::fputs(usage.toUtf8().constData(), stdout);
        return 0;
    }
    std::fputs(usage.toUtf8().constData(), stderr);
    return command.isEmpty() ? cli::toInt(cli::ExitCode::Usage)
                             : cli::fail(cli::ExitCode::Usage, "unknown command: " + command);
}
