// Sending half of the audio path (see VoiceSender.h).
#include "media/VoiceSender.h"

#include "media/AudioFormat.h"

#include <algorithm>
#include <cmath>

namespace onionvoice::media {

std::unique_ptr<VoiceSender> VoiceSender::create(const EncoderSettings& encoder,
                                                 const VoiceProcessingSettings& processing,
                                                 QString* error) {
    auto e = VoiceEncoder::create(encoder, error);
    if (!e)
        return nullptr;
    auto p = VoiceProcessor::create(processing, error);
    if (!p)
        return nullptr;
    return std::unique_ptr<VoiceSender>(new VoiceSender(std::move(e), std::move(p)));
}

VoiceSender::VoiceSender(std::unique_ptr<VoiceEncoder> encoder,
                         std::unique_ptr<VoiceProcessor> processor)
    : m_encoder(std::move(encoder))
    , m_processor(std::move(processor))
    , m_pending(m_encoder->samplesPerPacket()) {}

std::optional<QByteArray> VoiceSender::pushFrame(std::span<const float> frame,
                                                 Microphone microphone) {
    if (frame.size() != kFrameSamples)
        return std::nullopt;
    const std::span<float> slot(m_pending.data() + m_filled, kFrameSamples);
    if (microphone == Microphone::Live)
        std::copy(frame.begin(), frame.end(), slot.begin());
    else
        std::fill(slot.begin(), slot.end(), 0.0f);
    m_processor->processCapture(slot);
    m_filled += kFrameSamples;
    if (m_filled < m_pending.size())
        return std::nullopt;
    m_filled = 0;
    return m_encoder->encodePacket(m_pending);
}

void VoiceSender::setMeasuredLossPercent(double percent) {
    constexpr int kMaxFecPercent = 5;
    m_encoder->setExpectedLossPercent(std::min(kMaxFecPercent, int(std::ceil(percent))));
}

void VoiceSender::playbackReference(std::span<const float> frame) {
    m_processor->processPlayback(frame);
}

} // namespace onionvoice::media
