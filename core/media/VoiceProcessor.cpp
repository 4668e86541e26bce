// speexdsp echo cancellation, noise suppression and gain control (see VoiceProcessor.h).
#include "media/VoiceProcessor.h"

#include "media/AudioFormat.h"

#include <algorithm>
#include <cmath>
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>

namespace onionvoice::media {
namespace {

void toShorts(std::span<const float> in, std::vector<short>& out) {
    for (std::size_t i = 0; i < in.size(); ++i)
        out[i] = static_cast<short>(std::lround(std::clamp(in[i], -1.0f, 1.0f) * 32767.0f));
}

} // namespace

void VoiceProcessor::EchoDeleter::operator()(SpeexEchoState_* s) const {
    speex_echo_state_destroy(s);
}

void VoiceProcessor::PreprocessDeleter::operator()(SpeexPreprocessState_* s) const {
    speex_preprocess_state_destroy(s);
}

VoiceProcessor::VoiceProcessor(const VoiceProcessingSettings& settings, std::size_t frameSamples)
    : m_settings(settings)
    , m_capture(frameSamples)
    , m_playback(frameSamples)
    , m_cleaned(frameSamples) {}

VoiceProcessor::~VoiceProcessor() = default;

std::unique_ptr<VoiceProcessor> VoiceProcessor::create(const VoiceProcessingSettings& settings,
                                                       int sampleRate, QString* error) {
    if (sampleRate < 8000 || sampleRate > kSampleRate || sampleRate % 50 != 0) {
        *error = QStringLiteral("voice processing cannot run at %1 Hz").arg(sampleRate);
        return nullptr;
    }
    const int frame = sampleRate / 50;
    std::unique_ptr<VoiceProcessor> p(new VoiceProcessor(settings, std::size_t(frame)));
    int rate = sampleRate;
    if (settings.echoCancellation == Switch::On) {
        const int tail = static_cast<int>(settings.echoTail.count() * sampleRate / 1000);
        p->m_echo.reset(speex_echo_state_init(frame, tail));
        if (!p->m_echo) {
            *error = QStringLiteral("speex echo canceller could not be created");
            return nullptr;
        }
        speex_echo_ctl(p->m_echo.get(), SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    }
    const bool preprocess = settings.noiseSuppression == Switch::On ||
                            settings.gainControl == Switch::On ||
                            settings.echoCancellation == Switch::On;
    if (preprocess) {
        p->m_preprocess.reset(speex_preprocess_state_init(frame, rate));
        if (!p->m_preprocess) {
            *error = QStringLiteral("speex preprocessor could not be created");
            return nullptr;
        }
        SpeexPreprocessState* pre = p->m_preprocess.get();
        int denoise = settings.noiseSuppression == Switch::On ? 1 : 0;
        int agc = settings.gainControl == Switch::On ? 1 : 0;
        speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_DENOISE, &denoise);
        if (speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_AGC, &agc) != 0 && agc) {
            *error = QStringLiteral("this speexdsp build has no automatic gain control");
            return nullptr;
        }
        if (agc) {
            // Normal speaking level (about -20 dBFS RMS) without pumping background noise.
            float level = 8000.0f;
            int maxGain = 20;
            speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level);
            speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, &maxGain);
        }
        if (p->m_echo)
            speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_ECHO_STATE, p->m_echo.get());
    }
    return p;
}

void VoiceProcessor::processPlayback(std::span<const float> frame) {
    if (!m_echo || frame.size() != m_playback.size())
        return;
    toShorts(frame, m_playback);
    speex_echo_playback(m_echo.get(), m_playback.data());
}

void VoiceProcessor::processCapture(std::span<float> frame) {
    if (frame.size() != m_capture.size() || (!m_echo && !m_preprocess))
        return;
    toShorts(frame, m_capture);
    short* samples = m_capture.data();
    if (m_echo) {
        speex_echo_capture(m_echo.get(), m_capture.data(), m_cleaned.data());
        samples = m_cleaned.data();
    }
    if (m_preprocess)
        speex_preprocess_run(m_preprocess.get(), samples);
    for (std::size_t i = 0; i < frame.size(); ++i)
        frame[i] = static_cast<float>(samples[i]) / 32768.0f;
}

} // namespace onionvoice::media
