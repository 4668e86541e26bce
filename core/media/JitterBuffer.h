// Adaptive jitter buffer built for Tor. Packets (one packet period of Opus audio, numbered by a
// 32-bit sequence number) arrive in any order, duplicated, late or in bursts; whenever the playout
// side needs the next packet period of audio, the buffer decides what the decoder plays.
//
// Delay is measured relative to the fastest recent packet (a sliding minimum of arrival time minus
// send slot), so Tor's large constant delay cancels out. The playout target is the one that
// maximises the ITU-T G.107 R factor (CallQuality.h) over the recent relative delays: waiting
// longer costs delay impairment (mouth-to-ear = path delay + packet + lookahead + target),
// playing earlier loses the packets later than that (loss impairment). It rises at once when the
// network gets worse, falls slowly when it gets better, and never exceeds a hard cap. A packet
// arriving after its playout time is counted late and dropped. The target moves the playout
// only between talk spurts: when the play position falls behind (a burst after a stall, or a
// target that fell), packets are dropped to catch up at a quiet packet (a small one: with
// variable bitrate Opus spends few bytes on silence; under steady noise, one of the smallest:
// PauseDetector) unless playout is two packet periods behind; when it runs ahead (the target
// rose), concealment stretches the audio at a quiet packet or at a gap, never in the middle of a
// word. While packets are being lost the target grows by one packet period, so the next packet
// is there in time for FEC recovery. A packet numbered too far from the stream to be of it is
// refused before its delay counts, unless a second of packets agree that the numbering jumped
// against our clock (a clock that stopped on either side): playout then starts over from them.
// Packets too late to play at any target but less than 2 s late are followed the same way after
// 4 s of them agree (a sender that stood still under 2 s, or a lasting step of the delay).
// The buffer is driven entirely by the injected times given to push() and pull(); it never reads
// a clock.
#pragma once

#include "media/PauseDetector.h"
#include "media/SlidingMinimum.h"

#include <QByteArray>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace onionvoice::media {

struct JitterBufferSettings {
    std::chrono::milliseconds packetPeriod{40};
    // One-way delay of the fastest path, which relative delays cannot see; only the E-model's
    // delay impairment uses it. The audio loop sets it from its network model; a real call keeps
    // this default, near the median one-way delay of onion links (the test network's loopback
    // round trips would understate it and let the target grow).
    std::chrono::milliseconds pathDelay{200};
    double lossRobustness = 25.1;          // the E-model's Bpl for a late packet (CallQuality.h)
    std::size_t delayHistoryPackets = 250; // 10 s at 40 ms packets
    std::chrono::milliseconds baseWindow{20000};      // span of the sliding minimum
    std::chrono::milliseconds minTarget{60};          // added playout delay, at least
    std::chrono::milliseconds maxTarget{300};         // hard cap on the added playout delay
    std::chrono::microseconds decreasePerPacket{200}; // slow decrease: 5 ms per second
    std::size_t lossyPackets = 1; // this many missing in the loss history add a period for FEC
    std::size_t lossHistoryPackets = 500; // window of recentLossPercent(): 20 s at 40 ms
    // Bounds memory against bogus sequence numbers; a packet this far ahead of the play position
    // (before playout: this far from the newest packet) is refused.
    std::size_t maxBufferedPackets = 250;
};

struct JitterBufferStats {
    std::chrono::microseconds targetDelay{0};
    std::chrono::microseconds currentLevel{0}; // audio buffered ahead of the play position
    std::uint64_t packetsReceived = 0;
    std::uint64_t duplicates = 0;
    std::uint64_t packetsDecoded = 0; // played from their own data
    std::uint64_t fecRecovered = 0;   // missing packets rebuilt from the FEC in the next packet
    std::uint64_t late = 0;           // arrived after their playout time
    std::uint64_t lost = 0;           // missing at playout time and not (yet) arrived late
    std::uint64_t malformed = 0;      // not a valid Opus packet of one packet period
    std::uint64_t outOfReach = 0;     // sequence number too far from the stream's to be of it
    std::chrono::milliseconds concealedMs{0}; // concealment for missing packets
    std::chrono::milliseconds stretchedMs{0}; // concealment inserted to raise the delay
    std::chrono::milliseconds droppedMs{0};   // audio skipped to lower the delay
};

