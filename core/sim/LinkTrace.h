// `onionvoice-link-trace v1` files (ARCHITECTURE.md): one CSV per call giving, for every link
// slot, the one-way delay in each direction over time, link breakage and replacement links.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace onionvoice::sim {

inline constexpr const char* kTraceMagic = "# onionvoice-link-trace v1";
inline constexpr const char* kTraceColumns = "slot,t_ms,ab_ms,ba_ms";

// The reader's limits. Before them a t_ms of 1e12 made the simulator allocate per-frame arrays
// until it failed, a delay of 1e300 came out as a wrong number, and the impairing relay's
// nanosecond clock overflowed (undefined behaviour) past 9.2e12 ms. No tool writes more: the
// generator's traces end by 24 h (`onionvoice-sim generate --minutes` ≤ 1440) and a call lasts at
// most 24 h (`call --seconds`), a replayed trace may run on past its end: two days leave room.
inline constexpr double kMaxTraceTimeMs = 48.0 * 3600 * 1000;
// A packet held an hour is no call. The generator's largest single spike is about 31 minutes (its
// normal deviate is at most 8.6, e^8.6 × the 350 ms median); an hour would take two such draws at
// once.
inline constexpr double kMaxTraceDelayMs = 3600.0 * 1000;

enum class Direction { AtoB, BtoA };

struct TraceSample {
    double tMs = 0;
    double abMs = 0;
    double baMs = 0;
};

// One link in a slot, from its first sample until it breaks (or the trace ends).
struct LinkLife {
    std::vector<TraceSample> samples;
    std::optional<double> downMs;

    double upMs() const { return samples.front().tMs; }
    bool aliveAt(double tMs) const { return tMs >= upMs() && (!downMs || tMs < *downMs); }
    // One-way delay of a packet entering the link at tMs (linear between samples, the last value
    // after the last sample). Only meaningful while aliveAt(tMs).
    double delayAt(Direction direction, double tMs) const;
};

struct LinkTrace {
    std::vector<std::vector<LinkLife>> bySlot; // slot → its links in time order
    double durationMs = 0;                     // the last t_ms in the file
};

struct TraceError {
    std::string file;
    int line = 0;
    std::string message;
    std::string toString() const;
};

std::variant<LinkTrace, TraceError> readLinkTrace(std::istream& in, const std::string& name);
std::variant<LinkTrace, TraceError> readLinkTraceFile(const std::string& path);
void writeLinkTrace(std::ostream& out, const LinkTrace& trace);

} // namespace onionvoice::sim
