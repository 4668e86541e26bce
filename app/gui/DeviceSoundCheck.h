// The sound test on the real devices: meters the microphone, records a few seconds and plays
// them back, through LocalAudio on the GUI thread.
#pragma once

#include "LocalAudio.h"
#include "TraceLoopback.h"
#include "ui/SoundTestDialog.h"

#include <vector>

namespace onionvoice::gui {

class DeviceSoundCheck : public ui::SoundCheck {
    Q_OBJECT
public:
    DeviceSoundCheck(QString input, QString output, QObject* parent = nullptr);

    bool start(QString* error) override;
    void stop() override;
    double takeLevel() override;
    void recordAndPlayBack(std::chrono::seconds duration) override;
    void recordThroughTorPath(std::chrono::seconds duration, const QString& profile) override;

private:
    void pump(media::AudioRings& rings);
    void setPhase(Phase phase);
    void recorded();
    void playBack(std::vector<float> samples);

    QString input_, output_;
    LocalAudio audio_;
    Phase phase_ = Phase::Stopped;
    double peak_ = 0;
    std::vector<float> recording_;
    std::size_t wanted_ = 0;
    std::size_t played_ = 0;
    QString torPathProfile_; // empty: play back the recording itself
    TraceLoopback loopback_;
    int seed_ = 0;
};

} // namespace onionvoice::gui
