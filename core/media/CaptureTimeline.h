// Keeps a call's audio on the clock when the capture device misbehaves. Packets are numbered by
// the audio they carry, and the peer plays them by number, so numbering must follow time:
//  - a device that stops delivering (a Bluetooth profile switch, a USB glitch, the sound server
//    moving the stream) overruns nothing, no audio arrives at all: once it has been silent for
//    `stallAfter`, silence takes its place at the frame rate, so records keep flowing
//    (acknowledgements, the constant traffic shape, the peer's network-loss timeout) and the
//    numbering keeps up with the clock;
//  - a device that then catches up on the time it missed (a starved device thread delivers its
//    backlog at once) would run the numbering ahead by as much: the frames beyond real time and
//    the samples the ring lost meanwhile pay back the silence sent in their place.
#pragma once

#include "media/AudioFormat.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace onionvoice::media {

class CaptureTimeline {
public:
    using Time = std::chrono::microseconds; // the engine's injected clock

    explicit CaptureTimeline(std::chrono::milliseconds stallAfter);

    void start(Time now);
    // A frame read from the capture ring at `now`: whether to encode it (false: backlog of a
    // device catching up on time already sent as silence).
    bool takeFrame(Time now);
    // Samples the capture ring lost: those the numbering must skip (not already sent as silence).
    std::uint64_t lostSamples(std::uint64_t samples);
    // Silence due now in place of capture: `frames` to send, and `skippedFrames` the numbering
    // skips instead. A clock that jumped (a stopped process or VM, a pump that stood still)
    // owes hours at once; encoding them froze the engine thread and flooded the links, so at
    // most kMaxSilenceBurst is sent in one go.
    struct Silence {
        std::size_t frames = 0;
        std::uint64_t skippedFrames = 0;
    };
    static constexpr std::size_t kMaxSilenceBurst = 50; // 1 s of 20-ms frames
    Silence silenceDue(Time now);

    bool stalled() const { return m_silenceUntil.has_value(); }
    std::chrono::milliseconds silenceSent() const { return m_silenceSent; }

private:
    std::chrono::milliseconds m_stallAfter;
    Time m_lastCapture{};
    std::optional<Time> m_silenceUntil; // while stalled: silence sent up to here
    std::uint64_t m_owedFrames = 0;     // silence a catching-up device may still pay back
    Time m_resumedAt{};
    std::uint64_t m_framesSinceResume = 0;
    std::chrono::milliseconds m_silenceSent{0};
};

} // namespace onionvoice::media
