// Unit test of the audio engine's plumbing with the WAV backend running as fast as the engine
// services its rings: speech from a file goes through capture ring, sender, packets, receiver and
// playback ring into a recording, looped back to the same engine. The engine's injected clock is
// the device's own sample count, so the run does not depend on the wall clock. A device driven by
// hand covers a stalled microphone and echo cancellation with a microphone that delivers in bursts.
#include "media/AudioEngine.h"
#include "media/WavFileBackend.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <thread>

using namespace onionvoice::media;
using namespace std::chrono_literals;

namespace {

std::vector<float> speechLike(std::size_t samples) {
    std::vector<float> out(samples);
    double phase = 0.0;
    for (std::size_t i = 0; i < samples; ++i) {
        const double t = double(i) / kSampleRate;
        phase += 2 * std::numbers::pi * (170.0 + 30.0 * std::sin(2 * std::numbers::pi * t)) /
                 kSampleRate;
        double v = 0.0;
        for (int h = 1; h <= 8; ++h)
            v += std::sin(h * phase) / h;
        out[i] = float(0.2 * (0.5 + 0.5 * std::sin(2 * std::numbers::pi * 2.0 * t)) * v);
    }
    return out;
}

// Best normalized cross-correlation of `out` against `ref` over lags 0..maxLag.
std::pair<double, std::size_t> bestMatch(const std::vector<float>& ref,
                                         const std::vector<float>& out, std::size_t maxLag) {
    std::pair<double, std::size_t> best{0.0, 0};
    for (std::size_t lag = 0; lag <= maxLag; lag += 8) {
        double xy = 0, xx = 0, yy = 0;
        for (std::size_t i = 0; i < ref.size() && i + lag < out.size(); ++i) {
            xy += double(ref[i]) * out[i + lag];
            xx += double(ref[i]) * ref[i];
            yy += double(out[i + lag]) * out[i + lag];
        }
        if (xx > 0 && yy > 0 && xy / std::sqrt(xx * yy) > best.first)
            best = {xy / std::sqrt(xx * yy), lag};
    }
    return best;
}

// Runs `speech` through an engine whose packets come back to itself when `deliver` says so,
// until a second of silence has followed the speech; the stopped engine is left in *engine.
void loopBack(const QString& in, const QString& out, const std::vector<float>& speech,
              const std::function<bool(std::uint32_t)>& deliver,
              std::unique_ptr<AudioEngine>* engine) {
    QString error;
    QVERIFY(writeWavFile(in, speech, kSampleRate, &error));
    auto backend = WavFileBackend::create(in, out, Pacing::AsFastAsPossible, &error);
    QVERIFY2(backend, qPrintable(error));
    WavFileBackend* wav = backend.get();

    AudioEngineSettings settings;
    // Looped back to itself the far end is our own voice, which the echo canceller would
    // rightly remove; this test is about the plumbing.
    settings.processing.echoCancellation = Switch::Off;
    settings.processing.noiseSuppression = Switch::Off;
    settings.processing.gainControl = Switch::Off;
    // One frame ahead: the device then advances (and the audio clock jumps) 20 ms at a time.
    settings.playbackFramesAhead = 1;
    AudioEngine* enginePointer = nullptr;
    const auto audioClock = [&enginePointer] {
        return JitterBuffer::Time(std::int64_t(enginePointer->rings().capturedSamples.load()) *
                                  1'000'000 / kSampleRate);
    };
    auto looped = std::make_unique<AudioEngine>(std::move(backend), settings, audioClock);
    enginePointer = looped.get();
    QObject::connect(looped.get(), &AudioEngine::packetReady, looped.get(),
                     [enginePointer, deliver](std::uint32_t sequence, const QByteArray& packet) {
                         if (deliver(sequence))
                             enginePointer->receivePacket(sequence, packet);
                     });
    QVERIFY2(looped->start(&error), qPrintable(error));
    QVERIFY(QTest::qWaitFor(
        [&] { return looped->rings().capturedSamples.load() >= speech.size() + kSampleRate; },
        60000));
    looped->stop();
    QVERIFY2(wav->finish(&error), qPrintable(error));
    *engine = std::move(looped);
}

// A device driven by hand: the test writes its captured frames into the capture ring and plays
// frames from the playback ring.
class HandDrivenDevice final : public AudioBackend {
public:
    bool start(AudioRings& rings, QString*) override {
        m_rings = &rings;
        return true;
    }
    void stop() override { m_rings = nullptr; }
    AudioLatency latency() const override { return {}; }
    void capture(std::span<const float> frame) {
        m_rings->capture.write(frame);
        m_rings->capturedSamples += frame.size();
    }
    // Silence where the ring ran dry, counted as a device's callback counts it.
    void play(std::span<float> frame) {
        std::fill(frame.begin(), frame.end(), 0.0f);
        m_rings->playbackUnderruns += frame.size() - m_rings->playback.read(frame);
        m_rings->playedSamples += frame.size();
    }

private:
    AudioRings* m_rings = nullptr;
};

} // namespace

