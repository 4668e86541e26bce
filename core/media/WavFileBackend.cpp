// WAV file source, sink and backend (see WavFileBackend.h).
#include "media/WavFileBackend.h"

#include "media/MediaLog.h"

#include <algorithm>

namespace onionvoice::media {

std::unique_ptr<WavFileSource> WavFileSource::open(const QString& path, QString* error) {
    WavAudio audio;
    if (!readWavFile(path, &audio, error))
        return nullptr;
    if (audio.sampleRate != kSampleRate) {
        *error = QStringLiteral("%1: sample rate %2 Hz, the engine needs %3 Hz (resample it, "
                                "e.g. with sox)")
                     .arg(path)
                     .arg(audio.sampleRate)
                     .arg(kSampleRate);
        return nullptr;
    }
    return std::make_unique<WavFileSource>(std::move(audio.samples));
}

WavFileSource::WavFileSource(std::vector<float> samples)
    : m_samples(std::move(samples)) {}

std::size_t WavFileSource::read(std::span<float> out) {
    const std::size_t count = std::min(out.size(), m_samples.size() - m_position);
    std::copy_n(m_samples.begin() + std::ptrdiff_t(m_position), count, out.begin());
    std::fill(out.begin() + std::ptrdiff_t(count), out.end(), 0.0f);
    m_position += count;
    return count;
}

std::unique_ptr<WavFileBackend> WavFileBackend::create(const QString& input, const QString& output,
                                                       Pacing pacing, QString* error) {
    std::unique_ptr<WavFileSource> source;
    if (!input.isEmpty()) {
        source = WavFileSource::open(input, error);
        if (!source)
            return nullptr;
    }
    std::unique_ptr<WavWriter> sink;
    if (!output.isEmpty()) {
        sink = WavWriter::open(output, kSampleRate, error);
        if (!sink)
            return nullptr;
    }
    return std::unique_ptr<WavFileBackend>(
        new WavFileBackend(std::move(source), std::move(sink), pacing));
}

WavFileBackend::WavFileBackend(std::unique_ptr<WavFileSource> source,
                               std::unique_ptr<WavWriter> sink, Pacing pacing)
    : m_source(std::move(source))
    , m_sink(std::move(sink))
    , m_device(
          pacing,
          [this](std::span<float> frame) {
              if (m_source)
                  m_source->read(frame);
              else
                  std::fill(frame.begin(), frame.end(), 0.0f);
          },
          [this](std::span<const float> frame) {
              if (m_sink)
                  m_sink->append(frame);
          }) {}

// A backend owned by a call goes away without anyone calling finish(): the recording is still
// committed, and a failure is logged since there is nobody left to return it to.
WavFileBackend::~WavFileBackend() {
    QString error;
    if (!finish(&error))
        qCWarning(lcMedia) << "recording not written:" << error;
}

bool WavFileBackend::start(AudioRings& rings, QString*) {
    m_device.start(rings);
    return true;
}

void WavFileBackend::stop() {
    m_device.stop();
}

bool WavFileBackend::finish(QString* error) {
    m_device.stop();
    if (!m_sink)
        return true;
    const bool ok = m_sink->finish(error);
    m_sink.reset();
    return ok;
}

} // namespace onionvoice::media
