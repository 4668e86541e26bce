// The options every engine-driving command of onionvoice-cli shares (data directory, tor, private
// test network, security preset, who may call, call parameters, JSON output), turned into the
// engine's configuration with one clear error per bad value.
#pragma once

#include "ExitCode.h"
#include "call/CallEngine.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace onionvoice::cli {

enum class OutputFormat { Text, Json };

struct CommonSettings {
    call::EngineConfig engine; // everything but the audio factory
    OutputFormat output = OutputFormat::Text;
    bool unknownCallersChosen =
        false; // --unknown-callers given: a choice, also after lost contacts
};

struct OptionError {
    ExitCode code = ExitCode::Usage;
    QString message;
};

class CommonOptions {
public:
    // Adds the shared options to the parser.
    explicit CommonOptions(QCommandLineParser& parser);

    // Reads them once the parser has processed the arguments.
    std::optional<CommonSettings> read(const QCommandLineParser& parser, OptionError* error) const;

    // Default data directory: the platform's per-user application data place.
    static QString defaultDataDirectory();
    // --data-dir and --json alone, for the commands that do not start the engine (id, contacts).
    static QCommandLineOption dataDirectoryOption(const QString& what);
    static QCommandLineOption jsonOption();
    // The tor options of a private test network started by tests/testnet/testnet.py
    // (DIR/client.torrc), or nullopt with the reason.
    static std::optional<QStringList> testNetworkTorrcLines(const QString& directory,
                                                            QString* error);

private:
    QCommandLineOption dataDir_, tor_, testnet_, preset_, contactsOnly_, unknownCallers_, policy_,
        links_, bitrate_, json_;
};

} // namespace onionvoice::cli
