// The one audio format the engine uses end to end: 48 kHz mono float samples in 20 ms frames.
#pragma once

#include <chrono>
#include <cstddef>

namespace onionvoice::media {

inline constexpr int kSampleRate = 48000;
inline constexpr std::chrono::milliseconds kFrameDuration{20};
inline constexpr std::size_t kFrameSamples = kSampleRate / 50;

// The sending side cleans and encodes speech at 16 kHz: wideband is all the encoder keeps at
// 24-32 kbps, and echo cancellation and noise suppression cost a third of what they do at 48 kHz.
inline constexpr int kVoiceSampleRate = 16000;
inline constexpr std::size_t kVoiceFrameSamples = kVoiceSampleRate / 50;

// Samples in a duration at kSampleRate (floor).
constexpr std::size_t samplesIn(std::chrono::microseconds d) {
    return static_cast<std::size_t>(d.count() * kSampleRate / 1'000'000);
}

} // namespace onionvoice::media
