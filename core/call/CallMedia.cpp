// Audio pipeline of a call: rings ↔ sender/receiver.
#include "CallMedia.h"

#include "media/AudioFormat.h"

namespace onionvoice::call {
namespace {

// The speaker ring holds at most this much audio ahead: enough to ride out the engine thread's
// timer jitter, small enough not to add noticeable delay.
constexpr std::size_t kPlaybackLead = 3 * media::kFrameSamples;

} // namespace

std::unique_ptr<CallMedia> CallMedia::start(std::unique_ptr<media::AudioBackend> backend,
                                            const media::EncoderSettings& encoder, QString* error) {
    std::unique_ptr<CallMedia> m(new CallMedia);
    m->sender_ = media::VoiceSender::create(encoder, media::VoiceProcessingSettings{}, error);
    media::JitterBufferSettings jitter;
    jitter.packetPeriod = encoder.packetPeriod;
    m->receiver_ = media::VoiceReceiver::create(jitter, error);
    if (!m->sender_ || !m->receiver_)
        return nullptr;
    m->rings_ = std::make_unique<media::AudioRings>();
    m->backend_ = std::move(backend);
    if (!m->backend_->start(*m->rings_, error)) {
        m->backend_.reset();
        return nullptr;
    }
    m->frame_.resize(media::kFrameSamples);
    m->played_.resize(media::kFrameSamples);
    return m;
}

CallMedia::~CallMedia() {
    if (backend_)
        backend_->stop();
}

std::vector<QByteArray> CallMedia::capture(media::Microphone microphone) {
    std::vector<QByteArray> packets;
    while (rings_->capture.readable() >= media::kFrameSamples) {
        rings_->capture.read(frame_);
        if (auto packet = sender_->pushFrame(frame_, microphone))
            packets.push_back(std::move(*packet));
    }
    return packets;
}

void CallMedia::receive(std::uint32_t sequence, Time arrival,
                        std::span<const std::uint8_t> packet) {
    receiver_->push(sequence, arrival, packet);
}

void CallMedia::play(Time now) {
    auto& ring = rings_->playback;
    while (ring.capacity() - ring.writable() + media::kFrameSamples <= kPlaybackLead) {
        receiver_->pull(now, played_);
        sender_->playbackReference(played_);
        ring.write(played_);
    }
}

} // namespace onionvoice::call
