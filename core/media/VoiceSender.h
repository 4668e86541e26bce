// The sending half of the audio path: captured 20 ms frames at the device rate are resampled to
// 16 kHz, cleaned by the voice processor (with what the speaker plays as the echo reference) and
// gathered into one Opus packet per packet period. Muting replaces the microphone with silence but
// keeps packets flowing, so the traffic shape never changes; the muted microphone is still cleaned
// (and thrown away), so that the echo canceller keeps its model of the room: fed silence it learnt
// that the speaker made no echo, and for 1-3 s after un-muting the peer heard itself (ERLE 3 dB).
//
// speexdsp's echo canceller cleans each captured frame against the references handed to it before
// and holds three at most, but device callbacks come in bursts (up to 100 ms of capture at once)
// and the engine drains a whole capture burst before it refills the playback ring: references
// handed over as they came were dropped, and captured frames found none. They wait here instead,
// and each captured frame hands the canceller exactly one, the oldest, whatever the bursts.
#pragma once

#include "media/SampleRateConverter.h"
#include "media/SpscRing.h"
#include "media/VoiceCodec.h"
#include "media/VoiceProcessor.h"

#include <QByteArray>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace onionvoice::media {

enum class Microphone {
    Live,   // send what the microphone hears
    Muted,  // the microphone hears, silence is sent
    Absent, // no captured audio (a stalled device): silence is sent, the canceller waits
};

class VoiceSender {
public:
    static std::unique_ptr<VoiceSender> create(const EncoderSettings& encoder,
                                               const VoiceProcessingSettings& processing,
                                               QString* error);

    // One captured frame (kFrameSamples at kSampleRate; ignored when the microphone is Absent).
    // Returns the packet once a packet period is complete.
    std::optional<QByteArray> pushFrame(std::span<const float> frame, Microphone microphone);
    // One frame (kFrameSamples) the local speaker plays, the echo canceller's reference. It waits
    // for its captured frame; never blocks, never allocates.
    void playbackReference(std::span<const float> frame);
    // The receiver's measured loss sets the FEC strength. It is capped at 5 %: on our test speech
    // stronger FEC cost more in every packet than it won back, at 5 % and at 10 % loss alike.
    void setMeasuredLossPercent(double percent);

private:
    VoiceSender(std::unique_ptr<VoiceEncoder> encoder, std::unique_ptr<VoiceProcessor> processor,
                std::unique_ptr<SampleRateConverter> captureRate,
                std::unique_ptr<SampleRateConverter> playbackRate);
    void handReference();

    std::unique_ptr<VoiceEncoder> m_encoder;
    std::unique_ptr<VoiceProcessor> m_processor;
    std::unique_ptr<SampleRateConverter> m_captureRate;
    std::unique_ptr<SampleRateConverter> m_playbackRate;
    std::vector<float> m_silence;      // a frame of silence
    std::vector<float> m_captureQueue; // resampled, not yet processed
    std::vector<float> m_pending;      // processed samples of the packet being filled
    // Resampled references waiting for their captured frames (both ends on the engine thread).
    SpscRing<float> m_references;
    std::vector<float> m_reference;   // the one handed to the echo canceller next
    std::size_t m_leastWaiting;       // fewest references a captured frame left waiting
    std::size_t m_framesMeasured = 0; // captured frames in the current surplus window
};

} // namespace onionvoice::media
