// Builds a call's statistics snapshot from its session, link monitor and audio engine.
#include "CallStatisticsSnapshot.h"

#include "media/CallQuality.h"

#include <algorithm>
#include <vector>

namespace onionvoice::call {
namespace {

using namespace std::chrono_literals;

LinkStatistics linkStatistics(const CallSession& call, std::uint8_t slot, multipath::Time t) {
    const auto& groups = call.endpoint->groups();
    const auto& monitor = call.endpoint->monitor();
    LinkStatistics l;
    l.slot = slot;
    l.state = call.slotStates[slot] == SlotState::Down && call.slotOpen(slot)
                  ? SlotState::Joining
                  : call.slotStates[slot];
    l.group = groups.group(slot);
    if (const auto rtt = monitor.rtt(slot))
        l.rttMs = double(rtt->count());
    if (const auto score = monitor.score(t, slot)) {
        l.relativeDelayMs = double(score->currentDelay.count());
        l.reorderScore = score->reorder;
    }
    l.recordsSent = call.counters[slot].sent;
    l.recordsReceived = call.counters[slot].received;
    l.failures = call.counters[slot].failures;
    return l;
}

} // namespace

std::chrono::milliseconds fastestOneWay(std::span<const std::optional<multipath::Millis>> rtts) {
    std::optional<multipath::Millis> smallest;
    for (const auto& rtt : rtts)
        if (rtt && (!smallest || *rtt < *smallest))
            smallest = rtt;
    return smallest.value_or(400ms) / 2;
}

CallStatistics snapshotStatistics(const CallSession& call) {
    CallStatistics s;
    s.peer = call.peer;
    s.direction = call.direction;
    const multipath::Time t = call.now();
    s.duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(t - call.answeredAt.value_or(t));
    for (std::uint8_t slot = 0; slot < call.agreed.links; ++slot)
        s.links.append(linkStatistics(call, slot, t));
    const FrameDelaySummary delays = call.frameDelays.summary(call.snapshotIntervalStartMs);
    s.delayP50Ms = delays.p50Ms;
    s.delayP95Ms = delays.p95Ms;
    s.delayP99Ms = delays.p99Ms;
    // One-way network delay: the fastest path's plus the frame's delay above the fastest frame.
    std::vector<std::optional<multipath::Millis>> rtts;
    for (std::uint8_t slot = 0; slot < call.agreed.links; ++slot)
        rtts.push_back(call.endpoint->monitor().rtt(slot));
    const auto fastest = fastestOneWay(rtts);
    const double fastestMs = double(fastest.count());
    s.networkDelayP50Ms = s.delayP50Ms + fastestMs;
    s.networkDelayP99Ms = s.delayP99Ms + fastestMs;
    if (delays.intervalMaxMs)
        s.intervalDelayMaxMs = *delays.intervalMaxMs + fastestMs;
    s.sendLatenessMaxMs = double(call.sendLateness.intervalMax().count());
    const media::JitterBufferStats jb = call.audio->receiveStats();
    s.late = jb.late;
    s.lost = jb.lost;
    s.concealed = jb.concealedMs;
    s.longestGap = call.audio->longestGap();
    s.speakerStarved = call.audio->speakerStarved();
    s.jitterLevel = std::chrono::duration_cast<std::chrono::milliseconds>(jb.currentLevel);
    s.jitterTarget = std::chrono::duration_cast<std::chrono::milliseconds>(jb.targetDelay);
    // The jitter buffer plays a frame its target after the fastest frame would arrive, so the
    // frames' spread is in the target already: the network's share is the fastest path's alone
    // (with the median frame's delay here too, the spread counted twice and the MOS fell for it).
    const media::MouthToEarBudget budget = call.audio->mouthToEar(fastest);
    s.mouthToEar = std::chrono::duration_cast<std::chrono::milliseconds>(budget.total());
    s.recentLossPct = call.audio->receiveLossPercent();
    const media::EModelResult quality = media::computeEModel({s.mouthToEar, s.recentLossPct});
    s.mos = quality.mos;
    s.rFactor = quality.rFactor;
    const double seconds = std::max(1e-3, double(s.duration.count()) / 1000.0);
    s.cellsPerSecond = double(call.endpoint->counters().recordsSent) / seconds;
    s.recordsRejected = call.rejected;
    s.framesReceived = call.framesReceived;
    return s;
}

} // namespace onionvoice::call
