// Streaming sample-rate conversion of mono float audio with the speexdsp resampler. The output
// of a call is whatever the filter has ready, so callers queue it rather than expect a fixed
// count per call.
#pragma once

#include <QString>
#include <memory>
#include <span>
#include <vector>

struct SpeexResamplerState_;

namespace onionvoice::media {

class SampleRateConverter {
public:
    // maxInput bounds the samples passed to one convert() call; buffers are sized once here.
    static std::unique_ptr<SampleRateConverter> create(int fromRate, int toRate,
                                                       std::size_t maxInput, QString* error);
    ~SampleRateConverter();

    // Returns the converted samples, valid until the next call.
    std::span<const float> convert(std::span<const float> input);

private:
    struct Deleter {
        void operator()(SpeexResamplerState_* s) const;
    };
    SampleRateConverter(std::unique_ptr<SpeexResamplerState_, Deleter> state, std::size_t maxInput,
                        std::size_t maxOutput);

    std::unique_ptr<SpeexResamplerState_, Deleter> m_state;
    std::size_t m_maxInput;
    std::vector<float> m_output;
};

} // namespace onionvoice::media
