// A full-duplex call between two multipath endpoints over simulated Tor links that replay a link
// trace: TCP head-of-line blocking per link, in-flight packets lost when a link breaks, links
// replaced in their slot. Both endpoints run the engine code of real calls; what one side learns
// travels back inside the records of the other direction, with that direction's delays.
#pragma once

#include "LinkTrace.h"

#include <chrono>
#include <limits>
#include <string>
#include <vector>

namespace onionvoice::sim {

// Whether the sending codec makes a reduced (low-bitrate) encoding of each frame, which records
// carry when the full frame no longer fits. Real calls make none (their third copy of a frame is
// Opus's in-band FEC inside the piggybacked next packet, which the simulator does not model), so
// `None` evaluates what real calls carry.
enum class ReducedCopies { Made, None };

struct CallConfig {
    std::string policy = "adaptive";
    int packetMs = 40;
    int bitrate = 32000;
    int links = 12;
    ReducedCopies reducedCopies = ReducedCopies::Made;
};

// Per-frame one-way delays of one direction (infinity for a frame that never arrived).
struct DirectionResult {
    std::vector<double> frameDelayMs;
    std::uint64_t cellsSent = 0;
    std::uint64_t freshFirst = 0;
    std::uint64_t piggybackedFirst = 0;
    std::uint64_t reducedFirst = 0; // frames whose first copy was a reduced (low-bitrate) one
};

struct CallResult {
    DirectionResult ab, ba;
    double durationMs = 0;
};

inline constexpr double kLost = std::numeric_limits<double>::infinity();

// Runs the call; `config.links` slots of the trace are used (fewer if the trace has fewer).
CallResult simulateCall(const LinkTrace& trace, const CallConfig& config);

// The `oracle` bound: each frame of a direction gets the smallest one-way delay among the links
// alive at its send time, ignoring head-of-line blocking.
CallResult oracleCall(const LinkTrace& trace, const CallConfig& config);

// DONAR's per-call quality figures for one direction.
struct DirectionStats {
    std::size_t frames = 0;
    double p50Ms = 0, p95Ms = 0, p99Ms = 0; // infinity when lost frames reach the percentile
    double latePct = 0;                     // lost, or later than 400 − packet_ms
    double lostPct = 0;
    bool dropped = false; // 25 consecutive frames lost after the first 10 s (DONAR §6.1)
    bool acceptable = false;
    double cellsPerSecond = 0;
};
DirectionStats directionStats(const DirectionResult& result, int packetMs, double durationMs);

} // namespace onionvoice::sim
