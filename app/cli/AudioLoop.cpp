// The audio-loop run (see AudioLoop.h).
#include "AudioLoop.h"

#include "media/AudioFormat.h"
#include "media/CallQuality.h"
#include "media/VoiceReceiver.h"
#include "media/VoiceSender.h"
#include "media/WavFileBackend.h"

#include <cmath>
#include <map>

namespace onionvoice::cli {

using namespace std::chrono_literals;

namespace {

// Pulls happen mid-period so that arrivals and pulls never tie on the simulated clock.
constexpr Time kPullPhase = 10ms;
// A run ends at the latest this long after the last packet was sent.
constexpr Time kDrainLimit = 30s;

} // namespace

std::optional<AudioLoopResult> runAudioLoop(const AudioLoopConfig& config, LoopNetwork& network,
                                            QString* error) {
    auto source = media::WavFileSource::open(config.input, error);
    if (!source)
        return std::nullopt;
    auto sender = media::VoiceSender::create(config.encoder, config.processing, error);
    if (!sender)
        return std::nullopt;
    media::JitterBufferSettings jitter = config.jitter;
    jitter.packetPeriod = config.encoder.packetPeriod;
    if (const auto fastest = network.fastestPath())
        jitter.pathDelay = std::chrono::duration_cast<std::chrono::milliseconds>(*fastest);
    auto receiver = media::VoiceReceiver::create(jitter, error);
    if (!receiver)
        return std::nullopt;
    auto sink = media::WavWriter::open(config.output, media::kSampleRate, error);
    if (!sink)
        return std::nullopt;

    const auto framesPerPacket = std::int64_t(config.encoder.packetPeriod / media::kFrameDuration);
    const auto inputFrames =
        std::int64_t((source->totalSamples() + media::kFrameSamples - 1) / media::kFrameSamples);
    // Whole packets only: the last one is padded with silence.
    const std::int64_t framesToSend =
        (inputFrames + framesPerPacket - 1) / framesPerPacket * framesPerPacket;
    const Time lookahead = media::MouthToEarBudget{}.codecLookahead;

    AudioLoopResult result;
    result.inputSeconds = double(source->totalSamples()) / media::kSampleRate;
    std::multimap<Time, std::pair<std::uint32_t, QByteArray>> inFlight;
    std::vector<float> captured(media::kFrameSamples);
    std::vector<float> played(media::kFrameSamples);
    const std::vector<float> silence(media::kFrameSamples, 0.0f);
    std::uint32_t sequence = 0;
    const Time sendEnd = Time(media::kFrameDuration) * framesToSend;

    for (std::int64_t tick = 0;; ++tick) {
        const Time periodStart = Time(media::kFrameDuration) * tick;
        if (tick < framesToSend) {
            source->read(captured);
            // Nothing plays on the sending side's speaker in this one-way loop.
            sender->playbackReference(silence);
            if (auto packet = sender->pushFrame(captured, media::Microphone::Live)) {
                const Time sent = periodStart + media::kFrameDuration;
                if (auto arrival = network.arrival(sequence, sent))
                    inFlight.emplace(*arrival, std::make_pair(sequence, *packet));
                else
                    ++result.packetsLostInNetwork;
                ++sequence;
                ++result.packetsSent;
            }
            ++result.framesSent;
        }

        const Time now = periodStart + kPullPhase;
        while (!inFlight.empty() && inFlight.begin()->first <= now) {
            const auto& [arrival, entry] = *inFlight.begin();
            receiver->push(entry.first, arrival,
                           {reinterpret_cast<const std::uint8_t*>(entry.second.constData()),
                            std::size_t(entry.second.size())});
            inFlight.erase(inFlight.begin());
        }
        const media::PlayoutSlice slice = receiver->pull(now, played);
        if (!sink->append(played)) {
            *error = QStringLiteral("cannot write %1").arg(config.output);
            return std::nullopt;
        }
        if (slice.action == media::PlayoutAction::Decode ||
            slice.action == media::PlayoutAction::DecodeFec) {
            const Time captureStart =
                Time(config.encoder.packetPeriod) * slice.packet + slice.offset;
            result.mouthToEarMs.push_back(double((now - captureStart + lookahead).count()) /
                                          1000.0);
        }
        // Live loss statistics steer the encoder's FEC once a second (in a call they travel back
        // in the other direction's records).
        if (tick % 50 == 49)
            sender->setMeasuredLossPercent(receiver->buffer().recentLossPercent());
        // Playout past the last packet ends the run too: when that packet was lost or dropped
        // late, waiting on would count packets that were never sent as lost.
        const bool lastFrame =
            tick >= framesToSend &&
            (slice.packet >= std::int64_t(sequence) ||
             (slice.packet == std::int64_t(sequence) - 1 &&
              slice.offset + media::kFrameDuration >= config.encoder.packetPeriod));
        if (lastFrame || periodStart > sendEnd + kDrainLimit)
            break;
    }
    result.jitter = receiver->buffer().stats();
    if (!sink->finish(error))
        return std::nullopt;
    return result;
}

} // namespace onionvoice::cli
