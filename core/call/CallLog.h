// Logging category of the call engine (onionvoice.call, defined in CallEngine.cpp): never an
// address or a key in it; debug output is off unless enabled (QT_LOGGING_RULES).
#pragma once

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcCall)
