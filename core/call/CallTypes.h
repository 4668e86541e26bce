// The vocabulary the engine shares with the UI and the command line: call states, end reasons,
// and the statistics snapshots published during a call.
#pragma once

#include "multipath/LinkGroups.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <chrono>
#include <cstdint>
#include <optional>

namespace onionvoice::call {

enum class CallState { Idle, Dialing, Ringing, Active, Ended };
enum class CallDirection { Outgoing, Incoming };

enum class EndReason {
    None,
    HungUpLocally,
    HungUpByPeer,
    RejectedLocally,
    RejectedByPeer,
    Busy,           // the callee is in another call
    NoAnswer,       // nobody answered before the ringing timeout
    Cancelled,      // the caller hung up while it was ringing
    NotAccepted,    // the callee refuses this caller (blocked, or unknown callers refused)
    Unreachable,    // no link to the peer could be opened
    NetworkFailure, // every link was lost for too long
    ProtocolError,  // the peer sent something invalid
    AudioFailed,    // our microphone or speaker could not start (the peer sees a hang-up)
};

QString describe(EndReason reason);
QString describe(CallState state);

// A slot's link: none, open but not yet part of the call, or carrying the call's records.
enum class SlotState { Down, Joining, Up };

struct LinkStatistics {
    std::uint8_t slot = 0;
    SlotState state = SlotState::Down;
    std::optional<multipath::LinkGroup> group; // the scheduler's group of an up link
    double rttMs = -1;
    double relativeDelayMs = -1;
    double reorderScore = -1;
    std::uint64_t recordsSent = 0;
    std::uint64_t recordsReceived = 0;
    std::uint64_t failures = 0;
};

struct CallStatistics {
    QString peer;
    CallDirection direction = CallDirection::Outgoing;
    std::chrono::milliseconds duration{0};
    QList<LinkStatistics> links;
    double delayP50Ms = 0, delayP95Ms = 0, delayP99Ms = 0; // relative one-way delay of frames
    std::uint64_t late = 0, lost = 0;
    std::chrono::milliseconds concealed{0};
    std::chrono::milliseconds longestGap{0}; // longest run of played audio without speech
    // Silence our speaker played because the engine did not refill it in time (this computer's
    // trouble, not the network's): AudioEngine::speakerStarved.
    std::chrono::milliseconds speakerStarved{0};
    std::chrono::milliseconds jitterLevel{0}, jitterTarget{0};
    // Frames not there when due (late or lost) over the last 20 s of playout: what the call
    // sounds like now, which the call's totals above stop showing an hour into a call.
    double recentLossPct = 0;
    double mos = 0;     // from the recent loss and the mouth-to-ear delay
    double rFactor = 0; // ITU-T G.107 R behind the MOS
    // Estimated mouth-to-ear delay (the E-model's Ta): capture, packet, codec lookahead, the
    // fastest path, the jitter buffer's target and playback.
    std::chrono::milliseconds mouthToEar{0};
    // Estimated one-way network delay of frames: the relative delay plus half the smallest round
    // trip of the links (the fastest frame's delay is not observable without synchronised clocks).
    double networkDelayP50Ms = 0, networkDelayP99Ms = 0;
    // Largest estimated one-way delay of the frames that arrived since the previous snapshot
    // (-1 when none arrived), for a delay plot over time.
    double intervalDelayMaxMs = -1;
    // How late the engine sent packets since the previous snapshot: the largest lateness of a
    // packet against the audio clock's schedule, above the call's usual lateness. A busy engine
    // thread shows here first.
    double sendLatenessMaxMs = 0;
    double cellsPerSecond = 0;         // records sent per second, all links
    std::uint64_t recordsRejected = 0; // forged, replayed or garbled records
    std::uint64_t framesReceived = 0;

    int linksUp() const;
};

// Sees every audio packet the engine sends (once per link it goes on) and the first copy of every
// frame it receives, with the link slot, for end-to-end measurements (e.g. onionvoice-cli
// --frame-log). Called on the engine thread; must not block.
class FrameObserver {
public:
    virtual ~FrameObserver() = default;
    virtual void packetSent(std::uint32_t sequence, std::uint8_t slot) = 0;
    virtual void frameArrived(std::uint32_t sequence, std::uint8_t slot) = 0;
};

// What the engine refused from the network since it started: the figures the UI can show and the
// attack tests check.
struct RefusalCounters {
    std::uint64_t linksOverLimit = 0; // oldest unproven link closed: too many at once
    std::uint64_t linksUnproven = 0;  // no Hello or Join within the proof timeout
    std::uint64_t linksGarbage = 0;   // first record was no Hello or Join
    std::uint64_t badHellos = 0;      // wrong signature, callee, clock or parameters
    std::uint64_t replayedHellos = 0; // a (caller, nonce) already seen, or a ring that is over
    std::uint64_t rateLimitedRings = 0;
    std::uint64_t decoyRings = 0;  // blocked, or a stranger while busy: rang, never answered
    std::uint64_t notAccepted = 0; // unknown callers refused
    std::uint64_t busy = 0;        // contacts told we are busy (a missed call)
    std::uint64_t badJoins = 0;
    std::uint64_t recordsOverRate = 0; // records beyond a link's rate limit, dropped
    std::uint64_t recordsReplayed = 0; // authentic records received again, or too old: dropped
    std::uint64_t linksStalled = 0;    // the peer stopped reading: unsent backlog over the bound
};

} // namespace onionvoice::call

Q_DECLARE_METATYPE(onionvoice::call::CallState)
Q_DECLARE_METATYPE(onionvoice::call::EndReason)
Q_DECLARE_METATYPE(onionvoice::call::CallStatistics)
