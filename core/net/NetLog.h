// Logging category of the link layer.
#pragma once

#include <QLoggingCategory>

namespace onionvoice::net {
Q_DECLARE_LOGGING_CATEGORY(lcNet)
}
