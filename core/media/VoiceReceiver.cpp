// Receiving half of the audio path (see VoiceReceiver.h).
#include "media/VoiceReceiver.h"

#include "media/AudioFormat.h"

#include <algorithm>

namespace onionvoice::media {

using namespace std::chrono_literals;

namespace {

std::span<const std::uint8_t> bytes(const QByteArray& a) {
    return {reinterpret_cast<const std::uint8_t*>(a.constData()), std::size_t(a.size())};
}

} // namespace

std::unique_ptr<VoiceReceiver> VoiceReceiver::create(const JitterBufferSettings& settings,
                                                     QString* error) {
    if (settings.packetPeriod < kFrameDuration || settings.packetPeriod % kFrameDuration != 0ms) {
        *error = QStringLiteral("packet period must be a multiple of 20 ms");
        return nullptr;
    }
    auto decoder = VoiceDecoder::create(error);
    if (!decoder)
        return nullptr;
    return std::unique_ptr<VoiceReceiver>(new VoiceReceiver(settings, std::move(decoder)));
}

VoiceReceiver::VoiceReceiver(const JitterBufferSettings& settings,
                             std::unique_ptr<VoiceDecoder> decoder)
    : m_buffer(settings)
    , m_decoder(std::move(decoder))
    , m_decoded(samplesIn(settings.packetPeriod))
    , m_position(m_decoded.size()) {}

PlayoutSlice VoiceReceiver::pull(JitterBuffer::Time now, std::span<float> out) {
    if (m_position >= m_decoded.size()) {
        m_current = m_buffer.pull(now);
        switch (m_current.action) {
        case PlayoutAction::Silence:
            // Nothing to play yet: ask again at the next frame rather than a packet later.
            std::fill(out.begin(), out.end(), 0.0f);
            return {PlayoutAction::Silence, -1, {}};
        case PlayoutAction::Decode:
            m_decoder->decode(bytes(m_current.data), m_decoded);
            break;
        case PlayoutAction::DecodeFec:
            m_decoder->decodeFec(bytes(m_current.data), m_decoded);
            break;
        case PlayoutAction::Conceal:
            m_decoder->conceal(m_decoded);
            break;
        }
        m_position = 0;
    }
    const std::size_t count = std::min(out.size(), m_decoded.size() - m_position);
    std::copy_n(m_decoded.begin() + std::ptrdiff_t(m_position), count, out.begin());
    std::fill(out.begin() + std::ptrdiff_t(count), out.end(), 0.0f);
    const PlayoutSlice slice{
        m_current.action, m_current.packet,
        std::chrono::microseconds(std::int64_t(m_position) * 1'000'000 / kSampleRate)};
    m_position += count;
    return slice;
}

} // namespace onionvoice::media
