// Sender-side view of delivery: which records each link has delivered, from the peer's per-link
// acknowledgements (LinkScoreReport::newestTxSeq, low 8 bits). A link is one TCP stream, so one
// number per link acknowledges everything sent on it before. What stays unacknowledged for long
// shows a stalled link even when the peer has no other record from us to notice the gap by.
#pragma once

#include "Types.h"

#include <array>
#include <cstdint>
#include <deque>
#include <optional>

namespace onionvoice::multipath {

class DeliveryTracker {
public:
    void onSent(Time now, LinkId link, std::uint32_t txSeq);
    // The peer received everything up to the transmission whose low 8 bits are `newestLow8`: the
    // newest record outstanding on the link with those bits (a link carries about a third of the
    // records, so 256 transmissions are several seconds of it). The peer repeats its newest number
    // in every report, and it stays put while the link is stalled: the same bits as the last
    // acknowledgement taken are a repeat, never news.
    void onAcknowledged(LinkId link, std::uint8_t newestLow8);
    void resetLink(LinkId link);
    // How long the oldest unacknowledged record on the link has been waiting; nullopt if none.
    std::optional<Millis> oldestUnacknowledged(Time now, LinkId link) const;

private:
    struct Sent {
        std::uint32_t txSeq;
        Time at;
    };
    // Records older than this are forgotten: the link is long known to be broken or stalled.
    static constexpr Time kHorizon = std::chrono::seconds(30);
    std::array<std::deque<Sent>, kMaxLinks> outstanding_{};
    std::array<std::optional<std::uint8_t>, kMaxLinks> lastAcknowledged_{};
};

} // namespace onionvoice::multipath
