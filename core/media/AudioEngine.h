// The audio engine of a call, on the engine thread: it drains the capture ring of an audio
// backend in 20 ms frames into the sending half (processing, Opus) and hands out one packet per
// packet period, takes received packets into the receiving half (jitter buffer, decoder) stamped
// with the injected clock, and keeps the backend's playback ring filled a few frames ahead. The
// backend's callback threads touch only the rings.
#pragma once

#include "media/AudioBackend.h"
#include "media/CallQuality.h"
#include "media/CaptureTimeline.h"
#include "media/JitterBuffer.h"
#include "media/PlayoutGaps.h"
#include "media/VoiceCodec.h"
#include "media/VoiceProcessor.h"
#include "media/VoiceReceiver.h"
#include "media/VoiceSender.h"

#include <QObject>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <span>

namespace onionvoice::media {

struct AudioEngineSettings {
    EncoderSettings encoder;
    VoiceProcessingSettings processing;
    JitterBufferSettings jitter;
    std::size_t playbackFramesAhead = 3;       // frames kept in the playback ring
    std::chrono::milliseconds pumpInterval{5}; // how often the rings are serviced
    // Capture silent this long counts as a stalled device (its callbacks come every 10-100 ms).
    std::chrono::milliseconds captureStall{250};
    // A side of the device that has not moved for this long has stopped (unplugged, its sound
    // server gone): deviceStopped. Long enough for a Bluetooth device's hiccups.
    std::chrono::milliseconds deviceStall{5000};
};

enum class DeviceSide { Capture, Playback };

class AudioEngine : public QObject {
    Q_OBJECT
public:
    using Clock = std::function<JitterBuffer::Time()>;

    // `clock` stamps packet arrivals and drives playout; it must be monotonic.
    AudioEngine(std::unique_ptr<AudioBackend> backend, const AudioEngineSettings& settings,
                Clock clock, QObject* parent = nullptr);
    ~AudioEngine() override;

    bool start(QString* error);
    void stop();

    // Hands a received packet to the jitter buffer; returns its delay as the buffer measured it,
    // nothing if it did not count there or the engine is stopped (JitterBuffer::push).
    std::optional<JitterBuffer::Time> receivePacket(std::uint32_t sequence,
                                                    const QByteArray& packet);
    void setMicrophone(Microphone microphone) { m_microphone = microphone; }
    // The loss of our packets, which sets the strength of the FEC we send. The peer's measure of
    // it does not travel back (yet); the call passes its own receive loss as a stand-in.
    void setPeerLossPercent(double percent);

    JitterBufferStats receiveStats() const;
    double receiveLossPercent() const;
    // Longest run of played audio without received speech since the call started.
    std::chrono::milliseconds longestGap() const { return m_gaps.longest(); }
    // What a frame spends from the peer's mouth to our ear, given the network's one-way delay.
    MouthToEarBudget mouthToEar(std::chrono::microseconds network) const;
    const AudioRings& rings() const { return m_rings; }
    // Silence sent in place of audio while the capture device delivered nothing.
    std::chrono::milliseconds stalledCapture() const { return m_timeline.silenceSent(); }
    // Silence the speaker played because this engine had not refilled its ring in time (the
    // engine thread ran late, or the device asked for more at once than the ring holds), since
    // the first refill: heard as clicks and dropouts that the network's figures do not show.
    std::chrono::milliseconds speakerStarved() const;

Q_SIGNALS:
    void packetReady(std::uint32_t sequence, const QByteArray& packet);
    // A side of the device stopped delivering (AudioEngineSettings::deviceStall); once per start.
    // Left alone, the call would go on silent both ways, the statistics saying nothing of it.
    void deviceStopped(onionvoice::media::DeviceSide side);

private:
    enum class State { Stopped, Running };
    void pump();
    // The side of the device that has just been found stopped, if one has.
    std::optional<DeviceSide> watchDevice(JitterBuffer::Time now);
    void skipLostCapture();
    // Numbering skips `samples` of capture (whole packets; the rest is carried).
    void skipSamples(std::uint64_t samples);
    void encodeFrame(std::span<const float> frame, Microphone microphone);

    std::unique_ptr<AudioBackend> m_backend;
    AudioEngineSettings m_settings;
    Clock m_clock;
    AudioRings m_rings;
    QTimer m_timer;
    State m_state = State::Stopped;
    Microphone m_microphone = Microphone::Live;
    std::unique_ptr<VoiceSender> m_sender;
    std::unique_ptr<VoiceReceiver> m_receiver;
    std::uint32_t m_nextSequence = 0;
    std::uint64_t m_countedOverruns = 0;    // capture overruns already turned into skipped packets
    std::uint64_t m_lostCaptureSamples = 0; // lost, not yet a whole packet
    // The underrun count at the first refill: what the device played before it is not starvation.
    std::optional<std::uint64_t> m_underrunsBeforePlayout;
    CaptureTimeline m_timeline;
    std::vector<float> m_frame;
    PlayoutGaps m_gaps;
    struct SideProgress {
        std::uint64_t samples = 0; // the device's count when it last moved
        JitterBuffer::Time movedAt{};
    };
    SideProgress m_captured, m_played;
    JitterBuffer::Time m_lastPump{};
    enum class DeviceWatch { Watching, Reported };
    DeviceWatch m_deviceWatch = DeviceWatch::Watching;
};

} // namespace onionvoice::media
