// Voice processing on the capture path with speexdsp: acoustic echo cancellation against what
// the speaker plays, noise suppression and automatic gain control, each switchable and on by
// default. Runs on the engine thread, one 20 ms frame at a time, at the rate given to create().
#pragma once

#include <QString>
#include <chrono>
#include <memory>
#include <span>
#include <vector>

struct SpeexEchoState_;
struct SpeexPreprocessState_;

namespace onionvoice::media {

enum class Switch { Off, On };

struct VoiceProcessingSettings {
    Switch echoCancellation = Switch::On;
    Switch noiseSuppression = Switch::On;
    Switch gainControl = Switch::On;
    std::chrono::milliseconds echoTail{200}; // longest echo path the canceller models
};

class VoiceProcessor {
public:
    static std::unique_ptr<VoiceProcessor> create(const VoiceProcessingSettings& settings,
                                                  int sampleRate, QString* error);
    ~VoiceProcessor();

    // The frame the speaker is about to play (frameSamples()), the echo canceller's reference.
    // speexdsp holds three at most: one before each processCapture() keeps them paired.
    void processPlayback(std::span<const float> frame);
    // Cleans one captured frame (frameSamples()) in place.
    void processCapture(std::span<float> frame);
    std::size_t frameSamples() const { return m_capture.size(); }

    const VoiceProcessingSettings& settings() const { return m_settings; }

private:
    struct EchoDeleter {
        void operator()(SpeexEchoState_* s) const;
    };
    struct PreprocessDeleter {
        void operator()(SpeexPreprocessState_* s) const;
    };
    VoiceProcessor(const VoiceProcessingSettings& settings, std::size_t frameSamples);

    VoiceProcessingSettings m_settings;
    std::unique_ptr<SpeexEchoState_, EchoDeleter> m_echo;
    std::unique_ptr<SpeexPreprocessState_, PreprocessDeleter> m_preprocess;
    std::vector<short> m_capture;
    std::vector<short> m_playback;
    std::vector<short> m_cleaned;
};

} // namespace onionvoice::media
