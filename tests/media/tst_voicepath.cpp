// Unit tests of the pieces around the codec, all with the real libraries: the voice processor
// (speexdsp echo cancellation and noise suppression), the sending and receiving halves of the
// audio path, and the WAV and null backends driven as fast as the engine drains them.
#include "media/AudioFormat.h"
#include "media/NullBackend.h"
#include "media/VoiceProcessor.h"
#include "media/VoiceReceiver.h"
#include "media/VoiceSender.h"
#include "media/WavFileBackend.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <numbers>
#include <random>
#include <thread>

using namespace onionvoice::media;
using namespace std::chrono_literals;

namespace {

double energy(std::span<const float> s) {
    double e = 0.0;
    for (float v : s)
        e += double(v) * v;
    return e / double(std::max<std::size_t>(s.size(), 1));
}

// Speech-like far-end signal: noise shaped by a syllable envelope.
std::vector<float> farEnd(std::size_t samples, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.0f, 0.1f);
    std::vector<float> out(samples);
    float low = 0.0f;
    for (std::size_t i = 0; i < samples; ++i) {
        low = 0.7f * low + noise(rng); // a little low-pass colouring
        const double t = double(i) / kSampleRate;
        out[i] = float(low * (0.6 + 0.4 * std::sin(2 * std::numbers::pi * 2.5 * t)));
    }
    return out;
}

VoiceProcessingSettings only(Switch echo, Switch noise, Switch gain) {
    VoiceProcessingSettings s;
    s.echoCancellation = echo;
    s.noiseSuppression = noise;
    s.gainControl = gain;
    return s;
}

} // namespace

class TestVoicePath : public QObject {
    Q_OBJECT
private slots:
    void echoCancellerRemovesTheSpeakerFromTheMicrophone() {
        QString error;
        auto processor =
            VoiceProcessor::create(only(Switch::On, Switch::Off, Switch::Off), kSampleRate, &error);
        QVERIFY2(processor, qPrintable(error));
        // The engine hands a frame to the playback ring two frames before the device plays it
        // (the delay speexdsp's playback/capture API assumes); the microphone then hears it 10 ms
        // later at half amplitude, and nothing else.
        const std::size_t frames = 500; // 10 s
        const auto speaker = farEnd(frames * kFrameSamples, 1);
        const std::size_t delay = 2 * kFrameSamples + 480;
        double before = 0.0, after = 0.0;
        std::vector<float> mic(kFrameSamples);
        for (std::size_t f = 0; f < frames; ++f) {
            const std::span<const float> played(speaker.data() + f * kFrameSamples, kFrameSamples);
            for (std::size_t i = 0; i < kFrameSamples; ++i) {
                const std::size_t at = f * kFrameSamples + i;
                mic[i] = at >= delay ? 0.5f * speaker[at - delay] : 0.0f;
            }
            processor->processPlayback(played);
            const double in = energy(mic);
            processor->processCapture(mic);
            if (f >= 250) { // after five seconds of adaptation
                before += in;
                after += energy(mic);
            }
        }
        const double erleDb = 10 * std::log10(before / std::max(after, 1e-12));
        QVERIFY2(erleDb > 15, qPrintable(QString::number(erleDb)));
    }

    void noiseSuppressionLowersSteadyNoise() {
        QString error;
        auto processor =
            VoiceProcessor::create(only(Switch::Off, Switch::On, Switch::Off), kSampleRate, &error);
        QVERIFY2(processor, qPrintable(error));
        std::mt19937 rng(5);
        std::normal_distribution<float> noise(0.0f, 0.02f);
        std::vector<float> frame(kFrameSamples);
        double before = 0.0, after = 0.0;
        for (int f = 0; f < 300; ++f) {
            for (float& s : frame)
                s = noise(rng);
            const double in = energy(frame);
            processor->processCapture(frame);
            if (f >= 100) {
                before += in;
                after += energy(frame);
            }
        }
        const double reductionDb = 10 * std::log10(before / after);
        QVERIFY2(reductionDb > 6, qPrintable(QString::number(reductionDb)));
    }

    void everythingOffLeavesTheSignalAlone() {
        QString error;
        auto processor = VoiceProcessor::create(only(Switch::Off, Switch::Off, Switch::Off),
                                                kSampleRate, &error);
        QVERIFY(processor);
        auto frame = farEnd(kFrameSamples, 3);
        const auto copy = frame;
        processor->processCapture(frame);
        QCOMPARE(frame, copy);
    }

