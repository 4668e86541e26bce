// Opus encoder, packet splitter and decoder wrappers (see VoiceCodec.h).
#include "media/VoiceCodec.h"

#include "media/AudioFormat.h"
#include "media/MediaLog.h"

#include <algorithm>
#include <array>
#include <opus.h>

namespace onionvoice::media {
namespace {

// Largest Opus packet (RFC 6716 section 3.2.1 limits a frame to 1275 bytes).
constexpr int kMaxFrameBytes = 1275;

struct RepacketizerDeleter {
    void operator()(OpusRepacketizer* r) const { opus_repacketizer_destroy(r); }
};

} // namespace

void VoiceEncoder::Deleter::operator()(OpusEncoder* e) const {
    opus_encoder_destroy(e);
}

std::unique_ptr<VoiceEncoder> VoiceEncoder::create(const EncoderSettings& settings,
                                                   QString* error) {
    if (settings.framesPerPacket < 1 || settings.framesPerPacket > 6) {
        *error = QStringLiteral("frames per packet must be 1..6 (20..120 ms), got %1")
                     .arg(settings.framesPerPacket);
        return nullptr;
    }
    if (settings.bitrate < 6000 || settings.bitrate > 510000) {
        *error = QStringLiteral("Opus bitrate %1 is outside 6000..510000").arg(settings.bitrate);
        return nullptr;
    }
    int status = OPUS_OK;
    std::unique_ptr<OpusEncoder, Deleter> encoder(
        opus_encoder_create(kSampleRate, 1, OPUS_APPLICATION_VOIP, &status));
    if (status != OPUS_OK || !encoder) {
        *error = QStringLiteral("opus_encoder_create failed: %1").arg(opus_strerror(status));
        return nullptr;
    }
    OpusEncoder* e = encoder.get();
    // Constant bitrate and no DTX: packets look the same whether the user talks, is silent or
    // muted, so the traffic shape carries no information.
    const bool configured =
        opus_encoder_ctl(e, OPUS_SET_BITRATE(settings.bitrate)) == OPUS_OK &&
        opus_encoder_ctl(e, OPUS_SET_VBR(0)) == OPUS_OK &&
        opus_encoder_ctl(e, OPUS_SET_DTX(0)) == OPUS_OK &&
        opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(1)) == OPUS_OK &&
        opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(settings.complexity)) == OPUS_OK &&
        opus_encoder_ctl(e, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE)) == OPUS_OK &&
        opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(
                                std::clamp(settings.expectedLossPercent, 0, 100))) == OPUS_OK;
    if (!configured) {
        *error = QStringLiteral("Opus rejected the encoder settings");
        return nullptr;
    }
    return std::unique_ptr<VoiceEncoder>(new VoiceEncoder(std::move(encoder), settings));
}

VoiceEncoder::VoiceEncoder(std::unique_ptr<OpusEncoder, Deleter> encoder,
                           const EncoderSettings& settings)
    : m_encoder(std::move(encoder))
    , m_settings(settings) {}

VoiceEncoder::~VoiceEncoder() = default;

std::size_t VoiceEncoder::samplesPerPacket() const {
    return kFrameSamples * static_cast<std::size_t>(m_settings.framesPerPacket);
}

void VoiceEncoder::setExpectedLossPercent(int percent) {
    m_settings.expectedLossPercent = std::clamp(percent, 0, 100);
    opus_encoder_ctl(m_encoder.get(), OPUS_SET_PACKET_LOSS_PERC(m_settings.expectedLossPercent));
}

