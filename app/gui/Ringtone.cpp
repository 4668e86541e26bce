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
    : QObject(parent) {
    timer_.setInterval(20);
    connect(&timer_, &QTimer::timeout, this, &Ringtone::fill);
}

Ringtone::~Ringtone() {
    setRinging(false);
}

void Ringtone::setRinging(bool ringing) {
    if (!ringing) {
        timer_.stop();
        if (backend_)
            backend_->stop();
        backend_.reset();
        rings_.reset();
        return;
    }
    if (backend_)
        return;
    QString error;
    backend_ = media::PortAudioBackend::create(&error);
    if (backend_) {
        backend_->setOutputDevice({{}, device_});
        rings_ = std::make_unique<media::AudioRings>();
        sample_ = 0;
        fill();
        if (backend_->start(*rings_, &error)) {
            timer_.start();
            return;
        }
    }
    // No sound device: the prompt and the notification still show the call.
    qCWarning(lcRingtone) << "no ringtone:" << error;
    backend_.reset();
    rings_.reset();
    QApplication::beep();
}

void Ringtone::fill() {
    std::vector<float> capture(kAhead);
    rings_->capture.read(capture); // the microphone is not used; keep its ring from filling up
    const std::size_t buffered = rings_->playback.readable();
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
    rings_->playback.write(std::span<const float>(out));
}

} // namespace onionvoice::gui
