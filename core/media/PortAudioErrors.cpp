// PortAudio's error texts are English only and fixed in the library, so the codes a user meets
// when a device is missing, busy or unfit are described here, where lupdate finds them
// (`ui/CMakeLists.txt` runs it over this file).
#include "media/PortAudioErrors.h"

#include <QCoreApplication>
#include <portaudio.h>

namespace onionvoice::media {
namespace {

QString text(const char* source) {
    return QCoreApplication::translate("PortAudioErrors", source);
}

} // namespace

QString describePortAudioError(int error) {
    switch (error) {
    case paInvalidDevice:
        return text(QT_TRANSLATE_NOOP("PortAudioErrors", "the device does not exist (any more)"));
    case paDeviceUnavailable:
        return text(QT_TRANSLATE_NOOP(
            "PortAudioErrors", "the device is unavailable; another program may be using it"));
    case paInvalidChannelCount:
        return text(QT_TRANSLATE_NOOP("PortAudioErrors", "the device has no mono channel"));
    case paInvalidSampleRate:
        return text(QT_TRANSLATE_NOOP("PortAudioErrors", "the device cannot run at 48 kHz"));
    case paInsufficientMemory:
        return text(QT_TRANSLATE_NOOP("PortAudioErrors", "out of memory"));
    case paTimedOut:
        return text(QT_TRANSLATE_NOOP("PortAudioErrors", "the device did not answer in time"));
    case paUnanticipatedHostError: {
        // The sound system's own words (ALSA's, PulseAudio's) are the only hint of what to fix.
        const PaHostErrorInfo* host = Pa_GetLastHostErrorInfo();
        const QString detail =
            host && host->errorText ? QString::fromUtf8(host->errorText) : QString();
        return detail.isEmpty()
                   ? text(QT_TRANSLATE_NOOP("PortAudioErrors", "the sound system failed"))
                   : text(QT_TRANSLATE_NOOP("PortAudioErrors", "the sound system failed: %1"))
                         .arg(detail);
    }
    default:
        return QString::fromUtf8(Pa_GetErrorText(error));
    }
}

} // namespace onionvoice::media
