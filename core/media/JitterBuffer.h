// Adaptive jitter buffer built for Tor. Packets (one packet period of Opus frames, numbered by a
// 32-bit sequence number) arrive in any order, duplicated, late or in bursts; the buffer cuts them
// into 20 ms frames and decides, once per frame period, what the decoder plays.
//
// Delay is measured relative to the fastest recent packet (a sliding minimum of arrival time minus
// send slot), so Tor's large constant delay cancels out. The playout target is a high quantile of
// that relative delay: it rises at once when the network gets worse, falls slowly when it gets
// better, and never exceeds a hard cap. A frame arriving after its playout time is counted late
// and dropped. When the play position falls behind the target (a burst after a stall, or a target
// that fell), frames are dropped to catch up instead of playing everything late; when it runs
// ahead (the target rose), concealment frames stretch the audio. The buffer is driven entirely by
// the injected times given to push() and pull(); it never reads a clock.
#pragma once

#include <QByteArray>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <vector>

namespace onionvoice::media {

struct JitterBufferSettings {
    std::chrono::milliseconds frameDuration{20};
    int framesPerPacket = 2;
    double delayQuantile = 0.95;
    std::size_t delayHistoryPackets = 250;       // about 10 s at 40 ms packets
    std::chrono::milliseconds baseWindow{20000}; // span of the sliding minimum
    std::chrono::milliseconds minTarget{20};
    std::chrono::milliseconds maxTarget{300};        // hard cap on the added playout delay
    std::chrono::microseconds decreasePerFrame{400}; // slow decrease: 20 ms per second
    std::size_t maxBufferedFrames = 500;             // bounds memory against bogus sequences
};

struct JitterBufferStats {
    std::chrono::microseconds targetDelay{0};
    std::chrono::microseconds currentLevel{0}; // audio buffered ahead of the play position
    std::uint64_t packetsReceived = 0;
    std::uint64_t duplicates = 0;
    std::uint64_t framesDecoded = 0; // played from their own data
    std::uint64_t fecRecovered = 0;  // missing frames rebuilt from the next frame's FEC data
    std::uint64_t late = 0;          // arrived after their playout time
    std::uint64_t lost = 0;          // missing at playout time and not (yet) arrived late
    std::uint64_t malformed = 0;     // packets that are not valid Opus
    std::chrono::milliseconds concealedMs{0}; // concealment for missing frames
    std::chrono::milliseconds stretchedMs{0}; // concealment inserted to raise the delay
    std::chrono::milliseconds droppedMs{0};   // frames skipped to lower the delay
};

enum class PlayoutAction {
    Silence,   // nothing received yet: play silence, not counted as concealment
    Decode,    // decode `data`
    DecodeFec, // recover the frame from the FEC part of `data` (the next frame)
    Conceal,   // packet loss concealment
};

struct PlayoutStep {
    PlayoutAction action = PlayoutAction::Silence;
    QByteArray data;
    std::int64_t frame = -1; // frame index played, -1 for silence or stretching
};

class JitterBuffer {
public:
    using Time = std::chrono::microseconds; // time on the injected clock

    explicit JitterBuffer(const JitterBufferSettings& settings = {});

    // Accepts one packet as it arrives; the packet is split into its Opus frames.
    void push(std::uint32_t sequence, Time arrival, std::span<const std::uint8_t> packet);
    // Called once per frame period by the playout side.
    PlayoutStep pull(Time now);

    JitterBufferStats stats() const;
    // Share of frames missing at their playout time, smoothed over about a second; feeds the
    // encoder's expected-loss setting on the other side.
    double recentLossPercent() const { return m_recentLoss * 100.0; }
    // Time a frame index is scheduled to play under the current base and target.
    Time playoutTime(std::int64_t frame) const;

private:
    enum class State { Waiting, Playing };

    std::int64_t unwrap(std::uint32_t sequence);
    void recordDelay(std::int64_t firstFrame, Time arrival);
    void updateTarget();
    void markMissing(std::int64_t frame);
    void noteLoss(bool missing);

    JitterBufferSettings m_settings;
    State m_state = State::Waiting;
    std::map<std::int64_t, QByteArray> m_frames;
    std::int64_t m_nextFrame = 0;

    bool m_haveSequence = false;
    std::uint32_t m_lastSequence = 0;
    std::int64_t m_lastUnwrapped = 0;

    struct DelaySample {
        Time arrival;
        Time delay;
    };
    std::deque<DelaySample> m_minWindow; // monotonic queue for the sliding minimum
    std::deque<Time> m_relativeDelays;   // history for the quantile
    std::vector<Time> m_scratch;
    Time m_target;

    std::set<std::int64_t> m_missing; // recently missing frames, to tell late from duplicate
    std::uint64_t m_missingTotal = 0;
    std::uint64_t m_lateOfMissing = 0;
    double m_recentLoss = 0.0;
    JitterBufferStats m_stats;
};

} // namespace onionvoice::media
