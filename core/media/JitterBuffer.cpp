// Adaptive jitter buffer (see JitterBuffer.h for the design).
#include "media/JitterBuffer.h"

#include "media/VoiceCodec.h"

#include <algorithm>
#include <cmath>

namespace onionvoice::media {
namespace {

// How many recently missing frames are remembered to classify later arrivals.
constexpr std::size_t kMissingMemory = 2000;
// Smoothing of recentLossPercent(): about one second of 20 ms frames.
constexpr double kLossSmoothing = 1.0 / 50.0;

} // namespace

JitterBuffer::JitterBuffer(const JitterBufferSettings& settings)
    : m_settings(settings)
    , m_target(settings.minTarget) {
    m_scratch.reserve(settings.delayHistoryPackets);
}

std::int64_t JitterBuffer::unwrap(std::uint32_t sequence) {
    if (!m_haveSequence) {
        m_haveSequence = true;
        m_lastSequence = sequence;
        m_lastUnwrapped = sequence;
        return m_lastUnwrapped;
    }
    const auto diff = static_cast<std::int32_t>(sequence - m_lastSequence);
    const std::int64_t unwrapped = m_lastUnwrapped + diff;
    if (diff > 0) {
        m_lastSequence = sequence;
        m_lastUnwrapped = unwrapped;
    }
    return unwrapped;
}

void JitterBuffer::push(std::uint32_t sequence, Time arrival,
                        std::span<const std::uint8_t> packet) {
    std::vector<QByteArray> frames = splitOpusPacket(packet);
    if (frames.empty()) {
        ++m_stats.malformed;
        return;
    }
    const std::int64_t first = unwrap(sequence) * m_settings.framesPerPacket;
    const bool duplicate =
        m_frames.contains(first) ||
        (m_state == State::Playing && first < m_nextFrame && !m_missing.contains(first) &&
         first >= m_nextFrame - std::int64_t(kMissingMemory));
    if (duplicate) {
        ++m_stats.duplicates;
        return;
    }
    ++m_stats.packetsReceived;
    recordDelay(first, arrival);

    const auto frameCount = std::min<std::size_t>(frames.size(), m_settings.framesPerPacket);
    for (std::size_t i = 0; i < frameCount; ++i) {
        const std::int64_t index = first + std::int64_t(i);
        if (m_state == State::Playing && index < m_nextFrame) {
            if (m_missing.erase(index) == 1 || index < m_nextFrame - std::int64_t(kMissingMemory)) {
                ++m_stats.late;
                ++m_lateOfMissing;
            }
            continue;
        }
        if (m_state == State::Playing &&
            index >= m_nextFrame + std::int64_t(m_settings.maxBufferedFrames)) {
            m_stats.droppedMs += m_settings.frameDuration;
            continue;
        }
        m_frames.emplace(index, std::move(frames[i]));
    }
    // Before playout starts a bogus sequence could grow the map without bound.
    while (m_frames.size() > m_settings.maxBufferedFrames) {
        m_frames.erase(m_frames.begin());
        m_stats.droppedMs += m_settings.frameDuration;
    }
}

void JitterBuffer::recordDelay(std::int64_t firstFrame, Time arrival) {
    const Time delay = arrival - Time(m_settings.frameDuration) * firstFrame;
    while (!m_minWindow.empty() && m_minWindow.back().delay >= delay)
        m_minWindow.pop_back();
    m_minWindow.push_back({arrival, delay});
    while (m_minWindow.front().arrival < arrival - m_settings.baseWindow)
        m_minWindow.pop_front();
    m_relativeDelays.push_back(delay - m_minWindow.front().delay);
    if (m_relativeDelays.size() > m_settings.delayHistoryPackets)
        m_relativeDelays.pop_front();
}

void JitterBuffer::updateTarget() {
    if (m_relativeDelays.empty())
        return;
    m_scratch.assign(m_relativeDelays.begin(), m_relativeDelays.end());
    const auto rank = static_cast<std::size_t>(
        std::ceil(m_settings.delayQuantile * double(m_scratch.size())) - 1.0);
    const auto nth = m_scratch.begin() + std::min(rank, m_scratch.size() - 1);
    std::nth_element(m_scratch.begin(), nth, m_scratch.end());
    const Time wanted = std::clamp<Time>(*nth, m_settings.minTarget, m_settings.maxTarget);
    if (wanted >= m_target)
        m_target = wanted;
    else
        m_target = std::max(wanted, m_target - m_settings.decreasePerFrame);
}

JitterBuffer::Time JitterBuffer::playoutTime(std::int64_t frame) const {
    const Time base = m_minWindow.empty() ? Time{0} : m_minWindow.front().delay;
    return Time(m_settings.frameDuration) * frame + base + m_target;
}

void JitterBuffer::markMissing(std::int64_t frame) {
    m_missing.insert(frame);
    ++m_missingTotal;
    if (m_missing.size() > kMissingMemory)
        m_missing.erase(m_missing.begin());
}

void JitterBuffer::noteLoss(bool missing) {
    m_recentLoss += kLossSmoothing * ((missing ? 1.0 : 0.0) - m_recentLoss);
}

PlayoutStep JitterBuffer::pull(Time now) {
    updateTarget();
    const Time frame = m_settings.frameDuration;
    if (m_state == State::Waiting) {
        if (m_frames.empty() || now < playoutTime(m_frames.begin()->first))
            return {};
        m_state = State::Playing;
        m_nextFrame = m_frames.begin()->first;
    }

    const Time base = m_minWindow.front().delay;
    const auto ideal = static_cast<std::int64_t>(
        std::floor(double((now - base - m_target).count()) / double(frame.count())));
    const std::int64_t lag = ideal - m_nextFrame;
    if (lag >= 2) {
        // Behind: skip straight to one frame behind the ideal position.
        for (std::int64_t skip = 0; skip < lag - 1; ++skip, ++m_nextFrame) {
            if (m_frames.erase(m_nextFrame) == 1) {
                m_stats.droppedMs += m_settings.frameDuration;
            } else {
                markMissing(m_nextFrame);
                noteLoss(true);
            }
        }
    } else if (lag <= -2) {
        m_stats.stretchedMs += m_settings.frameDuration;
        return {PlayoutAction::Conceal, {}, -1};
    }

    PlayoutStep step;
    step.frame = m_nextFrame;
    if (auto it = m_frames.find(m_nextFrame); it != m_frames.end()) {
        step.action = PlayoutAction::Decode;
        step.data = std::move(it->second);
        m_frames.erase(it);
        ++m_stats.framesDecoded;
        noteLoss(false);
    } else {
        markMissing(m_nextFrame);
        noteLoss(true);
        if (auto next = m_frames.find(m_nextFrame + 1); next != m_frames.end()) {
            step.action = PlayoutAction::DecodeFec;
            step.data = next->second;
            ++m_stats.fecRecovered;
        } else {
            step.action = PlayoutAction::Conceal;
            m_stats.concealedMs += m_settings.frameDuration;
        }
    }
    ++m_nextFrame;
    return step;
}

JitterBufferStats JitterBuffer::stats() const {
    JitterBufferStats s = m_stats;
    s.targetDelay = m_target;
    const auto ahead = std::count_if(m_frames.begin(), m_frames.end(),
                                     [this](const auto& f) { return f.first >= m_nextFrame; });
    s.currentLevel = Time(m_settings.frameDuration) * ahead;
    s.lost = m_missingTotal - std::min(m_missingTotal, m_lateOfMissing);
    return s;
}

} // namespace onionvoice::media
