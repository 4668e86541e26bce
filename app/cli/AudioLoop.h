// The audio-loop quality tool's engine run: speech from a WAV file goes through the real sending
// half (voice processing, Opus), a LoopNetwork, and the real receiving half (jitter buffer, Opus
// decoder) into a WAV file, on a simulated clock so a run is deterministic and faster than real
// time.
#pragma once

#include "LoopNetwork.h"
#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"
#include "media/VoiceProcessor.h"

#include <QString>
#include <optional>
#include <vector>

namespace onionvoice::cli {

struct AudioLoopConfig {
    QString input;
    QString output;
    media::EncoderSettings encoder;
    media::VoiceProcessingSettings processing;
    media::JitterBufferSettings jitter;
};

struct AudioLoopResult {
    // One entry per 20 ms frame played from received data: when its first sample plays minus
    // when it was captured, plus the codec's lookahead, in ms (exact to the microsecond; the
    // loop's output device asks for audio every 20 ms).
    std::vector<double> mouthToEarMs;
    media::JitterBufferStats jitter;
    std::uint64_t framesSent = 0;
    std::uint64_t packetsSent = 0;
    std::uint64_t packetsLostInNetwork = 0;
    double inputSeconds = 0.0;
};

std::optional<AudioLoopResult> runAudioLoop(const AudioLoopConfig& config, LoopNetwork& network,
                                            QString* error);

} // namespace onionvoice::cli
