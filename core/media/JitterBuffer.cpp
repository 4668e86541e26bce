// Adaptive jitter buffer (see JitterBuffer.h for the design).
#include "media/JitterBuffer.h"

#include "media/AudioFormat.h"
#include "media/CallQuality.h"
#include "media/MediaLog.h"
#include "media/VoiceCodec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace onionvoice::media {
namespace {

// How many recently missing packets are remembered to classify later arrivals.
constexpr std::int64_t kMissingMemory = 1000;
// A clock jump is followed once this much of the sender's audio has arrived off our clock in a
// run: a live stream sends 25 packets a second (at 40 ms), so one bad packet, or a few among the
// stream's, never make such a run, while a pause of the sender's clock costs only this second more.
constexpr std::chrono::seconds kJumpRun{1};
// A packet within reach is taken for a clock jump only this much later than the base. A network
// queue this deep drains by more than maxTarget a second (the trace model's queues drain within
// 6 s, DONAR's spikes rarely pass 2.4 s), so it never makes a run whose delays agree within
// maxTarget; a stopped clock's run does.
constexpr std::chrono::seconds kJumpDelay{2};
// A shorter jump, too late to play at any target yet under kJumpDelay (a sender that stood still
// for half a second to two: its packets were late until the old minimum left the 20-s window,
// 20 s of silence), is followed after this much of a run. A queue that drains faster than
// maxTarget over it (about 76 ms a second) never makes one; a slower queue, or a lasting step of
// the delay, is followed too, as it should be: its packets would be lost until it passed.
constexpr std::chrono::seconds kShortJumpRun{4};

} // namespace

JitterBuffer::JitterBuffer(const JitterBufferSettings& settings)
    : m_settings(settings)
    , m_base(settings.baseWindow)
    , m_target(settings.minTarget) {
    m_scratch.reserve(settings.delayHistoryPackets);
}

std::int64_t JitterBuffer::unwrap(std::uint32_t sequence) const {
    if (!m_lastSequence)
        return sequence;
    return m_lastUnwrapped + static_cast<std::int32_t>(sequence - *m_lastSequence);
}

// A sequence number as far from the stream as the buffer may hold packets is no packet of it (a
// peer's bug or attack): its delay would move the playout base by as much (recordDelay), and
// playout would then walk packet by packet across the gap to it, holding the engine thread for
// minutes at a jump of 2^31. Sequence numbers follow capture time on both sides (skipped capture
// is skipped in numbering), so the real stream stays near the play position however long it
// paused, unless a clock stopped (clockJumped); before playout starts, near the newest packet. Far
// behind the play position counts too: such a packet would count as late, with a delay of hours in
// the history the playout target is chosen from.
bool JitterBuffer::outOfReach(std::int64_t index) const {
    const auto reach = std::int64_t(m_settings.maxBufferedPackets);
    if (m_state == State::Playing)
        return index >= m_next + reach || index <= m_next - reach;
    return m_lastSequence && std::abs(index - m_lastUnwrapped) >= reach;
}

// Whether this packet completes a run showing that the sender's numbering jumped against our
// clock: a clock that stopped on either side (a suspended laptop, a paused VM: no capture
// overrun, so numbering resumes where it stopped) puts every later packet out of reach, or, if
// the pause was shorter, too late to play until the old base leaves its 20-s window. The run is
// every arrival since the last one on our clock, each off it, with arrival offsets that agree
// within maxTarget (one stream, which one anchor can play), until kJumpRun of new packets came.
JitterBuffer::JumpKind JitterBuffer::clockJumped(std::int64_t index, Time arrival) {
    const Time offset = arrival - Time(m_settings.packetPeriod) * index;
    const Time unplayable = Time(m_settings.maxTarget) + Time(m_settings.packetPeriod);
    const bool late =
        m_state == State::Playing && index < m_next && offset - *m_base.minimum() >= unplayable;
    if (!late && !outOfReach(index)) {
        m_jump.reset();
        return JumpKind::None;
    }
    const bool agrees =
        m_jump && std::max(m_jump->highest, offset) - std::min(m_jump->lowest, offset) <=
                      Time(m_settings.maxTarget);
    if (!agrees) {
        m_jump = Jump{index, offset, offset, 1};
    } else if (index > m_jump->newest) { // copies and reordered packets do not lengthen it
        m_jump->newest = index;
        m_jump->lowest = std::min(m_jump->lowest, offset);
        m_jump->highest = std::max(m_jump->highest, offset);
        ++m_jump->packets;
    }
    const bool deep = m_jump->lowest - *m_base.minimum() >= Time(kJumpDelay) || outOfReach(index);
    if (m_jump->packets < (deep ? kJumpRun : kShortJumpRun) / m_settings.packetPeriod)
        return JumpKind::None;
    return deep ? JumpKind::Deep : JumpKind::Short;
}