class TestAudioEngine : public QObject {
    Q_OBJECT
private slots:
    // Fault: the device stops mid-call (a headset unplugged, its sound server gone). Its callbacks
    // stop: nothing captured, nothing played, and the call went on silent both ways for good,
    // with nobody told. Now a side still for 5 s is reported, once; a pump that comes late (the
    // process stood still, a suspend) is not the device's fault.
    void aDeviceThatStopsIsReported() {
        auto device = std::make_unique<HandDrivenDevice>();
        HandDrivenDevice* hand = device.get();
        JitterBuffer::Time now{};
        AudioEngine engine(std::move(device), {}, [&now] { return now; });
        QSignalSpy stopped(&engine, &AudioEngine::deviceStopped);
        QString error;
        QVERIFY2(engine.start(&error), qPrintable(error));
        std::vector<float> frame(kFrameSamples, 0.0f);
        const auto run = [&](JitterBuffer::Time span, bool capturing, bool playing) {
            for (const auto until = now + span; now < until;) {
                now += kFrameDuration;
                if (capturing)
                    hand->capture(frame);
                if (playing)
                    hand->play(frame);
                QTest::qWait(6); // one pump or more
            }
        };
        run(3s, true, true);
        now += 30s; // the whole process stopped: the next pump comes late
        run(3s, true, true);
        QCOMPARE(stopped.size(), 0);
        run(6s, false, true);
        QCOMPARE(stopped.size(), 1);
        QCOMPARE(stopped.first().first().value<DeviceSide>(), DeviceSide::Capture);
        run(6s, false, false);
        QCOMPARE(stopped.size(), 1); // once
        QVERIFY2(engine.start(&error), qPrintable(error));
        run(2s, true, true);
        run(6s, true, false);
        QCOMPARE(stopped.size(), 2);
        QCOMPARE(stopped.last().first().value<DeviceSide>(), DeviceSide::Playback);
        engine.stop();
    }

    // Fault: the engine thread falls behind (a busy computer) and the device plays silence the
    // engine never gave it, heard as clicks and dropouts; every figure of the call said nothing
    // of it, so the window blamed no one. What the device played before the first refill is the
    // stream starting, not starvation.
    void aStarvedSpeakerIsCounted() {
        auto device = std::make_unique<HandDrivenDevice>();
        HandDrivenDevice* hand = device.get();
        AudioEngine engine(std::move(device), {}, [] { return JitterBuffer::Time{}; });
        QString error;
        QVERIFY2(engine.start(&error), qPrintable(error));
        std::vector<float> frame(kFrameSamples);
        hand->play(frame); // before the engine's first pump
        QCOMPARE(engine.speakerStarved(), 0ms);
        QTRY_VERIFY(engine.rings().playback.readable() >= 3 * kFrameSamples);
        for (int i = 0; i < 3; ++i) {
            hand->play(frame);
            hand->play(frame);
            QTRY_VERIFY(engine.rings().playback.readable() >= 3 * kFrameSamples);
        }
        QCOMPARE(engine.speakerStarved(), 0ms);
        for (int i = 0; i < 5; ++i) // the engine keeps three frames ahead: two run dry
            hand->play(frame);
        QCOMPARE(engine.speakerStarved(), 2 * kFrameDuration);
        engine.stop();
    }

