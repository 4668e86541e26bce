// The audio engine of a call (see AudioEngine.h).
#include "media/AudioEngine.h"

#include "media/MediaLog.h"

namespace onionvoice::media {

AudioEngine::AudioEngine(std::unique_ptr<AudioBackend> backend, const AudioEngineSettings& settings,
                         Clock clock, QObject* parent)
    : QObject(parent)
    , m_backend(std::move(backend))
    , m_settings(settings)
    , m_clock(std::move(clock))
    , m_timeline(m_settings.captureStall)
    , m_frame(kFrameSamples) {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(m_settings.pumpInterval);
    connect(&m_timer, &QTimer::timeout, this, &AudioEngine::pump);
}

AudioEngine::~AudioEngine() {
    stop();
}

bool AudioEngine::start(QString* error) {
    stop();
    JitterBufferSettings jitter = m_settings.jitter;
    jitter.packetPeriod = m_settings.encoder.packetPeriod;
    m_sender = VoiceSender::create(m_settings.encoder, m_settings.processing, error);
    m_receiver = m_sender ? VoiceReceiver::create(jitter, error) : nullptr;
    if (!m_sender || !m_receiver || !m_backend->start(m_rings, error)) {
        qCWarning(lcMedia) << "audio engine did not start:" << *error;
        m_sender.reset();
        m_receiver.reset();
        return false;
    }
    m_gaps = {};
    m_countedOverruns = m_rings.captureOverruns.load(std::memory_order_relaxed);
    m_lostCaptureSamples = 0;
    m_underrunsBeforePlayout.reset();
    const JitterBuffer::Time now = m_clock();
    m_timeline.start(now);
    m_captured = {m_rings.capturedSamples.load(std::memory_order_relaxed), now};
    m_played = {m_rings.playedSamples.load(std::memory_order_relaxed), now};
    m_lastPump = now;
    m_deviceWatch = DeviceWatch::Watching;
    m_state = State::Running;
    m_timer.start();
    return true;
}

void AudioEngine::stop() {
    if (m_state == State::Stopped)
        return;
    m_timer.stop();
    m_backend->stop();
    m_state = State::Stopped;
}

std::optional<JitterBuffer::Time> AudioEngine::receivePacket(std::uint32_t sequence,
                                                             const QByteArray& packet) {
    if (m_state != State::Running)
        return std::nullopt;
    return m_receiver->push(
        sequence, m_clock(),
        {reinterpret_cast<const std::uint8_t*>(packet.constData()), std::size_t(packet.size())});
}

void AudioEngine::setPeerLossPercent(double percent) {
    if (m_sender)
        m_sender->setMeasuredLossPercent(percent);
}

std::chrono::milliseconds AudioEngine::speakerStarved() const {
    if (!m_underrunsBeforePlayout)
        return std::chrono::milliseconds(0);
    const std::uint64_t samples =
        m_rings.playbackUnderruns.load(std::memory_order_relaxed) - *m_underrunsBeforePlayout;
    return std::chrono::milliseconds(std::int64_t(samples * 1000 / kSampleRate));
}

JitterBufferStats AudioEngine::receiveStats() const {
    return m_receiver ? m_receiver->buffer().stats() : JitterBufferStats{};
}

double AudioEngine::receiveLossPercent() const {
    return m_receiver ? m_receiver->buffer().recentLossPercent() : 0.0;
}

MouthToEarBudget AudioEngine::mouthToEar(std::chrono::microseconds network) const {
    const AudioLatency device = m_backend->latency();
    MouthToEarBudget budget;
    budget.captureLatency = device.input;
    budget.packetPeriod = m_settings.encoder.packetPeriod;
    budget.network = network;
    budget.jitterBuffer = receiveStats().targetDelay;
    // The peer's device input latency is unknown here; ours stands in for it.
    budget.playbackLatency = device.output + std::chrono::microseconds(kFrameDuration) *
                                                 std::int64_t(m_settings.playbackFramesAhead);
    return budget;
}

// Audio the device captured while the engine could not keep up (the capture ring was full) is gone;
// the sequence numbers of its packets are skipped, so that sequence numbers keep following capture
// time. The peer's jitter buffer schedules playout by sequence number: without the skip, every
// packet after a stall of the engine looked late to it and was dropped until its delay baseline
// caught up, 20 s later (tests/faults: a 3-s stall of the caller left the callee silent for the
// rest of the call). Samples a device lost while catching up on time already sent as silence
// (CaptureTimeline) are not skipped twice.
void AudioEngine::skipLostCapture() {
    const std::uint64_t overruns = m_rings.captureOverruns.load(std::memory_order_relaxed);
    skipSamples(m_timeline.lostSamples(overruns - m_countedOverruns));
    m_countedOverruns = overruns;
}

void AudioEngine::skipSamples(std::uint64_t samples) {
    m_lostCaptureSamples += samples;
    const auto perPacket =
        std::uint64_t(kSampleRate) * std::uint64_t(m_settings.encoder.packetPeriod.count()) / 1000;
    m_nextSequence += std::uint32_t(m_lostCaptureSamples / perPacket);
    m_lostCaptureSamples %= perPacket;
}

void AudioEngine::encodeFrame(std::span<const float> frame, Microphone microphone) {
    if (auto packet = m_sender->pushFrame(frame, microphone))
        Q_EMIT packetReady(m_nextSequence++, *packet);
}

// A device whose callbacks stopped (unplugged, its sound server gone) leaves both rings still:
// nothing captured, nothing played, the call silent for good and nobody told.
std::optional<DeviceSide> AudioEngine::watchDevice(JitterBuffer::Time now) {
    // A pump that comes late (this thread, or the whole process, stood still: a suspend) says
    // nothing about the device, which may not have run yet either.
    constexpr JitterBuffer::Time kLatePump = std::chrono::milliseconds(500);
    if (now - m_lastPump > kLatePump)
        m_captured.movedAt = m_played.movedAt = now;
    m_lastPump = now;
    const auto follow = [now](SideProgress& side, const std::atomic<std::uint64_t>& count) {
        if (const std::uint64_t samples = count.load(std::memory_order_relaxed);
            samples != side.samples)
            side = {samples, now};
    };
    follow(m_captured, m_rings.capturedSamples);
    follow(m_played, m_rings.playedSamples);
    const JitterBuffer::Time stall = m_settings.deviceStall;
    if (m_deviceWatch == DeviceWatch::Reported ||
        (now - m_captured.movedAt < stall && now - m_played.movedAt < stall))
        return std::nullopt;
    m_deviceWatch = DeviceWatch::Reported;
    const DeviceSide side =
        now - m_captured.movedAt >= stall ? DeviceSide::Capture : DeviceSide::Playback;
    qCWarning(lcMedia) << "the sound device stopped:"
                       << (side == DeviceSide::Capture ? "nothing captured" : "nothing played")
                       << "for"
                       << std::chrono::duration_cast<std::chrono::milliseconds>(stall).count()
                       << "ms";
    return side;
}

void AudioEngine::pump() {
    skipLostCapture();
    const JitterBuffer::Time now = m_clock();
    const std::optional<DeviceSide> stopped = watchDevice(now);
    const bool wasStalled = m_timeline.stalled();
    while (m_rings.capture.readable() >= kFrameSamples) {
        m_rings.capture.read(m_frame);
        if (m_timeline.takeFrame(now))
            encodeFrame(m_frame, m_microphone);
    }
    if (wasStalled && !m_timeline.stalled())
        qCInfo(lcMedia) << "capture resumed;" << m_timeline.silenceSent().count()
                        << "ms of silence sent in its place this call";
    if (const auto silence = m_timeline.silenceDue(now); silence.frames > 0) {
        if (!wasStalled)
            qCInfo(lcMedia) << "capture stalled; sending silence in its place";
        for (std::size_t k = 0; k < silence.frames; ++k)
            encodeFrame(m_frame, Microphone::Absent); // silence, whatever the frame holds
        skipSamples(silence.skippedFrames * kFrameSamples);
    }
    // The references written here after the whole capture burst still reach the echo canceller
    // in step with the captured frames: they wait in the sender for theirs (VoiceSender.h).
    const std::size_t ahead = m_settings.playbackFramesAhead * kFrameSamples;
    while (m_rings.playback.readable() < ahead && m_rings.playback.writable() >= kFrameSamples) {
        m_gaps.note(m_receiver->pull(m_clock(), m_frame).action, kFrameDuration);
        m_sender->playbackReference(m_frame);
        m_rings.playback.write(m_frame);
    }
    if (!m_underrunsBeforePlayout)
        m_underrunsBeforePlayout = m_rings.playbackUnderruns.load(std::memory_order_relaxed);
    if (stopped)
        Q_EMIT deviceStopped(*stopped); // last: a receiver may stop this engine
}

} // namespace onionvoice::media
