// Per-link measurements of one call direction, made from the records that arrive, without a single
// extra record: DONAR's out-of-order metric (gaps blamed on links through the link history carried
// in records), a relative one-way delay, an RTT from echoed timestamps, and the merge of these
// local scores with the ones the peer reports for the other direction.
#pragma once

#include "Record.h"
#include "Types.h"

#include <array>
#include <deque>
#include <optional>
#include <vector>

namespace onionvoice::multipath {

// A link's merged score. Lower is better for every field.
struct LinkScore {
    double reorder = 0;    // mean out-of-order count per record over the window (records)
    Millis windowDelay{};  // largest relative one-way delay over the window (local measures; the
                           // peer reports only its current delay, so remote = current)
    Millis currentDelay{}; // latest relative one-way delay, or how long a record is overdue
};

struct Echo {
    std::uint32_t timeMs = kNoEcho;
    std::uint16_t holdMs = 0;
};

class LinkMonitor {
public:
    explicit LinkMonitor(Millis window);

    // A record arrived intact on `link`. Returns its out-of-order count.
    int onRecord(Time now, LinkId link, const Record& record);
    // The link in this slot broke or was replaced: its measurements no longer describe it.
    void resetLink(LinkId link);

    // This side's measurements of the incoming direction, to report to the peer: one report per
    // link that delivered a record since it came up and has a score in the window.
    std::vector<LinkScoreReport> localReports(Time now) const;
    // Local and remote measures merged as in DONAR §4.1: the average where both exist, else the
    // one that exists; nullopt for a link measured on neither side within the window.
    std::optional<LinkScore> score(Time now, LinkId link) const;
    std::optional<LinkScore> localScore(Time now, LinkId link) const;
    std::optional<LinkScore> remoteScore(Time now, LinkId link) const;
    std::optional<Millis> rtt(LinkId link) const;
    Echo echoFor(Time now, LinkId link) const;

private:
    struct Sample {
        Time at;
        int outOfOrder;
        Millis relativeDelay;
    };
    struct LinkState {
        std::deque<Sample> samples;
        std::optional<Millis> latestDelay;
        std::optional<Millis> srtt;
        std::uint32_t lastPeerSendMs = kNoEcho;
        std::optional<std::uint32_t> newestTxSeq;
        Time lastArrival{};
        std::optional<LinkScoreReport> remote;
        Time remoteAt{};
        // Transmissions numbered below this, when the peer's history names this slot for them,
        // went out on an earlier link in the slot or have arrived: none is outstanding here.
        std::uint32_t chargeFrom = 0;
    };
    // A transmission the peer's link history names but that has not arrived yet.
    struct Pending {
        std::uint32_t txSeq;
        LinkId link;
        std::uint32_t sentBeforeMs; // upper bound of its send time (peer clock)
    };
    static constexpr std::size_t kRing = 1024;

    void trim(Time now, LinkState& state) const;
    void notePending(std::uint32_t txSeq, LinkId link, std::uint32_t sentBeforeMs);
    bool received(std::uint32_t txSeq) const;
    int outOfOrderCount(std::uint32_t txSeq) const;
    Millis overdue(Time now, const Pending& pending) const;
    void updateBaseDelay(Time now, std::int64_t rawMs);

    Millis window_;
    std::array<LinkState, kMaxLinks> links_{};
    std::array<std::uint32_t, kRing> receivedPlusOne_{}; // txSeq + 1 of received records
    std::vector<Pending> pending_;
    std::optional<std::uint32_t> highest_;
    // Sliding minimum of (arrival − peer send time) over the last minute, in 2 s buckets: the
    // constant clock offset plus the fastest path, so that what remains is queueing and spikes.
    struct Bucket {
        Time start;
        std::int64_t minRawMs;
    };
    std::deque<Bucket> baseBuckets_;
    std::int64_t baseMs_ = 0;
};

} // namespace onionvoice::multipath
