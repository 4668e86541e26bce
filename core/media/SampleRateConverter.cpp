// speexdsp resampler wrapper (see SampleRateConverter.h).
#include "media/SampleRateConverter.h"

#include <speex/speex_resampler.h>

namespace onionvoice::media {
namespace {

// Quality 5 of 10: speexdsp's default for "desktop" use; audibly transparent for speech.
constexpr int kQuality = 5;

} // namespace

void SampleRateConverter::Deleter::operator()(SpeexResamplerState_* s) const {
    speex_resampler_destroy(s);
}

std::unique_ptr<SampleRateConverter>
SampleRateConverter::create(int fromRate, int toRate, std::size_t maxInput, QString* error) {
    int status = RESAMPLER_ERR_SUCCESS;
    std::unique_ptr<SpeexResamplerState_, Deleter> state(
        speex_resampler_init(1, spx_uint32_t(fromRate), spx_uint32_t(toRate), kQuality, &status));
    if (!state || status != RESAMPLER_ERR_SUCCESS) {
        *error = QStringLiteral("cannot resample %1 Hz to %2 Hz: %3")
                     .arg(fromRate)
                     .arg(toRate)
                     .arg(QString::fromUtf8(speex_resampler_strerror(status)));
        return nullptr;
    }
    speex_resampler_skip_zeros(state.get());
    const std::size_t maxOutput = maxInput * std::size_t(toRate) / std::size_t(fromRate) + 16;
    return std::unique_ptr<SampleRateConverter>(
        new SampleRateConverter(std::move(state), maxInput, maxOutput));
}

SampleRateConverter::SampleRateConverter(std::unique_ptr<SpeexResamplerState_, Deleter> state,
                                         std::size_t maxInput, std::size_t maxOutput)
    : m_state(std::move(state))
    , m_maxInput(maxInput)
    , m_output(maxOutput) {}

SampleRateConverter::~SampleRateConverter() = default;

std::span<const float> SampleRateConverter::convert(std::span<const float> input) {
    spx_uint32_t in = spx_uint32_t(std::min(input.size(), m_maxInput));
    spx_uint32_t out = spx_uint32_t(m_output.size());
    speex_resampler_process_float(m_state.get(), 0, input.data(), &in, m_output.data(), &out);
    return {m_output.data(), out};
}

} // namespace onionvoice::media
