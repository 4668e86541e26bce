// The echo contact's audio device: it "says" a short greeting, then speaks back whatever it hears,
// so a caller can check their microphone, speaker and the whole path through Tor in one call.
// Paced in real time like a sound card, without hardware.
#pragma once

#include "media/AudioBackend.h"
#include "media/PacedDevice.h"

#include <memory>
#include <vector>

namespace onionvoice::cli {

// The greeting at 48 kHz: speech from espeak-ng when it is installed, then a short tone that
// marks where the echo begins; the tone alone otherwise. Made at run time: no audio file ships.
std::vector<float> makeGreeting();

class EchoBackend : public media::AudioBackend {
public:
    explicit EchoBackend(std::shared_ptr<const std::vector<float>> greeting);
    ~EchoBackend() override;

    bool start(media::AudioRings& rings, QString* error) override;
    void stop() override;
    media::AudioLatency latency() const override { return {}; }

private:
    // Both run on the device thread, so the echo line needs no synchronisation.
    void capture(std::span<float> frame);
    void playback(std::span<const float> frame);

    std::shared_ptr<const std::vector<float>> greeting_;
    std::size_t greetingPosition_ = 0;
    std::vector<float> echo_; // ring of heard samples, allocated once
    std::size_t echoRead_ = 0, echoFill_ = 0;
    media::PacedDevice device_;
};

} // namespace onionvoice::cli