enum class PlayoutAction {
    Silence,   // nothing received yet: play silence, not counted as concealment
    Decode,    // decode `data`
    DecodeFec, // recover the packet from the FEC part of `data` (the next packet, carrying FEC)
    Conceal,   // packet loss concealment
};

struct PlayoutStep {
    PlayoutAction action = PlayoutAction::Silence;
    QByteArray data;
    std::int64_t packet = -1; // unwrapped sequence number played; -1 for silence or stretching
};

class JitterBuffer {
public:
    using Time = std::chrono::microseconds; // time on the injected clock

    explicit JitterBuffer(const JitterBufferSettings& settings = {});

    // Accepts one packet as it arrives. Returns its delay as the buffer measured it (arrival minus
    // its place in the unwrapped numbering, on the injected clock), or nothing when the packet did
    // not count: malformed, out of reach, or a copy of one already received. The call statistics
    // take their frame delays from here, so that they count what the buffer counts.
    std::optional<Time> push(std::uint32_t sequence, Time arrival,
                             std::span<const std::uint8_t> packet);
    // Called by the playout side whenever it needs the next packet period of audio.
    PlayoutStep pull(Time now);

    JitterBufferStats stats() const;
    // Share of the last lossHistoryPackets packets that were missing at their playout time; feeds
    // the encoder's expected-loss setting on the other side.
    double recentLossPercent() const;
    // Time a packet index is scheduled to play under the current base and target.
    Time playoutTime(std::int64_t packet) const;
    const JitterBufferSettings& settings() const { return m_settings; }

private:
    enum class State { Waiting, Playing };

    std::int64_t unwrap(std::uint32_t sequence) const;
    bool outOfReach(std::int64_t index) const;
    // Whether a run of packets shows a jump to follow now, and how far it went.
    enum class JumpKind { None, Short, Deep };
    JumpKind clockJumped(std::int64_t index, Time arrival);
    void reanchor(std::int64_t index, Time arrival, JumpKind jump);
    Time recordDelay(std::int64_t packet, Time arrival);
    void updateTarget();
    Time rOptimalDelay();
    void markMissing(std::int64_t packet);
    void noteLoss(bool missing);
    PauseDetector::Quietness quietness(std::int64_t packet) const;

    JitterBufferSettings m_settings;
    State m_state = State::Waiting;
    std::map<std::int64_t, QByteArray> m_packets;
    std::int64_t m_next = 0;
    std::int64_t m_playStart = 0; // the first packet played since playout (re)started

    std::optional<std::uint32_t> m_lastSequence; // none until the first packet
    std::int64_t m_lastUnwrapped = 0;

    struct Jump {
        std::int64_t newest;  // highest packet of the run
        Time lowest, highest; // range of its arrival offsets
        std::int64_t packets; // packets that raised `newest`
    };
    std::optional<Jump> m_jump; // arrivals off our clock since the last on it

    SlidingMinimum<Time, Time> m_base; // the smallest arrival offset over baseWindow
    std::deque<Time> m_relativeDelays; // history for the quantile
    std::vector<Time> m_scratch;
    Time m_target;

    std::set<std::int64_t> m_missing; // recently missing packets, to tell late from duplicate
    std::uint64_t m_missingTotal = 0;
    std::uint64_t m_lateOfMissing = 0;
    enum class Outcome { Played, Missing };
    std::deque<Outcome> m_outcomes; // the last lossHistoryPackets playouts
    std::size_t m_missingInHistory = 0;
    PauseDetector m_pauses;
    JitterBufferStats m_stats;
};

} // namespace onionvoice::media
