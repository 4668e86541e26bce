// Paced device thread for hardware-less backends (see PacedDevice.h).
#include "media/PacedDevice.h"

#include <algorithm>

namespace onionvoice::media {

PacedDevice::PacedDevice(Pacing pacing, CaptureFn capture, PlaybackFn playback)
    : m_pacing(pacing)
    , m_capture(std::move(capture))
    , m_playback(std::move(playback))
    , m_frame(kFrameSamples) {}

PacedDevice::~PacedDevice() {
    stop();
}

void PacedDevice::start(AudioRings& rings) {
    stop();
    m_state = State::Running;
    m_thread = std::thread([this, &rings] { run(rings); });
}

void PacedDevice::stop() {
    if (m_thread.joinable()) {
        m_state = State::Stopping;
        m_thread.join();
    }
    m_state = State::Stopped;
}

bool PacedDevice::tick(AudioRings& rings) {
    const bool realTime = m_pacing == Pacing::RealTime;
    // As fast as possible means as fast as the engine keeps up: wait for room and for data
    // instead of dropping or inventing samples.
    if (!realTime &&
        (rings.capture.writable() < kFrameSamples || rings.playback.readable() < kFrameSamples))
        return false;

    m_capture(m_frame);
    const std::size_t written = rings.capture.write(m_frame);
    rings.captureOverruns += kFrameSamples - written;
    rings.capturedSamples += kFrameSamples;

    const std::size_t read = rings.playback.read(m_frame);
    std::fill(m_frame.begin() + read, m_frame.end(), 0.0f);
    rings.playbackUnderruns += kFrameSamples - read;
    m_playback(m_frame);
    rings.playedSamples += kFrameSamples;
    return true;
}

void PacedDevice::run(AudioRings& rings) {
    auto next = std::chrono::steady_clock::now();
    while (m_state.load() == State::Running) {
        if (m_pacing == Pacing::RealTime) {
            tick(rings);
            next += kFrameDuration;
            std::this_thread::sleep_until(next);
        } else if (!tick(rings)) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
}

} // namespace onionvoice::media
