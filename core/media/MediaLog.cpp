// Definition of the audio engine's logging category.
#include "media/MediaLog.h"

namespace onionvoice::media {
Q_LOGGING_CATEGORY(lcMedia, "onionvoice.media")
}
