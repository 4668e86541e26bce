// Greeting synthesis and the echo device (see EchoBackend.h).
#include "EchoBackend.h"

#include "media/AudioFormat.h"
#include "media/SampleRateConverter.h"
#include "media/WavFile.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <numbers>

namespace onionvoice::cli {
namespace {

using namespace std::chrono_literals;

constexpr auto kEchoCapacity = 2s; // more than the engine ever holds unplayed
constexpr const char* kGreetingText =
    "Hello, this is the OnionVoice echo contact. After the tone, what you say comes back to you.";

// Two short rising tones with soft edges.
void appendTone(std::vector<float>& out) {
    for (const double frequency : {660.0, 880.0}) {
        const std::size_t n = media::samplesIn(200ms);
        const std::size_t ramp = media::samplesIn(10ms);
        for (std::size_t i = 0; i < n; ++i) {
            const double edge =
                std::min({1.0, double(i) / double(ramp), double(n - i) / double(ramp)});
            out.push_back(
                float(0.3 * edge *
                      std::sin(2 * std::numbers::pi * frequency * double(i) / media::kSampleRate)));
        }
        out.insert(out.end(), media::samplesIn(60ms), 0.0f);
    }
}

// espeak-ng's speech resampled to the engine's rate; empty when espeak-ng is not there.
std::vector<float> spokenGreeting() {
    const QString espeak = QStandardPaths::findExecutable(QStringLiteral("espeak-ng"));
    QTemporaryDir dir;
    if (espeak.isEmpty() || !dir.isValid())
        return {};
    const QString path = dir.filePath(QStringLiteral("greeting.wav"));
    QProcess p;
    p.start(espeak, {QStringLiteral("-w"), path, QString::fromLatin1(kGreetingText)});
    if (!p.waitForFinished(10000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return {};
    media::WavAudio audio;
    QString error;
    if (!media::readWavFile(path, &audio, &error) || audio.samples.empty())
        return {};
    if (audio.sampleRate == media::kSampleRate)
        return std::move(audio.samples);
    auto converter = media::SampleRateConverter::create(audio.sampleRate, media::kSampleRate,
                                                        audio.samples.size(), &error);
    if (!converter)
        return {};
    const auto converted = converter->convert(audio.samples);
    std::vector<float> out(converted.begin(), converted.end());
    // Flush what the filter still holds.
    const std::vector<float> tail(std::size_t(audio.sampleRate / 10), 0.0f);
    const auto rest = converter->convert(tail);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
}

} // namespace

std::vector<float> makeGreeting() {
    std::vector<float> greeting = spokenGreeting();
    greeting.insert(greeting.end(), media::samplesIn(300ms), 0.0f);
    appendTone(greeting);
    return greeting;
}

EchoBackend::EchoBackend(std::shared_ptr<const std::vector<float>> greeting)
    : greeting_(std::move(greeting))
    , echo_(media::samplesIn(kEchoCapacity))
    , device_(
          media::Pacing::RealTime, [this](std::span<float> f) { capture(f); },
          [this](std::span<const float> f) { playback(f); }) {}

EchoBackend::~EchoBackend() {
    device_.stop();
}

bool EchoBackend::start(media::AudioRings& rings, QString*) {
    device_.start(rings);
    return true;
}

void EchoBackend::stop() {
    device_.stop();
}

void EchoBackend::capture(std::span<float> frame) {
    std::size_t i = 0;
    for (; i < frame.size() && greetingPosition_ < greeting_->size(); ++i)
        frame[i] = (*greeting_)[greetingPosition_++];
    for (; i < frame.size(); ++i) {
        if (echoFill_ == 0) {
            frame[i] = 0.0f;
            continue;
        }
        frame[i] = echo_[echoRead_];
        echoRead_ = (echoRead_ + 1) % echo_.size();
        --echoFill_;
    }
}

void EchoBackend::playback(std::span<const float> frame) {
    if (greetingPosition_ < greeting_->size())
        return; // nothing is echoed while the greeting plays
    for (const float sample : frame) {
        if (echoFill_ == echo_.size()) { // full: the oldest sample gives way
            echoRead_ = (echoRead_ + 1) % echo_.size();
            --echoFill_;
        }
        echo_[(echoRead_ + echoFill_) % echo_.size()] = sample;
        ++echoFill_;
    }
}

} // namespace onionvoice::cli
