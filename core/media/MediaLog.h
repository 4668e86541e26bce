// Logging category of the audio engine (onionvoice.media); never used inside audio callbacks.
#pragma once

#include <QLoggingCategory>

namespace onionvoice::media {
Q_DECLARE_LOGGING_CATEGORY(lcMedia)
}
