// Logging category of the Tor layer.
#pragma once

#include <QLoggingCategory>

namespace onionvoice::tor {
Q_DECLARE_LOGGING_CATEGORY(lcTor)
}
