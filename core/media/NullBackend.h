// Null audio I/O: captures silence and discards playback at real-time pace, for calls without
// sound hardware and for tests.
#pragma once

#include "media/AudioBackend.h"
#include "media/PacedDevice.h"

namespace onionvoice::media {

class NullBackend : public AudioBackend {
public:
    explicit NullBackend(Pacing pacing = Pacing::RealTime);
    ~NullBackend() override;

    bool start(AudioRings& rings, QString* error) override;
    void stop() override;
    AudioLatency latency() const override { return {}; }

private:
    PacedDevice m_device;
};

} // namespace onionvoice::media
