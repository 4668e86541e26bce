// Receive side of the multipath engine: the first copy of each audio frame wins and later copies
// are dropped, except that a full copy arriving after a reduced one is handed on as an upgrade
// (the jitter buffer plays it if it is still in time). Each frame is handed on with its arrival
// time.
#pragma once

#include "Record.h"
#include "Types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace onionvoice::multipath {

enum class CopyKind { Fresh, Piggybacked };

struct ReceivedFrame {
    std::uint32_t seq = 0;
    Time arrival{};
    LinkId link = kNoLink;
    CopyKind copy = CopyKind::Fresh;
    FrameQuality quality = FrameQuality::Full;
    std::vector<std::uint8_t> data;
};

struct ReceiverCounters {
    std::uint64_t freshFirst = 0;       // frames whose first copy was their own packet's
    std::uint64_t piggybackedFirst = 0; // frames first delivered as a piggybacked copy
    std::uint64_t duplicates = 0;
    std::uint64_t reducedFirst = 0; // frames first delivered as a reduced copy
    std::uint64_t upgrades = 0;     // full copies handed on after a reduced one
    std::uint64_t stale = 0;        // too old to tell whether it was seen: dropped
};

class Receiver {
public:
    // Appends to `out` the frames of `record` that were not delivered before.
    void onRecord(Time now, LinkId link, const Record& record, std::vector<ReceivedFrame>& out);
    const ReceiverCounters& counters() const { return counters_; }

private:
    static constexpr std::size_t kWindow = 4096;
    static constexpr std::int32_t kFarAhead = 250; // frames: 10 s at 40 ms
    static constexpr int kFollowRun = 25;
    std::array<std::uint32_t, kWindow> seenPlusOne_{};
    std::array<FrameQuality, kWindow> seenQuality_{};
    std::optional<std::uint32_t> newest_;
    int farRun_ = 0; // frames in a row far ahead of the newest
    ReceiverCounters counters_;
};

} // namespace onionvoice::multipath
