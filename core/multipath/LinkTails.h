// What the adaptive policy has learnt about each link's delay: the delays it came to know (one
// round trip late, from the peer's reports and the acknowledgements), their tail (the largest over
// a recent window), and which links suffer together (co-spiking), learnt from delay excursions
// that happen at the same time.
#pragma once

#include "Types.h"

#include <array>
#include <deque>
#include <optional>
#include <span>

namespace onionvoice::multipath {

struct TailSettings {
    Millis window{1000}; // the tail is the largest delay known over this window ...
    // ... each less what a queue drains in the time since it was first known (queues at guards and
    // relays empty at a steady rate; a stalled cell's backlog leaves at once when it moves), so
    // a short stall seen 0.8 s ago no longer bars the link as if it were still there ...
    double drainMsPerSecond = 300;
    Millis slack{80};     // ... less this much, and never less than the newest delay known
    Millis fresh{200};    // a delay first known this recently counts for co-spiking
    Millis excursion{50}; // above the link's own baseline: a spike
    // Per observation round (a packet): about 5000 rounds, 200 s at 40 ms, longer than the gaps
    // of minutes between a guard's spikes, so what one spike taught is there at the next.
    double pairMemory = 0.9998;
    // Assumed for a link never heard of: a good link's delay, so a new circuit gets tried once
    // the measured links do worse than that. A link heard of before but not within the window (a
    // delay known again is no news of it) is judged by its usual delay (the average of what was
    // known of it outside spikes): assuming it good again would send fresh frames to links known to
    // be slow whenever they have been idle for a second; exploration copies keep those estimates
    // current.
    Millis unmeasured{60};
};

class LinkTails {
public:
    explicit LinkTails(TailSettings settings = {});

    // The delay of `link` as known at `now` (relative to the fastest path).
    void observe(Time now, LinkId link, Millis delay);
    // Updates the co-spiking statistics from the observations made at `now`; call once per
    // packet after observing every link.
    void updatePairs(Time now);
    void forget(LinkId link);

    // The link's tail: the largest delay known over the window, each drained for the time since
    // it was first known, less the slack, at least the newest; for a link whose newest delay was
    // first known longer ago than the window its usual delay; `unmeasured` for a link never heard
    // of.
    Millis tail(Time now, LinkId link) const;
    // The tail of a link without news of its own for `fresh`, raised by the links among `links`
    // that it spikes together with (at least `evidence`) and that are in a spike now: each counts
    // with its tail times how often the two spiked together. A guard's queue shows first on the
    // links through it that carry packets; the quiet ones behind the same guard are in it too.
    Millis tailWithPartners(Time now, LinkId link, std::span<const LinkId> links,
                            double evidence) const;
    // How often the two links were in a spike together, among the times either was (0 … 1).
    double coSpiking(LinkId a, LinkId b) const;
    // When the link's current spike was first seen; nullopt while it is not in one.
    std::optional<Time> spikeStart(LinkId link) const;
    // When the link was last seen in a spike; nullopt if never since it was learnt.
    std::optional<Time> lastSpike(LinkId link) const;

private:
    struct Observation {
        Time at;
        Millis delay;
    };
    struct Link {
        std::deque<Observation> recent;
        std::optional<Millis> newest;
        std::optional<Millis> lastTail;
        Time lastHeard{}; // when the newest delay was first known
        double baselineMs = -1;
        double usualMs = -1;
        std::optional<Time> spikeStart; // set while the link spikes
        std::optional<Time> lastSpike;
    };
    // Whether anything new was known of the link within `age` (a delay known again is not new).
    static bool heardWithin(const Link& l, Time now, Millis age) {
        return l.lastTail && now - l.lastHeard <= age;
    }
    TailSettings settings_;
    std::array<Link, kMaxLinks> links_{};
    std::array<std::array<double, kMaxLinks>, kMaxLinks> both_{};
    std::array<std::array<double, kMaxLinks>, kMaxLinks> either_{};
};

} // namespace onionvoice::multipath
