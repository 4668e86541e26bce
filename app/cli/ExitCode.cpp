// One-line failure messages of onionvoice-cli.
#include "ExitCode.h"

#include <cstdio>

namespace onionvoice::cli {

int fail(ExitCode code, const QString& message) {
    std::fputs(("onionvoice-cli: " + message + "\n").toUtf8().constData(), stderr);
    return toInt(code);
}

} // namespace onionvoice::cli
