// What onionvoice-cli prints about calls: the statistics snapshot as JSON or as one human line,
// stable machine names of end reasons and states, and the exit code each end reason maps to.
#pragma once

#include "ExitCode.h"
#include "call/CallTypes.h"

#include <QJsonObject>

namespace onionvoice::cli {

// "hung-up-by-peer", "network-failure", ...: stable names for scripts.
QString endReasonName(call::EndReason reason);
QString stateName(call::CallState state);
ExitCode exitCodeFor(call::EndReason reason);

QJsonObject statisticsJson(const call::CallStatistics& s);
QString statisticsLine(const call::CallStatistics& s);

// Prints one JSON object on one line of stdout and flushes (a reader may be waiting for it).
void printJsonLine(const QJsonObject& object);
// Prints one line of text on stdout and flushes.
void printLine(const QString& line);

} // namespace onionvoice::cli
