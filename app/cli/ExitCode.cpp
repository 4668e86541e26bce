// One-line failure messages of onionvoice-cli.
#include "ExitCode.h"

#include <cstdio>

namespace onionvoice::cli {

int fail(ExitCode code, const QString& message) {
    std::fputs(("onionvoice-cli: " + message + "\n").toUtf8().constData(), stderr);
    return toInt(code);
}

std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments) {
    if (!parser.parse(arguments))
        return fail(ExitCode::Usage, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs((parser.helpText() + QLatin1Char('\n')).toUtf8().constData(), stdout);
        return toInt(ExitCode::Ok);
    }
    return std::nullopt;
}

} // namespace onionvoice::cli