    void loopsSpeechThroughTheWholePath() {
        QTemporaryDir dir;
        const QString out = dir.filePath("out.wav");
        const auto speech = speechLike(3 * kSampleRate);
        QString error;
        std::unique_ptr<AudioEngine> engine;
        int packets = 0;
        loopBack(
            dir.filePath("in.wav"), out, speech, [&](std::uint32_t) { return ++packets > 0; },
            &engine);
        QVERIFY(engine);
        QVERIFY(packets >= 95); // 4 s of 40 ms packets, give or take the tail
        const JitterBufferStats stats = engine->receiveStats();
        QCOMPARE(stats.late, 0u);
        QCOMPARE(stats.lost, 0u);
        QVERIFY(engine->longestGap() < 100ms); // nothing went missing
        // Clock steps of one frame are well inside the 60 ms floor.
        QCOMPARE(stats.targetDelay, JitterBuffer::Time(60ms));
        WavAudio recorded;
        QVERIFY2(readWavFile(out, &recorded, &error), qPrintable(error));
        // Half-second windows of the input each reappear in the recording, 100 to 330 ms later
        // (packet period + jitter target + playback ring + codec + resampler). Windows are matched
        // one by one because a drop or stretch of the jitter buffer shifts everything after it.
        int matched = 0;
        QString report;
        for (std::size_t start = 0; start + kSampleRate / 2 <= speech.size();
             start += kSampleRate / 2) {
            const std::vector<float> window(speech.begin() + std::ptrdiff_t(start),
                                            speech.begin() +
                                                std::ptrdiff_t(start + kSampleRate / 2));
            const std::vector<float> rest(
                recorded.samples.begin() + std::ptrdiff_t(std::min(start, recorded.samples.size())),
                recorded.samples.end());
            const auto [similarity, lag] = bestMatch(window, rest, kSampleRate / 3);
            report += QStringLiteral(" %1@%2").arg(similarity, 0, 'f', 2).arg(lag);
            if (similarity > 0.85 && lag > kSampleRate / 10)
                ++matched;
        }
        QVERIFY2(matched >= 5, qPrintable(report));
        qInfo("windows:%s", qPrintable(report));
        const MouthToEarBudget budget = engine->mouthToEar(200ms);
        QCOMPARE(budget.network, std::chrono::microseconds(200ms));
        QCOMPARE(budget.jitterBuffer, stats.targetDelay);
    }

    void lostPacketsAreAGapInPlayout() {
        // Ten packets in a row (400 ms) never arrive: the listener hears one gap of that length,
        // less the last packet, which FEC in the packet after it rebuilds.
        QTemporaryDir dir;
        std::unique_ptr<AudioEngine> engine;
        loopBack(
            dir.filePath("in.wav"), dir.filePath("out.wav"), speechLike(3 * kSampleRate),
            [](std::uint32_t sequence) { return sequence < 30 || sequence >= 40; }, &engine);
        QVERIFY(engine);
        QVERIFY2(engine->longestGap() >= 360ms && engine->longestGap() <= 400ms,
                 qPrintable(QString::number(engine->longestGap().count())));
        QCOMPARE(engine->receiveStats().lost, 10u);
    }

