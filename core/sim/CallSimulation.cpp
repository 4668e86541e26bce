// Discrete-event simulation of a two-way multipath call over trace-driven links.
#include "CallSimulation.h"

#include "multipath/MultipathEndpoint.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace onionvoice::sim {
namespace mp = multipath;
namespace {

// The callee's clock is offset from the caller's: the engine must only rely on differences.
constexpr double kCalleeClockOffsetMs = 3217.0;
constexpr double kDrainMs = 15000; // after the last packet, time for stragglers to arrive
constexpr std::size_t kLostRun = 25;
constexpr double kDropGraceMs = 10000;

// The codec's reduced encoding of a frame (what a piggybacked frame shrinks to when the full one
// does not fit): a third of the bitrate, about 11 kbit/s at 32 kbit/s, where Opus still codes
// wideband speech.
std::size_t reducedBytes(std::size_t payload) {
    return payload / 3;
}

mp::Time toTime(double ms) {
    return mp::Time(std::llround(ms * 1000));
}

enum class EventKind { LinkDown, LinkUp, Arrival, Send };

struct Event {
    double tMs;
    EventKind kind;
    std::uint64_t order; // FIFO among equal times
    int side;            // 0 = caller (A), 1 = callee (B): the side the event happens at
    mp::LinkId link;
    std::size_t recordIndex;
    bool operator>(const Event& o) const {
        if (tMs != o.tMs)
            return tMs > o.tMs;
        return order > o.order;
    }
};

class Simulation {
public:
    Simulation(const LinkTrace& trace, const CallConfig& config)
        : trace_(trace)
        , config_(config)
        , slots_(std::min<std::size_t>(std::size_t(config.links), trace.bySlot.size())) {
        for (auto& side : sides_)
            side.endpoint = std::make_unique<mp::MultipathEndpoint>(mp::EndpointConfig{},
                                                                    mp::makePolicy(config.policy));
        for (auto& dir : lastArrival_)
            dir.assign(slots_, 0.0);
        lifeIndex_.assign(slots_, -1);
    }

    CallResult run() {
        const double period = config_.packetMs;
        const std::size_t frames = std::size_t(std::floor(trace_.durationMs / period));
        result_.durationMs = double(frames) * period;
        for (int s = 0; s < 2; ++s) {
            sides_[s].sentAtMs.assign(frames, 0);
            (s == 0 ? result_.ab : result_.ba).frameDelayMs.assign(frames, kLost);
        }
        for (std::size_t slot = 0; slot < slots_; ++slot)
            for (const LinkLife& life : trace_.bySlot[slot]) {
                push(life.upMs(), EventKind::LinkUp, 0, mp::LinkId(slot));
                if (life.downMs)
                    push(*life.downMs, EventKind::LinkDown, 0, mp::LinkId(slot));
            }
        // The callee's packets are offset by half a period, as two free-running clocks would be.
        for (std::size_t k = 0; k < frames; ++k) {
            push(double(k) * period, EventKind::Send, 0, mp::kNoLink, k);
            push(double(k) * period + period / 2, EventKind::Send, 1, mp::kNoLink, k);
        }
        const std::size_t payload = std::size_t(config_.bitrate) * std::size_t(period) / 8000;
        while (!events_.empty()) {
            const Event e = events_.top();
            events_.pop();
            if (e.tMs > result_.durationMs + kDrainMs)
                break;
            switch (e.kind) {
            case EventKind::LinkUp:
                lifeIndex_[e.link]++;
                lastArrival_[0][e.link] = lastArrival_[1][e.link] = 0;
                for (auto& side : sides_)
                    side.endpoint->linkUp(e.link);
                break;
            case EventKind::LinkDown:
                for (auto& side : sides_)
                    side.endpoint->linkDown(e.link);
                break;
            case EventKind::Send:
                send(e.side, e.tMs, std::uint32_t(e.recordIndex), payload);
                break;
            case EventKind::Arrival:
                arrive(e);
                break;
            }
        }
        for (int s = 0; s < 2; ++s) {
            DirectionResult& r = s == 0 ? result_.ab : result_.ba;
            r.cellsSent = sides_[s].endpoint->counters().recordsSent;
            const auto& c = sides_[1 - s].endpoint->receiver().counters();
            r.freshFirst = c.freshFirst;
            r.piggybackedFirst = c.piggybackedFirst;
            r.reducedFirst = c.reducedFirst;
        }
        return result_;
    }

private:
    struct Side {
        std::unique_ptr<mp::MultipathEndpoint> endpoint;
        std::vector<double> sentAtMs;
    };

    void push(double t, EventKind kind, int side, mp::LinkId link, std::size_t index = 0) {
        events_.push({t, kind, order_++, side, link, index});
    }

    mp::Time localNow(int side, double tMs) const {
        return toTime(tMs + (side == 1 ? kCalleeClockOffsetMs : 0));
    }