QByteArray VoiceEncoder::encodePacket(std::span<const float> pcm) {
    if (pcm.size() != samplesPerPacket()) {
        qCWarning(lcMedia) << "encodePacket got" << pcm.size() << "samples, expected"
                           << samplesPerPacket();
        return {};
    }
    // Each 20 ms frame is encoded on its own, so every frame has its own FEC data and the
    // receiver can conceal or recover frames one by one; the repacketizer then joins them.
    const int frames = m_settings.framesPerPacket;
    std::vector<std::array<unsigned char, kMaxFrameBytes>> encoded(frames);
    std::unique_ptr<OpusRepacketizer, RepacketizerDeleter> repacketizer(opus_repacketizer_create());
    for (int i = 0; i < frames; ++i) {
        const int bytes = opus_encode_float(m_encoder.get(), pcm.data() + i * kFrameSamples,
                                            kFrameSamples, encoded[i].data(), kMaxFrameBytes);
        if (bytes < 0 ||
            opus_repacketizer_cat(repacketizer.get(), encoded[i].data(), bytes) != OPUS_OK) {
            qCWarning(lcMedia) << "Opus encode failed:" << opus_strerror(std::min(bytes, -1));
            return {};
        }
    }
    QByteArray packet(frames * kMaxFrameBytes + 8, Qt::Uninitialized);
    const opus_int32 size =
        opus_repacketizer_out(repacketizer.get(), reinterpret_cast<unsigned char*>(packet.data()),
                              static_cast<opus_int32>(packet.size()));
    if (size < 0) {
        qCWarning(lcMedia) << "Opus repacketizer failed:" << opus_strerror(size);
        return {};
    }
    packet.truncate(size);
    return packet;
}

std::vector<QByteArray> splitOpusPacket(std::span<const std::uint8_t> packet) {
    if (packet.empty() || packet.size() > 0x7fffffff)
        return {};
    unsigned char toc = 0;
    std::array<const unsigned char*, 48> frames{};
    std::array<opus_int16, 48> sizes{};
    const int count = opus_packet_parse(packet.data(), static_cast<opus_int32>(packet.size()), &toc,
                                        frames.data(), sizes.data(), nullptr);
    if (count <= 0)
        return {};
    // A code 0 packet (RFC 6716 section 3.2.2) is the TOC byte with the low two bits cleared
    // followed by exactly one frame.
    std::vector<QByteArray> out;
    out.reserve(count);
    for (int i = 0; i < count; ++i) {
        QByteArray single;
        single.reserve(1 + sizes[i]);
        single.append(static_cast<char>(toc & 0xfc));
        single.append(reinterpret_cast<const char*>(frames[i]), sizes[i]);
        out.push_back(std::move(single));
    }
    return out;
}

void VoiceDecoder::Deleter::operator()(OpusDecoder* d) const {
    opus_decoder_destroy(d);
}

std::unique_ptr<VoiceDecoder> VoiceDecoder::create(QString* error) {
    int status = OPUS_OK;
    std::unique_ptr<OpusDecoder, Deleter> decoder(opus_decoder_create(kSampleRate, 1, &status));
    if (status != OPUS_OK || !decoder) {
        *error = QStringLiteral("opus_decoder_create failed: %1").arg(opus_strerror(status));
        return nullptr;
    }
    return std::unique_ptr<VoiceDecoder>(new VoiceDecoder(std::move(decoder)));
}

VoiceDecoder::VoiceDecoder(std::unique_ptr<OpusDecoder, Deleter> decoder)
    : m_decoder(std::move(decoder)) {}

VoiceDecoder::~VoiceDecoder() = default;

bool VoiceDecoder::run(const std::uint8_t* data, int size, std::span<float> out, int fec) {
    if (out.size() != kFrameSamples) {
        std::fill(out.begin(), out.end(), 0.0f);
        return false;
    }
    const int samples =
        opus_decode_float(m_decoder.get(), data, size, out.data(), kFrameSamples, fec);
    if (samples != static_cast<int>(kFrameSamples)) {
        std::fill(out.begin(), out.end(), 0.0f);
        return false;
    }
    return true;
}

bool VoiceDecoder::decode(std::span<const std::uint8_t> frame, std::span<float> out) {
    if (frame.empty() || frame.size() > kMaxFrameBytes + 1) {
        std::fill(out.begin(), out.end(), 0.0f);
        return false;
    }
    return run(frame.data(), static_cast<int>(frame.size()), out, 0);
}

bool VoiceDecoder::decodeFec(std::span<const std::uint8_t> next, std::span<float> out) {
    if (next.empty() || next.size() > kMaxFrameBytes + 1)
        return conceal(out);
    return run(next.data(), static_cast<int>(next.size()), out, 1);
}

bool VoiceDecoder::conceal(std::span<float> out) {
    return run(nullptr, 0, out, 0);
}

} // namespace onionvoice::media
