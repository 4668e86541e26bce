// Sending half of the audio path (see VoiceSender.h).
#include "media/VoiceSender.h"

#include "media/AudioFormat.h"

#include <algorithm>
#include <cmath>

namespace onionvoice::media {

std::unique_ptr<VoiceSender> VoiceSender::create(const EncoderSettings& encoder,
                                                 const VoiceProcessingSettings& processing,
                                                 QString* error) {
    EncoderSettings voice = encoder;
    voice.inputSampleRate = kVoiceSampleRate;
    auto e = VoiceEncoder::create(voice, error);
    if (!e)
        return nullptr;
    auto p = VoiceProcessor::create(processing, kVoiceSampleRate, error);
    if (!p)
        return nullptr;
    auto capture = SampleRateConverter::create(kSampleRate, kVoiceSampleRate, kFrameSamples, error);
    auto playback =
        SampleRateConverter::create(kSampleRate, kVoiceSampleRate, kFrameSamples, error);
    if (!capture || !playback)
        return nullptr;
    return std::unique_ptr<VoiceSender>(
        new VoiceSender(std::move(e), std::move(p), std::move(capture), std::move(playback)));
}

VoiceSender::VoiceSender(std::unique_ptr<VoiceEncoder> encoder,
                         std::unique_ptr<VoiceProcessor> processor,
                         std::unique_ptr<SampleRateConverter> captureRate,
                         std::unique_ptr<SampleRateConverter> playbackRate)
    : m_encoder(std::move(encoder))
    , m_processor(std::move(processor))
    , m_captureRate(std::move(captureRate))
    , m_playbackRate(std::move(playbackRate))
    , m_muted(kFrameSamples, 0.0f) {
    m_captureQueue.reserve(4 * kVoiceFrameSamples);
    m_playbackQueue.reserve(4 * kVoiceFrameSamples);
    m_pending.reserve(m_encoder->samplesPerPacket());
}

std::optional<QByteArray> VoiceSender::pushFrame(std::span<const float> frame,
                                                 Microphone microphone) {
    if (frame.size() != kFrameSamples)
        return std::nullopt;
    const auto voice =
        m_captureRate->convert(microphone == Microphone::Live ? frame : std::span(m_muted));
    m_captureQueue.insert(m_captureQueue.end(), voice.begin(), voice.end());
    std::optional<QByteArray> packet;
    std::size_t used = 0;
    const std::size_t frameSamples = m_processor->frameSamples();
    for (; m_captureQueue.size() - used >= frameSamples; used += frameSamples) {
        const std::span<float> slice(m_captureQueue.data() + used, frameSamples);
        m_processor->processCapture(slice);
        m_pending.insert(m_pending.end(), slice.begin(), slice.end());
        if (m_pending.size() == m_encoder->samplesPerPacket()) {
            packet = m_encoder->encodePacket(m_pending);
            m_pending.clear();
        }
    }
    m_captureQueue.erase(m_captureQueue.begin(), m_captureQueue.begin() + std::ptrdiff_t(used));
    return packet;
}

void VoiceSender::setMeasuredLossPercent(double percent) {
    constexpr int kMaxFecPercent = 5;
    m_encoder->setExpectedLossPercent(std::min(kMaxFecPercent, int(std::ceil(percent))));
}

void VoiceSender::playbackReference(std::span<const float> frame) {
    if (frame.size() != kFrameSamples)
        return;
    const auto voice = m_playbackRate->convert(frame);
    m_playbackQueue.insert(m_playbackQueue.end(), voice.begin(), voice.end());
    const std::size_t frameSamples = m_processor->frameSamples();
    std::size_t used = 0;
    for (; m_playbackQueue.size() - used >= frameSamples; used += frameSamples)
        m_processor->processPlayback(std::span(m_playbackQueue).subspan(used, frameSamples));
    m_playbackQueue.erase(m_playbackQueue.begin(), m_playbackQueue.begin() + std::ptrdiff_t(used));
}

} // namespace onionvoice::media