// Starts over as at a new talk spurt, from the run's fastest packet: what was learnt against the
// old numbering would make every packet late (the base), count copies as late (the missing
// marks), or tell the peer that a pause was network loss (the loss history). A short jump may be
// the network's (a lasting step of the delay), so its loss history stays: the peer keeps its FEC.
void JitterBuffer::reanchor(std::int64_t index, Time arrival, JumpKind jump) {
    const auto moved =
        std::chrono::duration_cast<std::chrono::milliseconds>(m_jump->lowest - *m_base.minimum());
    if (jump == JumpKind::Deep)
        qCInfo(lcMedia) << "the peer's packet numbering moved by" << moved.count()
                        << "ms against our clock; playout follows it";
    else
        qCInfo(lcMedia) << "the peer's packets came" << moved.count()
                        << "ms later than before for 4 s; playout follows them";
    m_stats.droppedMs += m_settings.packetPeriod * std::int64_t(m_packets.size());
    m_packets.clear();
    m_state = State::Waiting;
    m_next = index;
    m_lastSequence.reset();
    m_base = SlidingMinimum<Time, Time>(m_settings.baseWindow);
    m_base.add(arrival, m_jump->lowest);
    m_jump.reset();
    m_relativeDelays.clear();
    m_missing.clear();
    if (jump == JumpKind::Deep) {
        m_outcomes.clear();
        m_missingInHistory = 0;
    }
}

std::optional<JitterBuffer::Time> JitterBuffer::push(std::uint32_t sequence, Time arrival,
                                                     std::span<const std::uint8_t> packet) {
    if (opusPacketSamples(packet) != samplesIn(m_settings.packetPeriod)) {
        ++m_stats.malformed;
        return std::nullopt;
    }
    const std::int64_t index = unwrap(sequence);
    if (const JumpKind jump = clockJumped(index, arrival); jump != JumpKind::None) {
        reanchor(index, arrival, jump);
    } else if (outOfReach(index)) {
        ++m_stats.outOfReach;
        return std::nullopt;
    }
    if (!m_lastSequence || index > m_lastUnwrapped) {
        m_lastSequence = sequence;
        m_lastUnwrapped = index;
    }
    const bool played = m_state == State::Playing && index < m_next;
    // A packet passed by playout and not marked missing was played, so this is a copy; but one
    // before the first packet played (overtaken at the start of playout) was never passed by it.
    const bool remembered = index >= m_playStart && index >= m_next - kMissingMemory;
    if (m_packets.contains(index) || (played && remembered && !m_missing.contains(index))) {
        ++m_stats.duplicates;
        return std::nullopt;
    }
    ++m_stats.packetsReceived;
    const Time delay = recordDelay(index, arrival);
    m_pauses.note(packet.size());
    if (played) {
        ++m_stats.late;
        if (m_missing.erase(index) == 1)
            ++m_lateOfMissing;
        return delay;
    }
    m_packets.emplace(
        index, QByteArray(reinterpret_cast<const char*>(packet.data()), qsizetype(packet.size())));
    // Before playout starts a bogus sequence could grow the map without bound.
    while (m_packets.size() > m_settings.maxBufferedPackets) {
        m_packets.erase(m_packets.begin());
        m_stats.droppedMs += m_settings.packetPeriod;
    }
    return delay;
}

JitterBuffer::Time JitterBuffer::recordDelay(std::int64_t packet, Time arrival) {
    const Time delay = arrival - Time(m_settings.packetPeriod) * packet;
    m_base.add(arrival, delay);
    m_relativeDelays.push_back(delay - *m_base.minimum());
    if (m_relativeDelays.size() > m_settings.delayHistoryPackets)
        m_relativeDelays.pop_front();
    return delay;
}

// The relative delay to wait for that gives the best R factor: every recent delay is a candidate
// (between two of them only the delay impairment changes), scored with the share of recent
// packets later than it as loss.
JitterBuffer::Time JitterBuffer::rOptimalDelay() {
    m_scratch.assign(m_relativeDelays.begin(), m_relativeDelays.end());
    std::sort(m_scratch.begin(), m_scratch.end());
    const double n = double(m_scratch.size());
    const Time fixed = Time(m_settings.pathDelay) + Time(m_settings.packetPeriod) +
                       MouthToEarBudget{}.codecLookahead;
    EModelInput input;
    input.lossRobustness = m_settings.lossRobustness;
    Time best{0};
    double bestR = -1e9;
    for (std::size_t i = 0; i < m_scratch.size(); ++i) {
        if (i + 1 < m_scratch.size() && m_scratch[i + 1] == m_scratch[i])
            continue;
        const Time wait = std::max(m_scratch[i], Time(m_settings.minTarget));
        if (wait > Time(m_settings.maxTarget))
            break;
        input.mouthToEar = std::chrono::duration_cast<std::chrono::milliseconds>(fixed + wait);
        input.packetLossPercent = 100.0 * (n - double(i + 1)) / n;
        const double r = computeEModel(input).rFactor;
        if (r > bestR) {
            bestR = r;
            best = m_scratch[i];
        }
    }
    return bestR > -1e9 ? best : m_scratch.back();
}