    void sequenceNumbersFollowCaptureTimeAcrossAStall() {
        // The engine's thread stalls for 1.5 s while a real-time device keeps capturing: the
        // capture ring (0.5 s) overflows. The packets of the lost audio are skipped, so the next
        // sequence number still matches the audio captured so far.
        QTemporaryDir dir;
        QString error;
        QVERIFY(
            writeWavFile(dir.filePath("in.wav"), speechLike(6 * kSampleRate), kSampleRate, &error));
        auto backend = WavFileBackend::create(dir.filePath("in.wav"), {}, Pacing::RealTime, &error);
        QVERIFY2(backend, qPrintable(error));
        AudioEngine* enginePointer = nullptr;
        AudioEngine engine(std::move(backend), {}, [&enginePointer] {
            return JitterBuffer::Time(std::int64_t(enginePointer->rings().capturedSamples.load()) *
                                      1'000'000 / kSampleRate);
        });
        enginePointer = &engine;
        std::int64_t nextSequence = 0;
        connect(&engine, &AudioEngine::packetReady, &engine,
                [&nextSequence](std::uint32_t sequence, const QByteArray&) {
                    nextSequence = std::int64_t(sequence) + 1;
                });
        QVERIFY2(engine.start(&error), qPrintable(error));
        QTest::qWait(500);
        std::this_thread::sleep_for(1500ms); // nothing services the rings meanwhile
        QTest::qWait(1000);
        engine.stop();
        QVERIFY(engine.rings().captureOverruns.load() > std::uint64_t(kSampleRate / 2));
        // 40-ms packets; what is still in the ring or half a packet is at most a few packets.
        const auto capturedPackets =
            std::int64_t(engine.rings().capturedSamples.load() / (kSampleRate / 25));
        QVERIFY2(capturedPackets - nextSequence >= 0 && capturedPackets - nextSequence <= 3,
                 qPrintable(QStringLiteral("captured %1 packets, next sequence %2")
                                .arg(capturedPackets)
                                .arg(nextSequence)));
    }

    // Fault: the microphone delivers nothing for 2 s (a Bluetooth profile switch, a USB glitch)
    // while the clock runs on. No ring overruns, so before the fix no packet left meanwhile (no
    // records, no acknowledgements; the peer ends the call after 20 s of that) and numbering
    // resumed 2 s behind the clock: the peer's playout had moved on, and it dropped every packet
    // after the stall as late until its delay history forgot the old delays.
    void aStalledMicrophoneIsCoveredWithSilence() {
        auto device = std::make_unique<HandDrivenDevice>();
        HandDrivenDevice* mic = device.get();
        JitterBuffer::Time now{};
        AudioEngine engine(std::move(device), {}, [&now] { return now; });
        std::vector<std::pair<JitterBuffer::Time, std::uint32_t>> sent;
        connect(&engine, &AudioEngine::packetReady, &engine,
                [&](std::uint32_t sequence, const QByteArray&) {
                    sent.push_back({now, sequence});
                });
        QString error;
        QVERIFY2(engine.start(&error), qPrintable(error));
        const std::vector<float> frame(kFrameSamples, 0.1f);
        const auto run = [&](JitterBuffer::Time until, bool capturing) {
            while (now < until) {
                now += kFrameDuration;
                if (capturing)
                    mic->capture(frame);
                QTest::qWait(6); // one pump or more
            }
        };
        run(2s, true);
        run(4s, false);
        const auto atResume = sent.back().second;
        run(5s, true);
        engine.stop();
        // 40-ms packets: the sequence number follows the clock through the stall.
        QVERIFY2(atResume >= 97, qPrintable(QString::number(atResume)));
        QVERIFY2(sent.back().second >= 122 && sent.back().second <= 125,
                 qPrintable(QString::number(sent.back().second)));
        for (std::size_t k = 1; k < sent.size(); ++k)
            QVERIFY(sent[k].first - sent[k - 1].first <= 300ms); // records kept flowing
        QVERIFY(engine.stalledCapture() >= 1900ms && engine.stalledCapture() <= 2000ms);
    }

