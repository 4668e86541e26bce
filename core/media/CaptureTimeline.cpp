// Capture kept on the clock (see CaptureTimeline.h).
#include "media/CaptureTimeline.h"

#include <algorithm>

namespace onionvoice::media {
namespace {

// A device catches up on missed time at once (its thread runs again); frames that come later at
// real pace are new audio however much silence was sent.
constexpr std::chrono::seconds kCatchUpWindow{1};

} // namespace

CaptureTimeline::CaptureTimeline(std::chrono::milliseconds stallAfter)
    : m_stallAfter(stallAfter) {}

void CaptureTimeline::start(Time now) {
    *this = CaptureTimeline(m_stallAfter);
    m_lastCapture = now;
}

bool CaptureTimeline::takeFrame(Time now) {
    if (m_silenceUntil) {
        m_silenceUntil.reset();
        m_resumedAt = now;
        m_framesSinceResume = 0;
    }
    m_lastCapture = now;
    if (now - m_resumedAt > kCatchUpWindow)
        m_owedFrames = 0;
    // Real pace, with as much slack as a device may buffer before it counts as stalled.
    const bool beyondRealTime =
        Time(kFrameDuration) * std::int64_t(m_framesSinceResume) > now - m_resumedAt + m_stallAfter;
    if (m_owedFrames > 0 && beyondRealTime) {
        --m_owedFrames;
        return false;
    }
    ++m_framesSinceResume;
    return true;
}

std::uint64_t CaptureTimeline::lostSamples(std::uint64_t samples) {
    const std::uint64_t paid = std::min<std::uint64_t>(samples / kFrameSamples, m_owedFrames);
    m_owedFrames -= paid;
    return samples - paid * kFrameSamples;
}

CaptureTimeline::Silence CaptureTimeline::silenceDue(Time now) {
    if (now - m_lastCapture < m_stallAfter)
        return {};
    if (!m_silenceUntil)
        m_silenceUntil = m_lastCapture;
    if (now < *m_silenceUntil + kFrameDuration)
        return {};
    const auto due = std::uint64_t((now - *m_silenceUntil) / Time(kFrameDuration));
    *m_silenceUntil += Time(kFrameDuration) * std::int64_t(due);
    // A device catching up pays back skipped frames as it does silence: both are numbered.
    m_owedFrames += due;
    const Silence silence{std::size_t(std::min<std::uint64_t>(due, kMaxSilenceBurst)),
                          due - std::min<std::uint64_t>(due, kMaxSilenceBurst)};
    m_silenceSent += kFrameDuration * std::int64_t(silence.frames);
    return silence;
}

} // namespace onionvoice::media
