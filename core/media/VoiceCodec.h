// Opus voice codec: an encoder that turns one packet period of samples into one multi-frame Opus
// packet (20 ms frames joined by the repacketizer), a splitter that cuts such a packet back into
// single 20 ms frames, and a decoder with packet loss concealment and in-band FEC recovery.
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

struct OpusEncoder;
struct OpusDecoder;

namespace onionvoice::media {

struct EncoderSettings {
    int bitrate = 32000;         // bits per second, CBR so every packet has the same size
    int framesPerPacket = 2;     // 20 ms frames per packet: 2 gives the default 40 ms period
    int complexity = 8;          // 0..10; 8 keeps encode well under 1 % of a core
    int expectedLossPercent = 5; // tunes in-band FEC until live statistics replace it
};

class VoiceEncoder {
public:
    // Returns nullptr and sets *error when Opus rejects the settings.
    static std::unique_ptr<VoiceEncoder> create(const EncoderSettings& settings, QString* error);
    ~VoiceEncoder();

    // pcm holds exactly framesPerPacket * kFrameSamples samples. Returns the Opus packet, or an
    // empty array (with a logged reason) if encoding failed.
    QByteArray encodePacket(std::span<const float> pcm);

    // Feeds the receiver's measured loss back into the FEC strength (clamped to 0..100).
    void setExpectedLossPercent(int percent);
    const EncoderSettings& settings() const { return m_settings; }
    std::size_t samplesPerPacket() const;

private:
    struct Deleter {
        void operator()(OpusEncoder* e) const;
    };
    VoiceEncoder(std::unique_ptr<OpusEncoder, Deleter> encoder, const EncoderSettings& settings);

    std::unique_ptr<OpusEncoder, Deleter> m_encoder;
    EncoderSettings m_settings;
};

// Cuts a (possibly multi-frame) Opus packet into self-contained single-frame packets. Returns an
// empty vector for a malformed packet.
std::vector<QByteArray> splitOpusPacket(std::span<const std::uint8_t> packet);

class VoiceDecoder {
public:
    static std::unique_ptr<VoiceDecoder> create(QString* error);
    ~VoiceDecoder();

    // Each call fills out (kFrameSamples samples, one 20 ms frame) and returns false if Opus
    // failed; on failure out holds silence so playout never stalls.
    bool decode(std::span<const std::uint8_t> frame, std::span<float> out);
    // Recovers the frame before `next` from the FEC data carried in `next`.
    bool decodeFec(std::span<const std::uint8_t> next, std::span<float> out);
    // Packet loss concealment for one missing frame.
    bool conceal(std::span<float> out);

private:
    struct Deleter {
        void operator()(OpusDecoder* d) const;
    };
    explicit VoiceDecoder(std::unique_ptr<OpusDecoder, Deleter> decoder);
    bool run(const std::uint8_t* data, int size, std::span<float> out, int fec);

    std::unique_ptr<OpusDecoder, Deleter> m_decoder;
};

} // namespace onionvoice::media
