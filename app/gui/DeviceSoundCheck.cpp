// The sound test on the real devices.
#include "DeviceSoundCheck.h"

#include "media/AudioFormat.h"

#include <cmath>

namespace onionvoice::gui {

DeviceSoundCheck::DeviceSoundCheck(QString input, QString output, QObject* parent)
    : ui::SoundCheck(parent)
    , input_(std::move(input))
    , output_(std::move(output)) {
    connect(&loopback_, &TraceLoopback::finished, this,
            [this](const std::vector<float>& heard, const QString& summary) {
                emit report(summary);
                playBack(heard);
            });
    connect(&loopback_, &TraceLoopback::failed, this, [this](const QString& reason) {
        emit report(reason);
        setPhase(Phase::Listening);
    });
}

bool DeviceSoundCheck::start(QString* error) {
    if (!audio_.start(
            input_, output_, [this](media::AudioRings& r) { pump(r); }, error))
        return false;
    setPhase(Phase::Listening);
    return true;
}

void DeviceSoundCheck::stop() {
    audio_.stop();
    setPhase(Phase::Stopped);
}

double DeviceSoundCheck::takeLevel() {
    return std::exchange(peak_, 0.0);
}

void DeviceSoundCheck::recordAndPlayBack(std::chrono::seconds duration) {
    if (phase_ != Phase::Listening)
        return;
    torPathProfile_.clear();
    recording_.clear();
    wanted_ = std::size_t(duration.count()) * media::kSampleRate;
    recording_.reserve(wanted_);
    setPhase(Phase::Recording);
}

void DeviceSoundCheck::recordThroughTorPath(std::chrono::seconds duration, const QString& profile) {
    if (phase_ != Phase::Listening)
        return;
    recordAndPlayBack(duration);
    torPathProfile_ = profile;
}

void DeviceSoundCheck::recorded() {
    if (torPathProfile_.isEmpty()) {
        playBack(std::move(recording_));
        return;
    }
    setPhase(Phase::Processing);
    loopback_.run(recording_, torPathProfile_, ++seed_);
}

void DeviceSoundCheck::playBack(std::vector<float> samples) {
    recording_ = std::move(samples);
    played_ = 0;
    setPhase(Phase::Playing);
}

void DeviceSoundCheck::setPhase(Phase phase) {
    if (phase == phase_)
        return;
    phase_ = phase;
    emit phaseChanged(phase);
}

void DeviceSoundCheck::pump(media::AudioRings& rings) {
    std::vector<float> captured(rings.capture.readable());
    rings.capture.read(captured);
    for (float s : captured)
        peak_ = std::max(peak_, double(std::fabs(s)));
    if (phase_ == Phase::Recording) {
        const std::size_t take = std::min(captured.size(), wanted_ - recording_.size());
        recording_.insert(recording_.end(), captured.begin(), captured.begin() + long(take));
        if (recording_.size() == wanted_)
            recorded();
    }
    if (phase_ == Phase::Playing) {
        // Keep about 100 ms queued: the device plays it at its own pace.
        const std::size_t room = media::kSampleRate / 10;
        const std::size_t queued = rings.playback.readable();
        if (queued < room) {
            const std::size_t n = std::min(room - queued, recording_.size() - played_);
            played_ += rings.playback.write(std::span<const float>(recording_).subspan(played_, n));
        }
        if (played_ == recording_.size() && rings.playback.readable() == 0)
            setPhase(Phase::Listening);
    }
}

} // namespace onionvoice::gui
