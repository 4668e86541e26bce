// The receiving half of the audio path: packets go into the jitter buffer with their arrival
// time, and every 20 ms the receiver hands out one frame of audio, decoding (or FEC-recovering,
// concealing) the next packet whenever the previous one has been played out.
#pragma once

#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"

#include <memory>
#include <vector>

namespace onionvoice::media {

struct PlayoutSlice {
    PlayoutAction action = PlayoutAction::Silence;
    std::int64_t packet = -1;         // the packet this frame comes from, -1 if none
    std::chrono::microseconds offset; // where in that packet the frame starts
};

class VoiceReceiver {
public:
    static std::unique_ptr<VoiceReceiver> create(const JitterBufferSettings& settings,
                                                 QString* error);

    // As JitterBuffer::push.
    std::optional<JitterBuffer::Time> push(std::uint32_t sequence, JitterBuffer::Time arrival,
                                           std::span<const std::uint8_t> packet) {
        return m_buffer.push(sequence, arrival, packet);
    }
    // Fills `out` (kFrameSamples) with the audio to play now and says where it came from.
    PlayoutSlice pull(JitterBuffer::Time now, std::span<float> out);
    const JitterBuffer& buffer() const { return m_buffer; }

private:
    VoiceReceiver(const JitterBufferSettings& settings, std::unique_ptr<VoiceDecoder> decoder);

    JitterBuffer m_buffer;
    std::unique_ptr<VoiceDecoder> m_decoder;
    std::vector<float> m_decoded; // one packet period
    std::size_t m_position;       // samples of m_decoded already played
    PlayoutStep m_current;
};

} // namespace onionvoice::media
