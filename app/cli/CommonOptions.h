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

    // --data-dir and --json alone, for the commands that do not start the engine (id, contacts).
    // The default is the desktop app's data directory (app/DataDirectory.h).
    static QCommandLineOption dataDirectoryOption(const QString& what);
    // The absolute data directory `option` names. Without --data-dir, when the directory that was
    // onionvoice-cli's own default holds an identity, says on stderr how to keep using it.
    static QString dataDirectory(const QCommandLineParser& parser,
                                 const QCommandLineOption& option);
    static QCommandLineOption jsonOption();
    // The tor options of a private test network started by tests/testnet/testnet.py
    // (DIR/client.torrc), or nullopt with the reason.
    static std::optional<QStringList> testNetworkTorrcLines(const QString& directory,
                                                            QString* error);

private:
    bool honourSavedChoices(const QCommandLineParser& parser, call::EngineConfig* engine,
                            OptionError* error) const;

    QCommandLineOption dataDir_, tor_, testnet_, preset_, contactsOnly_, unknownCallers_, policy_,
        links_, bitrate_, json_;
};

} // namespace onionvoice::cli
