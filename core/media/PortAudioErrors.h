// PortAudio's failures in words a user can act on, in the app's language.
#pragma once

#include <QString>

namespace onionvoice::media {

// The meaning of a PortAudio error code (a PaError), translated where the app loaded a
// translation (the command line loads none and keeps English). Codes a user does not meet keep
// PortAudio's own English text.
QString describePortAudioError(int error);

} // namespace onionvoice::media
