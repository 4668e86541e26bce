// Link monitoring from received records: out-of-order metric, relative one-way delay, RTT, and
// the merge with the peer's reports (DONAR §4.1, extended with delay and RTT).
#include "LinkMonitor.h"

#include <algorithm>
#include <cmath>

namespace onionvoice::multipath {
namespace {

constexpr Time kBaseWindow = std::chrono::seconds(60);
constexpr Time kBaseBucket = std::chrono::seconds(2);

std::uint8_t saturate8(double v) {
    return std::uint8_t(std::clamp(std::lround(v), 0L, 255L));
}

std::uint8_t delayUnits(Millis d) {
    return saturate8(double(d.count()) / kDelayUnitMs);
}

Millis fromDelayUnits(std::uint8_t units) {
    return Millis(units * kDelayUnitMs);
}

Millis averageOf(Millis a, Millis b) {
    return (a + b) / 2;
}

} // namespace

LinkMonitor::LinkMonitor(Millis window)
    : window_(window) {}

int LinkMonitor::onRecord(Time now, LinkId link, const Record& r) {
    if (link >= kMaxLinks)
        return 0;
    const std::int64_t nowMs = toWholeMillis(now);
    const std::int64_t rawMs = nowMs - std::int64_t(r.sendTimeMs);
    updateBaseDelay(now, rawMs);
    const Millis relative(std::max<std::int64_t>(0, rawMs - baseMs_));

    LinkState& state = links_[link];
    // A link is one TCP stream: whatever the peer sent on it before this record has arrived
    // already. What its history names in this slot below this record and has not arrived went
    // out on the link this one replaced, and never will: until the peer reads the Join of a link
    // that replaced one whose other end is still open there, it keeps sending on that end.
    // (txSeq + 1 wraps only for a hostile peer, and max then keeps the old bound.)
    state.chargeFrom = std::max(state.chargeFrom, r.txSeq + 1);
    for (std::size_t k = 0; k < kHistoryLength && k < r.txSeq; ++k) {
        if (r.history[k] != kNoLink)
            notePending(r.txSeq - 1 - std::uint32_t(k), r.history[k], r.sendTimeMs);
    }
    const int outOfOrder = outOfOrderCount(r.txSeq);
    receivedPlusOne_[r.txSeq % kRing] = r.txSeq + 1;
    if (!highest_ || r.txSeq > *highest_)
        highest_ = r.txSeq;
    std::erase_if(pending_, [&](const Pending& p) {
        return p.txSeq == r.txSeq || p.txSeq + kRing <= *highest_ ||
               (p.link == link && p.txSeq < state.chargeFrom);
    });

    state.samples.push_back({now, outOfOrder, relative});
    state.latestDelay = relative;
    state.lastPeerSendMs = r.sendTimeMs;
    state.newestTxSeq = r.txSeq;
    state.lastArrival = now;
    if (r.echoTimeMs != kNoEcho) {
        const std::int64_t sample = nowMs - std::int64_t(r.echoTimeMs) - r.echoHoldMs;
        if (sample >= 0) {
            const Millis m(sample);
            state.srtt = state.srtt ? (*state.srtt * 7 + m) / 8 : m;
        }
    }
    trim(now, state);

    for (const LinkScoreReport& report : r.scores) {
        if (report.link < kMaxLinks) {
            links_[report.link].remote = report;
            links_[report.link].remoteAt = now;
        }
    }
    return outOfOrder;
}

void LinkMonitor::resetLink(LinkId link) {
    if (link >= kMaxLinks)
        return;
    links_[link] = LinkState{};
    // Everything up to the newest transmission received left the peer before this link came
    // up, so on the link that was here before: the peer's history goes on naming this slot for
    // those for 16 more transmissions, and the ones lost with the old link must not be charged
    // to the new one (as overdue, for the 1024 transmissions they stay pending).
    links_[link].chargeFrom = highest_ ? *highest_ + 1 : 0;
    std::erase_if(pending_, [link](const Pending& p) { return p.link == link; });
}

void LinkMonitor::trim(Time now, LinkState& state) const {
    while (!state.samples.empty() && state.samples.front().at <= now - window_)
        state.samples.pop_front();
}

void LinkMonitor::notePending(std::uint32_t txSeq, LinkId link, std::uint32_t sentBeforeMs) {
    if (link >= kMaxLinks || received(txSeq) || txSeq < links_[link].chargeFrom ||
        (highest_ && txSeq + kRing <= *highest_))
        return;
    for (Pending& p : pending_) {
        if (p.txSeq == txSeq) {
            p.sentBeforeMs = std::min(p.sentBeforeMs, sentBeforeMs);
            return;
        }
    }
    pending_.push_back({txSeq, link, sentBeforeMs});
}

bool LinkMonitor::received(std::uint32_t txSeq) const {
    return receivedPlusOne_[txSeq % kRing] == txSeq + 1;
}

int LinkMonitor::outOfOrderCount(std::uint32_t txSeq) const {
    if (!highest_ || txSeq >= *highest_)
        return 0;
    const std::uint32_t span = std::min<std::uint32_t>(*highest_ - txSeq, kRing - 1);
    int count = 0;
    // Counted by offset: txSeq + span may be the largest uint32_t, where `s <= end` never fails.
    for (std::uint32_t k = 1; k <= span; ++k)
        count += received(txSeq + k) ? 1 : 0;
    return count;
}

Millis LinkMonitor::overdue(Time now, const Pending& p) const {
    return Millis(
        std::max<std::int64_t>(0, toWholeMillis(now) - std::int64_t(p.sentBeforeMs) - baseMs_));
}

void LinkMonitor::updateBaseDelay(Time now, std::int64_t rawMs) {
    if (baseBuckets_.empty() || now - baseBuckets_.back().start >= kBaseBucket)
        baseBuckets_.push_back({now, rawMs});
    else
        baseBuckets_.back().minRawMs = std::min(baseBuckets_.back().minRawMs, rawMs);
    while (now - baseBuckets_.front().start > kBaseWindow)
        baseBuckets_.pop_front();
    baseMs_ =
        std::min_element(baseBuckets_.begin(), baseBuckets_.end(),
                         [](const Bucket& a, const Bucket& b) { return a.minRawMs < b.minRawMs; })
            ->minRawMs;
}

std::optional<LinkScore> LinkMonitor::localScore(Time now, LinkId link) const {
    if (link >= kMaxLinks)
        return std::nullopt;
    const LinkState& state = links_[link];
    double outOfOrderSum = 0;
    int count = 0;
    LinkScore score;
    for (const Sample& s : state.samples) {
        if (s.at <= now - window_)
            continue;
        outOfOrderSum += s.outOfOrder;
        ++count;
        score.windowDelay = std::max(score.windowDelay, s.relativeDelay);
    }
    if (count > 0 && state.latestDelay)
        score.currentDelay = *state.latestDelay;
    for (const Pending& p : pending_) {
        if (p.link != link)
            continue;
        outOfOrderSum += outOfOrderCount(p.txSeq);
        ++count;
        const Millis late = overdue(now, p);
        score.windowDelay = std::max(score.windowDelay, late);
        score.currentDelay = std::max(score.currentDelay, late);
    }
    if (count == 0)
        return std::nullopt;
    score.reorder = outOfOrderSum / count;
    return score;
}

std::optional<LinkScore> LinkMonitor::remoteScore(Time now, LinkId link) const {
    if (link >= kMaxLinks)
        return std::nullopt;
    const LinkState& state = links_[link];
    if (!state.remote || now - state.remoteAt > window_)
        return std::nullopt;
    // The wire carries the current delay only; the window's largest is the sender's to keep.
    const Millis current = fromDelayUnits(state.remote->currentDelay);
    return LinkScore{double(state.remote->reorder) / kReorderUnitsPerRecord, current, current};
}

std::optional<LinkScore> LinkMonitor::score(Time now, LinkId link) const {
    const auto local = localScore(now, link);
    const auto remote = remoteScore(now, link);
    if (local && remote)
        return LinkScore{(local->reorder + remote->reorder) / 2,
                         averageOf(local->windowDelay, remote->windowDelay),
                         averageOf(local->currentDelay, remote->currentDelay)};
    return local ? local : remote;
}

std::vector<LinkScoreReport> LinkMonitor::localReports(Time now) const {
    std::vector<LinkScoreReport> reports;
    for (LinkId link = 0; link < kMaxLinks; ++link) {
        const auto newest = links_[link].newestTxSeq;
        const auto s = localScore(now, link);
        if (newest && s)
            reports.push_back({link, saturate8(s->reorder * kReorderUnitsPerRecord),
                               delayUnits(s->currentDelay), std::uint8_t(*newest)});
    }
    return reports;
}

std::optional<Millis> LinkMonitor::rtt(LinkId link) const {
    return link < kMaxLinks ? links_[link].srtt : std::nullopt;
}

Echo LinkMonitor::echoFor(Time now, LinkId link) const {
    if (link >= kMaxLinks || links_[link].lastPeerSendMs == kNoEcho)
        return {};
    const std::int64_t holdMs = toWholeMillis(now - links_[link].lastArrival);
    if (holdMs < 0 || holdMs > 0xFFFF)
        return {};
    return {links_[link].lastPeerSendMs, std::uint16_t(holdMs)};
}

} // namespace onionvoice::multipath
