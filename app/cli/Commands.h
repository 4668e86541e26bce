// The commands of onionvoice-cli besides audio-loop; each takes its own argument list (program
// name first, command name removed) and returns the process exit code.
#pragma once

#include <QStringList>

namespace onionvoice::cli {

int runId(const QStringList& arguments);
int runContacts(const QStringList& arguments);
int runCall(const QStringList& arguments);
int runServe(const QStringList& arguments);

} // namespace onionvoice::cli
