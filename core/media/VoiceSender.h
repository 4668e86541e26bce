// The sending half of the audio path: captured 20 ms frames are cleaned by the voice processor
// and gathered into one Opus packet per packet period. Muting replaces the microphone with
// silence but keeps packets flowing, so the traffic shape never changes.
#pragma once

#include "media/VoiceCodec.h"
#include "media/VoiceProcessor.h"

#include <QByteArray>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace onionvoice::media {

enum class Microphone { Live, Muted };

class VoiceSender {
public:
    static std::unique_ptr<VoiceSender> create(const EncoderSettings& encoder,
                                               const VoiceProcessingSettings& processing,
                                               QString* error);

    // One captured frame (kFrameSamples). Returns the packet once a packet period is complete.
    std::optional<QByteArray> pushFrame(std::span<const float> frame, Microphone microphone);
    // What the local speaker plays, the echo canceller's reference (kFrameSamples).
    void playbackReference(std::span<const float> frame);
    // The receiver's measured loss sets the FEC strength. It is capped at 5 %: on our test speech
    // stronger FEC cost more in every packet than it won back, at 5 % and at 10 % loss alike.
    void setMeasuredLossPercent(double percent);
    const EncoderSettings& encoderSettings() const { return m_encoder->settings(); }

private:
    VoiceSender(std::unique_ptr<VoiceEncoder> encoder, std::unique_ptr<VoiceProcessor> processor);

    std::unique_ptr<VoiceEncoder> m_encoder;
    std::unique_ptr<VoiceProcessor> m_processor;
    std::vector<float> m_pending;
    std::size_t m_filled = 0;
};

} // namespace onionvoice::media