    void senderKeepsSendingWhenMutedAndReceiverPlaysItBack() {
        QString error;
        auto sender = VoiceSender::create({}, only(Switch::Off, Switch::Off, Switch::Off), &error);
        auto receiver = VoiceReceiver::create({}, &error);
        QVERIFY2(sender && receiver, qPrintable(error));
        const auto speech = farEnd(200 * kFrameSamples, 4);
        std::vector<float> out(kFrameSamples);
        int packets = 0;
        double loudOut = 0.0, mutedOut = 0.0;
        std::uint32_t sequence = 0;
        for (std::size_t f = 0; f < 200; ++f) {
            const auto mic = f < 100 ? Microphone::Live : Microphone::Muted;
            const std::span<const float> frame(speech.data() + f * kFrameSamples, kFrameSamples);
            const JitterBuffer::Time now = 20ms * std::int64_t(f);
            if (auto packet = sender->pushFrame(frame, mic)) {
                QVERIFY(!packet->isEmpty());
                ++packets;
                receiver->push(sequence++, now + 20ms,
                               {reinterpret_cast<const std::uint8_t*>(packet->constData()),
                                std::size_t(packet->size())});
            }
            const PlayoutSlice slice = receiver->pull(now + 25ms, out);
            if (slice.action == PlayoutAction::Decode && slice.packet >= 10 && slice.packet < 45)
                loudOut += energy(out);
            if (slice.action == PlayoutAction::Decode && slice.packet >= 60)
                mutedOut += energy(out);
        }
        // One packet per 40 ms, muted or not; the resampler's few samples of delay hold back the
        // last one.
        QCOMPARE(packets, 99);
        QVERIFY(loudOut > 0.0);
        QVERIFY2(mutedOut < loudOut * 1e-3,
                 qPrintable(QStringLiteral("%1 %2").arg(mutedOut).arg(loudOut)));
        QCOMPARE(receiver->buffer().stats().late, 0u);
    }

    void wavBackendPlaysAndRecordsThroughTheRings() {
        QTemporaryDir dir;
        const QString in = dir.filePath("in.wav");
        const QString out = dir.filePath("out.wav");
        auto source = farEnd(10 * kFrameSamples, 6);
        QString error;
        QVERIFY(writeWavFile(in, source, kSampleRate, &error));
        WavAudio written;
        QVERIFY(readWavFile(in, &written, &error)); // 16-bit quantized version of `source`
        auto backend = WavFileBackend::create(in, out, Pacing::AsFastAsPossible, &error);
        QVERIFY2(backend, qPrintable(error));
        AudioRings rings(4 * kFrameSamples);
        // Prime the speaker with three frames of a ramp; the device only runs while it has them.
        std::vector<float> ramp(3 * kFrameSamples);
        for (std::size_t i = 0; i < ramp.size(); ++i)
            ramp[i] = float(i) / float(ramp.size());
        QCOMPARE(rings.playback.write(ramp), ramp.size());
        QVERIFY(backend->start(rings, &error));
        std::vector<float> captured;
        std::vector<float> chunk(kFrameSamples);
        QElapsedTimer guard;
        guard.start();
        while (captured.size() < 3 * kFrameSamples && guard.elapsed() < 10000) {
            const std::size_t n = rings.capture.read(chunk);
            captured.insert(captured.end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(n));
            if (n == 0)
                std::this_thread::sleep_for(1ms);
        }
        QVERIFY(backend->finish(&error));
        QCOMPARE(captured.size(), 3 * kFrameSamples);
        for (std::size_t i = 0; i < captured.size(); ++i)
            QCOMPARE(captured[i], written.samples[i]);
        WavAudio recorded;
        QVERIFY2(readWavFile(out, &recorded, &error), qPrintable(error));
        QCOMPARE(recorded.samples.size(), 3 * kFrameSamples);
        for (std::size_t i = 0; i < ramp.size(); ++i)
            QVERIFY(std::abs(recorded.samples[i] - ramp[i]) < 1e-4f);
        QCOMPARE(rings.playbackUnderruns.load(), 0u);
    }

    void nullBackendCapturesSilence() {
        NullBackend backend(Pacing::AsFastAsPossible);
        AudioRings rings(4 * kFrameSamples);
        std::vector<float> feed(kFrameSamples, 0.5f);
        rings.playback.write(feed);
        QString error;
        QVERIFY(backend.start(rings, &error));
        QTRY_VERIFY_WITH_TIMEOUT(rings.capture.readable() >= kFrameSamples, 10000);
        backend.stop();
        std::vector<float> got(kFrameSamples, 1.0f);
        QCOMPARE(rings.capture.read(got), kFrameSamples);
        QVERIFY(std::all_of(got.begin(), got.end(), [](float v) { return v == 0.0f; }));
        QCOMPARE(rings.playedSamples.load(), std::uint64_t(kFrameSamples));
    }
};

QTEST_GUILESS_MAIN(TestVoicePath)
#include "tst_voicepath.moc"