void JitterBuffer::updateTarget() {
    if (m_relativeDelays.empty())
        return;
    // FEC needs the packet after a lost one to be there when the lost one is due.
    const Time fecRoom =
        m_missingInHistory >= m_settings.lossyPackets ? Time(m_settings.packetPeriod) : Time{0};
    const Time wanted =
        std::clamp<Time>(rOptimalDelay() + fecRoom, m_settings.minTarget, m_settings.maxTarget);
    if (wanted >= m_target)
        m_target = wanted;
    else
        m_target = std::max(wanted, m_target - m_settings.decreasePerPacket);
}

JitterBuffer::Time JitterBuffer::playoutTime(std::int64_t packet) const {
    const Time base = m_base.minimum().value_or(Time{0});
    return Time(m_settings.packetPeriod) * packet + base + m_target;
}

void JitterBuffer::markMissing(std::int64_t packet) {
    m_missing.insert(packet);
    ++m_missingTotal;
    if (std::int64_t(m_missing.size()) > kMissingMemory)
        m_missing.erase(m_missing.begin());
}

void JitterBuffer::noteLoss(bool missing) {
    m_outcomes.push_back(missing ? Outcome::Missing : Outcome::Played);
    m_missingInHistory += missing ? 1 : 0;
    if (m_outcomes.size() > m_settings.lossHistoryPackets) {
        m_missingInHistory -= m_outcomes.front() == Outcome::Missing ? 1 : 0;
        m_outcomes.pop_front();
    }
}

double JitterBuffer::recentLossPercent() const {
    return m_outcomes.empty() ? 0.0
                              : 100.0 * double(m_missingInHistory) / double(m_outcomes.size());
}

// A gap counts as a pause: concealment would have played there anyway.
PauseDetector::Quietness JitterBuffer::quietness(std::int64_t packet) const {
    const auto it = m_packets.find(packet);
    return it == m_packets.end() ? PauseDetector::Quietness::Pause
                                 : m_pauses.classify(std::size_t(it->second.size()));
}

PlayoutStep JitterBuffer::pull(Time now) {
    updateTarget();
    const Time period = m_settings.packetPeriod;
    if (m_state == State::Waiting) {
        if (m_packets.empty() || now < playoutTime(m_packets.begin()->first))
            return {};
        m_state = State::Playing;
        m_next = m_playStart = m_packets.begin()->first;
    }

    // How late the next packet starts against its schedule; anything in [0, period) is on time.
    Time behind = now - playoutTime(m_next);
    const Time urgent = 2 * period;
    // Ahead of the target (it rose): stretch at a pause or at a gap, else play on and let the
    // next pause take up the difference.
    using Quietness = PauseDetector::Quietness;
    if (behind < Time{0} && quietness(m_next) == Quietness::Pause) {
        m_stats.stretchedMs += m_settings.packetPeriod;
        return {PlayoutAction::Conceal, {}, -1};
    }
    // Behind it (a burst, or a target that fell): drop packets at a pause, or under steady noise
    // at one of the quietest (stretching there too cost PESQ for no delay on `hostile` traces).
    while (behind >= period && (behind >= urgent || quietness(m_next) != Quietness::Speech)) {
        if (m_packets.erase(m_next) == 1) {
            m_stats.droppedMs += m_settings.packetPeriod;
        } else {
            markMissing(m_next);
            noteLoss(true);
        }
        ++m_next;
        behind -= period;
    }

    PlayoutStep step;
    step.packet = m_next;
    if (auto it = m_packets.find(m_next); it != m_packets.end()) {
        step.action = PlayoutAction::Decode;
        step.data = std::move(it->second);
        m_packets.erase(it);
        ++m_stats.packetsDecoded;
        noteLoss(false);
    } else {
        markMissing(m_next);
        noteLoss(true);
        const auto next = m_packets.find(m_next + 1);
        if (next != m_packets.end() &&
            opusPacketHasFec({reinterpret_cast<const std::uint8_t*>(next->second.constData()),
                              std::size_t(next->second.size())})) {
            step.action = PlayoutAction::DecodeFec;
            step.data = next->second;
            ++m_stats.fecRecovered;
        } else {
            step.action = PlayoutAction::Conceal;
            m_stats.concealedMs += m_settings.packetPeriod;
        }
    }
    ++m_next;
    return step;
}

JitterBufferStats JitterBuffer::stats() const {
    JitterBufferStats s = m_stats;
    s.targetDelay = m_target;
    const auto ahead = std::count_if(m_packets.begin(), m_packets.end(),
                                     [this](const auto& p) { return p.first >= m_next; });
    s.currentLevel = Time(m_settings.packetPeriod) * ahead;
    s.lost = m_missingTotal - std::min(m_missingTotal, m_lateOfMissing);
    return s;
}

} // namespace onionvoice::media
