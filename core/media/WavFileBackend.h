// WAV file audio I/O: a source that plays a file into the capture side (then silence) and a sink
// that records the playback side into a file, driven by a PacedDevice.
#pragma once

#include "media/AudioBackend.h"
#include "media/PacedDevice.h"
#include "media/WavFile.h"

#include <memory>
#include <span>

namespace onionvoice::media {

// Plays decoded WAV samples frame by frame; after the end it yields silence.
class WavFileSource {
public:
    // Fails with a clear error unless the file is mono-mixable 48 kHz PCM16 or float.
    static std::unique_ptr<WavFileSource> open(const QString& path, QString* error);
    explicit WavFileSource(std::vector<float> samples);

    // Fills `out` and returns how many of its samples came from the file.
    std::size_t read(std::span<float> out);
    bool atEnd() const { return m_position >= m_samples.size(); }
    std::size_t totalSamples() const { return m_samples.size(); }

private:
    std::vector<float> m_samples;
    std::size_t m_position = 0;
};

class WavFileBackend : public AudioBackend {
public:
    // `input` may be empty (capture silence); `output` may be empty (discard playback).
    static std::unique_ptr<WavFileBackend> create(const QString& input, const QString& output,
                                                  Pacing pacing, QString* error);
    ~WavFileBackend() override;

    bool start(AudioRings& rings, QString* error) override;
    void stop() override;
    AudioLatency latency() const override { return {}; }
    // Ends the recording and commits the output file; the destructor does it too, logging what
    // it cannot report.
    bool finish(QString* error);

private:
    WavFileBackend(std::unique_ptr<WavFileSource> source, std::unique_ptr<WavWriter> sink,
                   Pacing pacing);

    std::unique_ptr<WavFileSource> m_source;
    std::unique_ptr<WavWriter> m_sink;
    PacedDevice m_device;
};

} // namespace onionvoice::media
