// The ringtone.
#include "Ringtone.h"

#include "media/AudioFormat.h"

#include <QApplication>
#include <QLoggingCategory>
#include <cmath>
#include <numbers>
#include <vector>

Q_LOGGING_CATEGORY(lcRingtone, "onionvoice.gui.ringtone")

namespace onionvoice::gui {
namespace {
constexpr std::uint64_t kCycle = 6 * media::kSampleRate; // 2 s on, 4 s off
constexpr std::uint64_t kOn = 2 * media::kSampleRate;
constexpr std::size_t kAhead = media::kSampleRate / 10; // 100 ms in the ring
} // namespace

Ringtone::Ringtone(QObject* parent)
    : QObject(parent) {}

void Ringtone::setOutputDevice(const QString& output) {
    output_ = output;
}

void Ringtone::setRinging(bool ringing) {
    if (!ringing) {
        audio_.stop();
        return;
    }
    if (audio_.isRunning())
        return;
    sample_ = 0;
    QString error;
    if (!audio_.startPlayback(
            output_, [this](media::AudioRings& r) { fill(r); }, &error)) {
        // No sound device: the prompt and the notification still show the call.
        qCWarning(lcRingtone) << "no ringtone:" << error;
        QApplication::beep();
    }
}

void Ringtone::fill(media::AudioRings& rings) {
    const std::size_t buffered = rings.playback.readable();
    if (buffered >= kAhead)
        return;
    std::vector<float> out(kAhead - buffered);
    for (float& s : out) {
        const std::uint64_t n = sample_++ % kCycle;
        const double t = double(n) / media::kSampleRate;
        s = n < kOn ? float(0.1 * (std::sin(2 * std::numbers::pi * 440 * t) +
                                   std::sin(2 * std::numbers::pi * 480 * t)))
                    : 0.0f;
    }
    rings.playback.write(std::span<const float>(out));
}

} // namespace onionvoice::gui
