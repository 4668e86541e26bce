// The exit codes of onionvoice-cli, one per kind of outcome a script may want to tell apart, and
// the text of `--help` that documents them. Every failure prints one line on stderr.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <optional>

namespace onionvoice::cli {

enum class ExitCode : int {
    Ok = 0,             // the command did its job; a call ended by a hang-up (either side)
    Failure = 1,        // anything else (I/O, audio device, data directory in use, internal error)
    Usage = 2,          // unknown command or option, bad option value
    InvalidAddress = 3, // the address or contact link is not a valid onion address
    FileError = 4,      // a file named on the command line is missing or unreadable
    TorFailed = 5,      // tor not found, too old, or could not start or bootstrap
    Unreachable = 6,    // no link to the peer could be opened
    Refused = 7,        // rejected, busy, not accepted, not answered or cancelled
    CallFailed = 8,     // the call broke: network failure or a protocol error
    Interrupted = 130,  // Ctrl-C or SIGTERM: the call was hung up and tor stopped
};

inline int toInt(ExitCode code) {
    return static_cast<int>(code);
}

inline QString exitCodeHelp() {
    return QStringLiteral("Exit codes:\n"
                          "  0    done; a call ended by a hang-up (either side)\n"
                          "  1    other failure (I/O, audio device, data directory in use, "
                          "internal error)\n"
                          "  2    usage error: unknown command or option, bad value\n"
                          "  3    invalid onion address or contact link (reason on stderr)\n"
                          "  4    a file named on the command line is missing or unreadable\n"
                          "  5    tor not found, too old, or failed to start or bootstrap\n"
                          "  6    the peer is unreachable\n"
                          "  7    the call was refused: rejected, busy, not accepted, no "
                          "answer, cancelled\n"
                          "  8    the call broke: network failure or protocol error\n"
                          "  130  interrupted (Ctrl-C / SIGTERM): hung up, tor stopped\n");
}

// Prints "onionvoice-cli: message" on stderr and returns the code, for `return fail(...)`.
int fail(ExitCode code, const QString& message);

// Parses a command's arguments; returns the exit code when the command must not go on (a usage
// error, already reported, or --help, already printed).
std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments);

} // namespace onionvoice::cli
