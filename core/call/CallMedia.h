// The audio side of an active call on the engine thread: an audio backend exchanging samples
// through lock-free rings, the sending pipeline (processing + Opus) and the receiving one (jitter
// buffer + decoder). Driven every 20 ms by the engine's clock.
#pragma once

#include "media/AudioBackend.h"
#include "media/VoiceReceiver.h"
#include "media/VoiceSender.h"

#include <QByteArray>
#include <memory>
#include <vector>

namespace onionvoice::call {

class CallMedia {
public:
    using Time = std::chrono::microseconds;

    // Starts `backend`; nullptr and *error when the backend or a codec cannot start.
    static std::unique_ptr<CallMedia> start(std::unique_ptr<media::AudioBackend> backend,
                                            const media::EncoderSettings& encoder, QString* error);
    ~CallMedia();

    // Encodes what the microphone captured since the last call; returns the finished packets.
    std::vector<QByteArray> capture(media::Microphone microphone);
    void receive(std::uint32_t sequence, Time arrival, std::span<const std::uint8_t> packet);
    // Keeps the speaker's ring filled up to a small level with audio due now.
    void play(Time now);

    const media::JitterBuffer& jitterBuffer() const { return receiver_->buffer(); }
    media::AudioLatency deviceLatency() const { return backend_->latency(); }

private:
    CallMedia() = default;

    std::unique_ptr<media::AudioBackend> backend_;
    std::unique_ptr<media::AudioRings> rings_;
    std::unique_ptr<media::VoiceSender> sender_;
    std::unique_ptr<media::VoiceReceiver> receiver_;
    std::vector<float> frame_;
    std::vector<float> played_;
    std::uint64_t frames_ = 0;
};

} // namespace onionvoice::call
