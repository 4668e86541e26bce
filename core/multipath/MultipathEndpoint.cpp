// Sender and receiver plumbing of one multipath endpoint.
#include "MultipathEndpoint.h"

#include <algorithm>

namespace onionvoice::multipath {

MultipathEndpoint::MultipathEndpoint(EndpointConfig config,
                                     std::unique_ptr<SchedulingPolicy> policy)
    : config_(config)
    , policy_(std::move(policy))
    , monitor_(config.window)
    , groups_(config.groups) {
    history_.fill(kNoLink);
}

void MultipathEndpoint::linkUp(LinkId link) {
    resetLink(link);
    groups_.linkUp(link);
}

void MultipathEndpoint::linkDown(LinkId link) {
    resetLink(link);
    groups_.linkDown(link);
}

// What was measured or is outstanding on a slot describes the link that was there, not the next.
void MultipathEndpoint::resetLink(LinkId link) {
    monitor_.resetLink(link);
    delivery_.resetLink(link);
    policy_->linkReset(link);
}

void MultipathEndpoint::maybeRerank(Time now) {
    if (!lastRerank_) {
        lastRerank_ = now;
        return;
    }
    if (now - *lastRerank_ < config_.window)
        return;
    lastRerank_ = now;
    groups_.rerank([&](LinkId link) { return policy_->rankKey(monitor_.score(now, link)); });
}

bool MultipathEndpoint::buildRecord(Time now, LinkId link, std::span<const Frame> fresh,
                                    RecordBytes& out) {
    Record r;
    r.txSeq = nextTxSeq_;
    r.sendTimeMs = std::uint32_t(toWholeMillis(now));
    const Echo echo = monitor_.echoFor(now, link);
    r.echoTimeMs = echo.timeMs;
    r.echoHoldMs = echo.holdMs;
    r.history = history_;
    r.scores = monitor_.localReports(now);

    auto cost = [](const Frame& f) {
        return kFrameEntryOverhead + f.data.size();
    };
    std::size_t freshCost = 0;
    for (const Frame& f : fresh)
        freshCost += cost(f);
    // Fresh audio has priority over score reports; drop reports until it fits.
    while (!r.scores.empty() && freshCost > frameSpace(r.scores.size()))
        r.scores.pop_back();
    if (freshCost > frameSpace(r.scores.size()))
        return false;
    std::size_t room = frameSpace(r.scores.size()) - freshCost;

    for (auto it = fresh.rbegin(); it != fresh.rend(); ++it)
        r.frames.push_back(*it);
    r.freshFrames = std::uint8_t(fresh.size());
    const std::uint32_t newest = fresh.back().seq;
    // Older frames, newest first, that this link has not carried yet and that can still be
    // played; as many as fit in what would otherwise be padding, at full size while they fit,
    // then as their reduced encoding.
    for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
        if (it->linkMask & (1u << link) || now - it->firstSent > config_.frameLifetime ||
            newest - it->frame.seq > 255)
            continue;
        const Frame* copy = &it->frame;
        if (cost(*copy) > room)
            copy = &it->reduced;
        if (copy->data.empty() || cost(*copy) > room)
            break;
        room -= cost(*copy);
        r.frames.push_back(*copy);
        it->linkMask |= 1u << link;
    }
    return encodeRecord(r, out);
}

std::vector<OutgoingRecord> MultipathEndpoint::sendPacket(Time now, std::span<const Frame> fresh,
                                                          std::span<const Frame> reduced) {
    maybeRerank(now);
    std::vector<OutgoingRecord> out;
    if (fresh.empty())
        return out;
    const LinkSelection selection =
        policy_->select(SchedulingContext{now, groups_, monitor_, delivery_, previousLink_});
    std::uint32_t freshMask = 0;
    for (LinkId link : selection.links()) {
        OutgoingRecord record{link, {}};
        if (!buildRecord(now, link, fresh, record.bytes))
            continue;
        out.push_back(record);
        freshMask |= 1u << link;
        groups_.markUsed(now, link);
        delivery_.onSent(now, link, nextTxSeq_);
        std::copy_backward(history_.begin(), history_.end() - 1, history_.end());
        history_[0] = link;
        ++nextTxSeq_;
    }
    if (out.empty())
        ++counters_.packetsUnsent;
    else
        previousLink_ = out.front().link;
    counters_.recordsSent += out.size();
    for (const Frame& f : fresh) {
        const auto match = std::find_if(reduced.begin(), reduced.end(),
                                        [&f](const Frame& r) { return r.seq == f.seq; });
        Frame small = match != reduced.end() ? *match : Frame{f.seq, {}};
        small.quality = FrameQuality::Reduced;
        recent_.push_back({f, std::move(small), now, freshMask});
    }
    while (!recent_.empty() && now - recent_.front().firstSent > config_.frameLifetime)
        recent_.pop_front();
    return out;
}

RecordError MultipathEndpoint::receive(Time now, LinkId link, std::span<const std::uint8_t> bytes,
                                       std::vector<ReceivedFrame>& delivered) {
    DecodeResult decoded = decodeRecord(bytes);
    if (decoded.error != RecordError::None || link >= kMaxLinks) {
        ++counters_.recordsRejected;
        return decoded.error != RecordError::None ? decoded.error : RecordError::BadLinkId;
    }
    ++counters_.recordsReceived;
    monitor_.onRecord(now, link, decoded.record);
    for (const LinkScoreReport& report : decoded.record.scores)
        delivery_.onAcknowledged(report.link, report.newestTxSeq);
    receiver_.onRecord(now, link, decoded.record, delivered);
    maybeRerank(now);
    return RecordError::None;
}

} // namespace onionvoice::multipath