    // The far end's speech arrives as packets, the speaker plays what the engine put in the
    // playback ring, and the microphone hears it 30 ms later at half amplitude (nothing else) and
    // delivers 100 ms at once. Before the fix the engine handed speexdsp five references per
    // capture burst, one at a time as the speaker took them, then five captured frames; speexdsp
    // keeps three references: 1.4 dB of echo return loss enhancement was left (48 dB after).
    void echoIsCancelledWithABurstyMicrophone() {
        auto device = std::make_unique<HandDrivenDevice>();
        HandDrivenDevice* hand = device.get();
        JitterBuffer::Time now{};
        AudioEngineSettings settings;
        settings.processing.noiseSuppression = Switch::Off;
        settings.processing.gainControl = Switch::Off;
        AudioEngine engine(std::move(device), settings, [&now] { return now; });
        QString error;
        auto farEnd = VoiceSender::create({}, {Switch::Off, Switch::Off, Switch::Off}, &error);
        auto decoder = VoiceDecoder::create(&error);
        QVERIFY2(farEnd && decoder, qPrintable(error));
        std::vector<float> sent, decoded;
        connect(&engine, &AudioEngine::packetReady, &engine,
                [&](std::uint32_t, const QByteArray& packet) {
                    const std::span bytes(reinterpret_cast<const std::uint8_t*>(packet.data()),
                                          std::size_t(packet.size()));
                    decoded.resize(opusPacketSamples(bytes));
                    QVERIFY(decoder->decode(bytes, decoded));
                    sent.insert(sent.end(), decoded.begin(), decoded.end());
                });
        QVERIFY2(engine.start(&error), qPrintable(error));
        const std::size_t frames = 500; // 10 s
        // Speech-like far end: low-passed noise shaped by a syllable envelope.
        std::vector<float> speech(frames * kFrameSamples);
        std::mt19937 rng(1);
        std::normal_distribution<float> noise(0.0f, 0.1f);
        float low = 0.0f;
        for (std::size_t i = 0; i < speech.size(); ++i) {
            low = 0.7f * low + noise(rng);
            const double t = double(i) / kSampleRate;
            speech[i] = float(low * (0.6 + 0.4 * std::sin(2 * std::numbers::pi * 2.5 * t)));
        }
        std::vector<float> played, mic(frames * kFrameSamples), frame(kFrameSamples);
        const std::size_t echoDelay = kFrameSamples + 480;
        std::uint32_t sequence = 0;
        for (std::size_t tick = 0, captured = 0; tick < frames; ++tick) {
            now += kFrameDuration;
            if (auto packet = farEnd->pushFrame(
                    std::span<const float>(speech).subspan(tick * kFrameSamples, kFrameSamples),
                    Microphone::Live))
                engine.receivePacket(sequence++, *packet);
            hand->play(frame);
            played.insert(played.end(), frame.begin(), frame.end());
            for (std::size_t at = tick * kFrameSamples; at < played.size(); ++at)
                mic[at] = at >= echoDelay ? 0.5f * played[at - echoDelay] : 0.0f;
            if ((tick + 1) % 5 == 0) {
                for (; captured <= tick; ++captured)
                    hand->capture(std::span<const float>(mic).subspan(captured * kFrameSamples,
                                                                      kFrameSamples));
            }
            QTest::qWait(6); // one pump or more
        }
        engine.stop();
        // After five seconds of adaptation.
        const std::size_t from = 250 * kFrameSamples, to = std::min(mic.size(), sent.size());
        QVERIFY(to > from + kSampleRate);
        double before = 0.0, after = 0.0;
        for (std::size_t i = from; i < to; ++i) {
            before += double(mic[i]) * mic[i];
            after += double(sent[i]) * sent[i];
        }
        QVERIFY(before > 0.0);
        const double erleDb = 10 * std::log10(before / std::max(after, 1e-12));
        qInfo("ERLE %.1f dB", erleDb);
        QVERIFY2(erleDb > 15, qPrintable(QString::number(erleDb)));
    }

    void startFailureIsReported() {
        // A backend that cannot start (PortAudio without devices, here a file that is not WAV).
        QTemporaryDir dir;
        QFile bogus(dir.filePath("bogus.wav"));
        QVERIFY(bogus.open(QIODevice::WriteOnly));
        bogus.write("not a wav file");
        bogus.close();
        QString error;
        QVERIFY(!WavFileBackend::create(bogus.fileName(), {}, Pacing::RealTime, &error));
        QVERIFY2(error.contains("not a RIFF/WAVE"), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestAudioEngine)
#include "tst_audioengine.moc"
