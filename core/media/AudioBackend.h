// The one interface every audio I/O backend (PortAudio, WAV file, null) implements, and the rings
// through which a backend's callback thread exchanges samples with the engine thread.
#pragma once

#include "media/AudioFormat.h"
#include "media/SpscRing.h"

#include <QString>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace onionvoice::media {

struct AudioRings {
    explicit AudioRings(std::size_t samples = kSampleRate / 2)
        : capture(samples)
        , playback(samples) {}
    SpscRing<float> capture;  // backend thread produces, engine consumes
    SpscRing<float> playback; // engine produces, backend thread consumes
    // Written by the backend thread only; the engine reads them for statistics.
    std::atomic<std::uint64_t> capturedSamples{0};
    std::atomic<std::uint64_t> playedSamples{0};
    std::atomic<std::uint64_t> captureOverruns{0};   // samples lost because the ring was full
    std::atomic<std::uint64_t> playbackUnderruns{0}; // samples of silence played for lack of data
};

struct AudioLatency {
    std::chrono::microseconds input{0};
    std::chrono::microseconds output{0};
};

class AudioBackend {
public:
    virtual ~AudioBackend() = default;

    // Starts capture and playback through `rings`, which must outlive stop().
    virtual bool start(AudioRings& rings, QString* error) = 0;
    virtual void stop() = 0;
    // Latency the device reports (0 for backends without a device).
    virtual AudioLatency latency() const = 0;
};

} // namespace onionvoice::media
