// A device thread for backends without hardware (WAV file, null): it runs one 20 ms period at a
// time, either at real-time pace against the steady clock or as fast as the engine drains and
// fills the rings, which is what tests want.
#pragma once

#include "media/AudioBackend.h"

#include <atomic>
#include <functional>
#include <span>
#include <thread>
#include <vector>

namespace onionvoice::media {

enum class Pacing { RealTime, AsFastAsPossible };

class PacedDevice {
public:
    // capture fills one frame of microphone samples; playback consumes one frame of speaker
    // samples. Both run on the device thread.
    using CaptureFn = std::function<void(std::span<float>)>;
    using PlaybackFn = std::function<void(std::span<const float>)>;

    PacedDevice(Pacing pacing, CaptureFn capture, PlaybackFn playback);
    ~PacedDevice();
    PacedDevice(const PacedDevice&) = delete;
    PacedDevice& operator=(const PacedDevice&) = delete;

    void start(AudioRings& rings);
    void stop();

private:
    enum class State { Stopped, Running, Stopping };
    void run(AudioRings& rings);
    bool tick(AudioRings& rings);

    Pacing m_pacing;
    CaptureFn m_capture;
    PlaybackFn m_playback;
    std::atomic<State> m_state{State::Stopped};
    std::thread m_thread;
    std::vector<float> m_frame;
};

} // namespace onionvoice::media
