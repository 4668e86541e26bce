// Parsing and checking of the options shared by id, serve, call and contacts.
#include "CommonOptions.h"

#include "../DataDirectory.h"
#include "../TestNetworkTorrc.h"
#include "call/SavedAppChoices.h"
#include "multipath/SchedulingPolicy.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTextStream>

namespace onionvoice::cli {
namespace {

std::optional<std::uint8_t> policyIndex(const QString& name) {
    const auto names = multipath::policyNames();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (name.toStdString() == names[i])
            return std::uint8_t(i);
    return std::nullopt;
}

QString policyList() {
    QStringList names;
    for (const auto n : multipath::policyNames())
        names.append(QString::fromLatin1(n.data(), qsizetype(n.size())));
    return names.join(QLatin1Char(' '));
}

} // namespace

CommonOptions::CommonOptions(QCommandLineParser& parser)
    : dataDir_(dataDirectoryOption("Where the identity, contacts and tor's state live."))
    , tor_("tor", "The tor program to run (default: bundled, $ONIONVOICE_TOR, then PATH).", "PATH")
    , testnet_("testnet",
               "Join the private Tor network that tests/testnet/testnet.py started in DIR.", "DIR")
    , preset_("preset",
              "Security preset: standard, more-guards, or hotline (the one-way hotline: your "
              "service is single-hop and not anonymous; your callers stay anonymous). Default: "
              "the desktop app's for the data directory, else standard.",
              "NAME", "standard")
    , contactsOnly_("contacts-only",
                    "Only allowlisted contacts holding a key can reach this service (always so "
                    "where the desktop app has chosen it for the data directory).")
    , unknownCallers_("unknown-callers",
                      "Callers not in the contacts: ring or refuse. Default: the desktop app's "
                      "choice for the data directory, else ring.",
                      "MODE", "ring")
    , policy_("policy", "Multipath policy proposed for calls: " + policyList() + ".", "NAME",
              "adaptive")
    // The range the engine takes (the handshake refuses more), in the help as in the error: the
    // help said 1..12 while 13..16 were taken.
    , links_("links", QStringLiteral("Links per call (1..%1).").arg(multipath::kMaxLinks), "N",
             "12")
    , bitrate_("bitrate", "Opus bitrate in bit/s (6000..32000).", "BPS", "32000")
    , json_(jsonOption()) {
    parser.addOptions({dataDir_, tor_, testnet_, preset_, contactsOnly_, unknownCallers_, policy_,
                       links_, bitrate_, json_});
}

QCommandLineOption CommonOptions::dataDirectoryOption(const QString& what) {
    const QString directory = app::defaultDataDirectory();
    return {"data-dir", what + QStringLiteral(" Default: %1, the desktop app's.").arg(directory),
            "DIR", directory};
}

QString CommonOptions::dataDirectory(const QCommandLineParser& parser,
                                     const QCommandLineOption& option) {
    const QString directory = QDir(parser.value(option)).absolutePath();
    // The default onionvoice-cli had before it shared the app's: QStandardPaths under the CLI's
    // own name. An identity there is not moved (the app's directory may hold one already), but
    // it is not silently left behind either.
    const QString former = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    if (!parser.isSet(option) && !former.isEmpty() && QDir(former).absolutePath() != directory &&
        QFileInfo::exists(QDir(former).filePath(QStringLiteral("identity.key"))))
        QTextStream(stderr) << QStringLiteral(
                                   "onionvoice-cli: note: the default data directory is now %1, "
                                   "the desktop app's; %2 holds an identity onionvoice-cli used "
                                   "before: give --data-dir %2 to keep using it\n")
                                   .arg(directory, QDir(former).absolutePath());
    return directory;
}

QCommandLineOption CommonOptions::jsonOption() {
    return {"json", "Machine-readable output: one JSON object per line."};
}

std::optional<QStringList> CommonOptions::testNetworkTorrcLines(const QString& directory,
                                                                QString* error) {
    QString reason;
    auto lines = app::readTestNetworkTorrc(directory, &reason);
    if (!lines)
        *error = QStringLiteral("--testnet %1: %2; start the network with "
                                "tests/testnet/testnet.py up %1")
                     .arg(directory, reason);
    return lines;
}

// The desktop app's choices in the same data directory (call/SavedAppChoices.h): its preset
// unless --preset is given, contacts only, strangers refused unless --unknown-callers is given,
// and no tor without the bridges it uses (the CLI has none to give it). A private test network
// has no censor to hide from.
bool CommonOptions::honourSavedChoices(const QCommandLineParser& parser, call::EngineConfig* e,
                                       OptionError* error) const {
    QString problem;
    const auto saved = call::readSavedAppChoices(e->dataDirectory, &problem);
    if (!problem.isEmpty()) {
        *error = {
            ExitCode::Failure,
            QStringLiteral("%1: the desktop app's choices for this data directory (bridges, "
                           "contacts only, who may call) are unknown; open it in the app, or give "
                           "--data-dir another directory")
                .arg(problem)};
        return false;
    }
    if (!saved)
        return true;
    if (saved->useBridges && !parser.isSet(testnet_)) {
        *error = {ExitCode::TorFailed,
                  QStringLiteral("the desktop app reaches Tor through bridges from %1, and "
                                 "onionvoice-cli has none: its tor would connect to the Tor "
                                 "network directly. Use the app, or give --data-dir another "
                                 "directory")
                      .arg(e->dataDirectory)};
        return false;
    }
    if (!parser.isSet(preset_))
        e->preset = saved->preset;
    if (saved->contactsOnly)
        e->access = call::ServiceAccess::ContactsOnly;
    if (saved->refuseUnknownCallers && !parser.isSet(unknownCallers_))
        e->unknownCallers = call::UnknownCallers::Refuse;
    return true;
}

std::optional<CommonSettings> CommonOptions::read(const QCommandLineParser& parser,
                                                  OptionError* error) const {
    CommonSettings s;
    call::EngineConfig& e = s.engine;
    e.dataDirectory = dataDirectory(parser, dataDir_);
    if (parser.isSet(tor_)) {
        const QFileInfo tor(parser.value(tor_));
        if (!tor.isFile() || !tor.isExecutable()) {
            *error = {ExitCode::TorFailed,
                      QStringLiteral("--tor %1: no such executable").arg(parser.value(tor_))};
            return std::nullopt;
        }
        e.torExecutable = tor.absoluteFilePath();
    }
    if (parser.isSet(testnet_)) {
        QString reason;
        const auto lines = testNetworkTorrcLines(parser.value(testnet_), &reason);
        if (!lines) {
            *error = {ExitCode::FileError, reason};
            return std::nullopt;
        }
        e.extraTorrcLines = *lines;
    }
    const auto preset = tor::presetFromKey(parser.value(preset_));
    if (!preset) {
        *error = {ExitCode::Usage,
                  QStringLiteral("--preset %1: expected standard, more-guards or hotline")
                      .arg(parser.value(preset_))};
        return std::nullopt;
    }
    e.preset = *preset;
    e.access =
        parser.isSet(contactsOnly_) ? call::ServiceAccess::ContactsOnly : call::ServiceAccess::Open;
    s.unknownCallersChosen = parser.isSet(unknownCallers_);
    const QString unknown = parser.value(unknownCallers_);
    if (unknown == QLatin1String("ring"))
        e.unknownCallers = call::UnknownCallers::Ring;
    else if (unknown == QLatin1String("refuse"))
        e.unknownCallers = call::UnknownCallers::Refuse;
    else {
        *error = {ExitCode::Usage,
                  QStringLiteral("--unknown-callers %1: expected ring or refuse").arg(unknown)};
        return std::nullopt;
    }
    if (!honourSavedChoices(parser, &e, error))
        return std::nullopt;
    const auto policy = policyIndex(parser.value(policy_));
    if (!policy) {
        *error = {ExitCode::Usage, QStringLiteral("--policy %1: expected one of %2")
                                       .arg(parser.value(policy_), policyList())};
        return std::nullopt;
    }
    e.parameters.policy = *policy;
    bool ok = false;
    const int links = parser.value(links_).toInt(&ok);
    if (!ok || links < 1 || links > int(multipath::kMaxLinks)) {
        *error = {ExitCode::Usage, QStringLiteral("--links %1: expected 1..%2")
                                       .arg(parser.value(links_))
                                       .arg(multipath::kMaxLinks)};
        return std::nullopt;
    }
    e.parameters.links = std::uint8_t(links);
    const uint bitrate = parser.value(bitrate_).toUInt(&ok);
    e.parameters.bitrate = bitrate;
    if (const auto bad = call::checkParameters(e.parameters); !ok || bad) {
        *error = {ExitCode::Usage,
                  QStringLiteral("--bitrate %1: %2")
                      .arg(parser.value(bitrate_), ok ? *bad : QStringLiteral("not a number"))};
        return std::nullopt;
    }
    s.output = parser.isSet(json_) ? OutputFormat::Json : OutputFormat::Text;
    return s;
}

} // namespace onionvoice::cli
