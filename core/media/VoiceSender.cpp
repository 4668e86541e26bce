// Sending half of the audio path (see VoiceSender.h).
#include "media/VoiceSender.h"

#include "media/AudioFormat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onionvoice::media {
namespace {

// References that may wait for their captured frames: a capture burst (100 ms), the playback
// ring's lead and a microphone stalled until the engine sends silence in its place (250 ms) come
// to about half a second; the rest is margin.
constexpr std::size_t kReferenceCapacity = kVoiceSampleRate; // one second

// Captured frames over which the references' surplus is measured (one second).
constexpr std::size_t kSurplusWindow = 50;

} // namespace

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
    , m_silence(kFrameSamples, 0.0f)
    , m_references(kReferenceCapacity)
    , m_reference(m_processor->frameSamples())
    , m_leastWaiting(std::numeric_limits<std::size_t>::max()) {
    m_captureQueue.reserve(4 * kVoiceFrameSamples);
    m_pending.reserve(m_encoder->samplesPerPacket());
}

std::optional<QByteArray> VoiceSender::pushFrame(std::span<const float> frame,
                                                 Microphone microphone) {
    if (frame.size() != kFrameSamples)
        return std::nullopt;
    const auto voice =
        m_captureRate->convert(microphone == Microphone::Absent ? std::span(m_silence) : frame);
    m_captureQueue.insert(m_captureQueue.end(), voice.begin(), voice.end());
    std::optional<QByteArray> packet;
    std::size_t used = 0;
    const std::size_t frameSamples = m_processor->frameSamples();
    for (; m_captureQueue.size() - used >= frameSamples; used += frameSamples) {
        const std::span<float> slice(m_captureQueue.data() + used, frameSamples);
        // An absent microphone heard no echo: fed silence, the canceller would learn that there
        // is none. The frame's reference goes unused, so that the next captured frame's is the
        // one played with it.
        if (microphone == Microphone::Absent) {
            if (m_references.readable() >= m_reference.size())
                m_references.read(m_reference);
        } else {
            handReference();
            m_processor->processCapture(slice);
        }
        if (microphone != Microphone::Live)
            std::fill(slice.begin(), slice.end(), 0.0f);
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
    // Full only if the microphone stalls for longer than the engine waits before sending silence
    // in its place: the oldest references then belong to capture that never comes.
    while (m_references.writable() < voice.size())
        m_references.read(m_reference);
    m_references.write(voice);
}

// Hands the echo canceller the reference of the captured frame about to be cleaned: the oldest
// waiting, or silence if the speaker took none since (it played nothing new; speexdsp would
// otherwise repeat an old reference).
void VoiceSender::handReference() {
    const std::size_t frameSamples = m_reference.size();
    if (m_references.readable() >= frameSamples)
        m_references.read(m_reference);
    else
        std::fill(m_reference.begin(), m_reference.end(), 0.0f);
    m_processor->processPlayback(m_reference);
    // References the speaker took beyond the microphone's frames pile up (a speaker clock faster
    // than the microphone's, or the playback ring filled before the first captured frame): each
    // captured frame would then get a reference ever older than what the speaker plays, until the
    // echo comes before its reference and the canceller, which only looks back, removes nothing.
    // A second in which every captured frame left more than one waiting is that surplus; it goes
    // (one stays against the callbacks' jitter), and each captured frame again gets the reference
    // the engine wrote about when it was captured, which leads its echo by the ring's lead.
    m_leastWaiting = std::min(m_leastWaiting, m_references.readable() / frameSamples);
    if (++m_framesMeasured < kSurplusWindow)
        return;
    for (; m_leastWaiting > 1; --m_leastWaiting)
        m_references.read(m_reference);
    m_leastWaiting = std::numeric_limits<std::size_t>::max();
    m_framesMeasured = 0;
}

} // namespace onionvoice::media
