// Finds a link of a call whose stream is still open but that no longer delivers records. Seen in
// tests/faults relay_kill: after a relay died, the callee's end of one link closed while the
// caller's end stayed open and silent for the rest of the call (11 of 12 links on the callee's
// side for 35 s). The peer's policy sends on idle links only now and then (exploration, from a
// copy budget that pauses while the call is in trouble): unimpaired, every link got a record at
// least every 5 s; in the 10-minute impaired soak idle links got one every 6 s on average. So only
// a link silent for 30 s while the peer is heard on other links counts as dead: the engine closes
// it, and the caller dials a new one (an idle link closed by mistake costs one redial, no audio).
// Silence on every link is not one link's fault (the peer's process or this machine stalled, or
// the network is gone): the network-loss timeout deals with that.
//
// A link silent for 10 s whose records to the peer have also gone unacknowledged for 10 s counts
// as dead sooner: the peer's reports arrive on the other links several times a second, so its
// silence about this one is not idleness. Seen in 3 of 22 relay_kill runs (30-s calls): the
// callee's end closed when the relay died, the caller's end stayed open, and the callee ran on 11
// of 12 links to the end of the call while the caller's records on the slot went unacknowledged.
// 10 s, not less: a relay stopped for 5 s (tests/faults relay_stop) delays its links that long
// and they resume.
#pragma once

#include "multipath/Types.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

namespace onionvoice::call {

class SilentLinkWatch {
public:
    explicit SilentLinkWatch(
        std::chrono::milliseconds limit = std::chrono::milliseconds(30000),
        std::chrono::milliseconds unacknowledgedLimit = std::chrono::milliseconds(10000))
        : limit_(limit)
        , unacknowledgedLimit_(unacknowledgedLimit) {}

    // A genuine record arrived on the slot: the peer is heard.
    void heard(std::uint8_t slot, multipath::Time now);
    // The slot's link (re)joined the call: its silence counts from now. The peer is not heard by
    // that: a link opens when the peer's tor takes the stream, even while the peer's app is
    // stalled, and a join counted as hearing it made every link silent during that stall look
    // like one link's fault.
    void joined(std::uint8_t slot, multipath::Time now);
    // True when, while the peer was heard on another link within the last second, the slot has
    // been silent for longer than the limit, or for the unacknowledged limit while the oldest of
    // our records on it (`unacknowledged`, from the peer's reports) has waited that long.
    bool silent(std::uint8_t slot, multipath::Time now,
                std::optional<multipath::Millis> unacknowledged = std::nullopt) const;

private:
    multipath::Time limit_;
    multipath::Time unacknowledgedLimit_;
    std::array<multipath::Time, multipath::kMaxLinks> lastHeard_{};
    multipath::Time lastHeardAny_{};
};

} // namespace onionvoice::call
