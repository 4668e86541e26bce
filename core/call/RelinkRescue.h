// When replacement links to a peer keep failing while the call still has working links, the cause
// is usually tor's client-side onion-service state, not the peer: after a relay on the call's paths
// died, tor counts the circuits that failed through it against the peer's introduction points,
// marks them unusable for two minutes and keeps the cached descriptor that lists them, so every new
// link fails with "introduction failed" (tests/faults relay_kill: slots down for the rest of a
// 60-s call). SIGNAL NEWNYM purges that state (descriptor cache, introduction-point failures) and
// leaves open links and their circuits alone. This class decides when to ask for it.
#pragma once

#include "multipath/Types.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

namespace onionvoice::call {

class RelinkRescue {
public:
    using Clock = std::chrono::steady_clock;
    struct Config {
        int failedAttempts = 3; // in a row in one slot
        // tor delays a NEWNYM that follows another within 10 s; a delayed purge would also drop
        // a client-auth key given to tor after it.
        std::chrono::milliseconds minInterval{15000};
    };

    RelinkRescue() = default;
    explicit RelinkRescue(Config config)
        : config_(config) {}

    // An attempt to open a link in `slot` failed. True when tor's state should be purged now.
    bool attemptFailed(std::uint8_t slot, Clock::time_point now);
    void linkUp(std::uint8_t slot);

private:
    Config config_;
    std::array<int, multipath::kMaxLinks> failures_{};
    std::optional<Clock::time_point> lastRescue_;
};

} // namespace onionvoice::call