    void send(int side, double tMs, std::uint32_t seq, std::size_t payload) {
        Side& s = sides_[side];
        s.sentAtMs[seq] = tMs;
        mp::Frame frame{seq, std::vector<std::uint8_t>(payload, std::uint8_t(seq))};
        const mp::Frame reduced{seq,
                                std::vector<std::uint8_t>(reducedBytes(payload), std::uint8_t(seq)),
                                mp::FrameQuality::Reduced};
        const auto reducedCopies = config_.reducedCopies == ReducedCopies::Made
                                       ? std::span(&reduced, 1)
                                       : std::span<const mp::Frame>();
        const auto records =
            s.endpoint->sendPacket(localNow(side, tMs), std::span(&frame, 1), reducedCopies);
        const Direction dir = side == 0 ? Direction::AtoB : Direction::BtoA;
        for (const auto& rec : records) {
            const mp::LinkId link = rec.link;
            if (link >= slots_ || lifeIndex_[link] < 0)
                continue;
            const LinkLife& life = trace_.bySlot[link][std::size_t(lifeIndex_[link])];
            if (!life.aliveAt(tMs))
                continue;
            // TCP: never before the packet sent before it on the same link.
            double arrival = std::max(tMs + life.delayAt(dir, tMs), lastArrival_[side][link]);
            lastArrival_[side][link] = arrival;
            if (life.downMs && arrival >= *life.downMs)
                continue; // still in flight when the link broke
            push(arrival, EventKind::Arrival, 1 - side, link, store(rec.bytes));
        }
    }

    // Records in flight live in a pool of reused buffers.
    std::size_t store(const mp::RecordBytes& bytes) {
        if (freeSlots_.empty()) {
            inFlight_.push_back(bytes);
            return inFlight_.size() - 1;
        }
        const std::size_t index = freeSlots_.back();
        freeSlots_.pop_back();
        inFlight_[index] = bytes;
        return index;
    }

    void arrive(const Event& e) {
        delivered_.clear();
        sides_[e.side].endpoint->receive(localNow(e.side, e.tMs), e.link, inFlight_[e.recordIndex],
                                         delivered_);
        freeSlots_.push_back(e.recordIndex);
        const int sender = 1 - e.side;
        DirectionResult& r = sender == 0 ? result_.ab : result_.ba;
        for (const auto& f : delivered_)
            if (f.seq < r.frameDelayMs.size())
                r.frameDelayMs[f.seq] =
                    std::min(r.frameDelayMs[f.seq], e.tMs - sides_[sender].sentAtMs[f.seq]);
    }

    const LinkTrace& trace_;
    CallConfig config_;
    std::size_t slots_;
    std::array<Side, 2> sides_;
    std::array<std::vector<double>, 2> lastArrival_;
    std::vector<int> lifeIndex_;
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
    std::uint64_t order_ = 0;
    std::vector<mp::RecordBytes> inFlight_;
    std::vector<std::size_t> freeSlots_;
    std::vector<mp::ReceivedFrame> delivered_;
    CallResult result_;
};

double percentile(std::vector<double> values, double p) {
    if (values.empty())
        return 0;
    const auto k = std::size_t(std::ceil(p / 100.0 * double(values.size()))) - 1;
    std::nth_element(values.begin(), values.begin() + long(k), values.end());
    return values[k];
}

} // namespace

CallResult simulateCall(const LinkTrace& trace, const CallConfig& config) {
    return Simulation(trace, config).run();
}

CallResult oracleCall(const LinkTrace& trace, const CallConfig& config) {
    CallResult result;
    const double period = config.packetMs;
    const std::size_t frames = std::size_t(std::floor(trace.durationMs / period));
    result.durationMs = double(frames) * period;
    const std::size_t slots = std::min<std::size_t>(std::size_t(config.links), trace.bySlot.size());
    for (const Direction dir : {Direction::AtoB, Direction::BtoA}) {
        DirectionResult& r = dir == Direction::AtoB ? result.ab : result.ba;
        r.frameDelayMs.assign(frames, kLost);
        for (std::size_t k = 0; k < frames; ++k) {
            const double t = double(k) * period + (dir == Direction::BtoA ? period / 2 : 0);
            for (std::size_t slot = 0; slot < slots; ++slot)
                for (const LinkLife& life : trace.bySlot[slot])
                    if (life.aliveAt(t))
                        r.frameDelayMs[k] = std::min(r.frameDelayMs[k], life.delayAt(dir, t));
        }
        r.cellsSent = frames;
    }
    return result;
}

DirectionStats directionStats(const DirectionResult& result, int packetMs, double durationMs) {
    DirectionStats s;
    const auto& d = result.frameDelayMs;
    s.frames = d.size();
    if (d.empty())
        return s;
    s.p50Ms = percentile(d, 50);
    s.p95Ms = percentile(d, 95);
    s.p99Ms = percentile(d, 99);
    const double deadline = 400.0 - packetMs;
    std::size_t late = 0, lost = 0, run = 0;
    for (std::size_t k = 0; k < d.size(); ++k) {
        const bool isLost = std::isinf(d[k]);
        late += d[k] > deadline ? 1 : 0;
        lost += isLost ? 1 : 0;
        run = isLost ? run + 1 : 0;
        if (run >= kLostRun && double(k) * packetMs >= kDropGraceMs)
            s.dropped = true;
    }
    s.latePct = 100.0 * double(late) / double(d.size());
    s.lostPct = 100.0 * double(lost) / double(d.size());
    s.acceptable = s.latePct <= 1.0 && !s.dropped;
    s.cellsPerSecond = durationMs > 0 ? double(result.cellsSent) * 1000.0 / durationMs : 0;
    return s;
}

} // namespace onionvoice::sim
