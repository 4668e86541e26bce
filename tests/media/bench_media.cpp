// CPU benchmark (not a test): the audio work of one second of a call on one core, with the real
// libraries. Per second: 50 captured frames through echo cancellation, noise suppression and gain
// control, 25 Opus packets encoded, pushed through the jitter buffer and decoded, and 50 played
// frames fed back as the echo reference. Prints the share of one core next to QBENCHMARK's time.
//   media_cpu_bench            (or with -callgrind under valgrind for instruction counts)
#include "media/AudioFormat.h"
#include "media/VoiceReceiver.h"
#include "media/VoiceSender.h"

#include <QTest>
#include <cmath>
#include <numbers>
#include <random>
#include <time.h>

using namespace onionvoice::media;
using namespace std::chrono_literals;

class BenchMedia : public QObject {
    Q_OBJECT
private slots:
    void oneSecondOfCall() {
        QString error;
        auto sender = VoiceSender::create({}, {}, &error); // all processing on (the default)
        auto receiver = VoiceReceiver::create({}, &error);
        QVERIFY2(sender && receiver, qPrintable(error));
        // A speech-like microphone signal with some noise, and a far end to cancel.
        std::mt19937 rng(1);
        std::normal_distribution<float> noise(0.0f, 0.01f);
        std::vector<float> mic(kSampleRate), speaker(kFrameSamples);
        double phase = 0.0;
        for (std::size_t i = 0; i < mic.size(); ++i) {
            phase += 2 * std::numbers::pi * 180.0 / kSampleRate;
            mic[i] = float(0.2 * std::sin(phase) + 0.1 * std::sin(3 * phase)) + noise(rng);
        }
        std::uint32_t sequence = 0;
        std::int64_t tick = 0;
        // CPU time of this thread, not wall time, so other work on the machine does not count.
        const auto threadNanoseconds = [] {
            timespec ts{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
        };
        qint64 nanoseconds = 0;
        int seconds = 0;
        QBENCHMARK {
            const qint64 start = threadNanoseconds();
            for (std::size_t f = 0; f < 50; ++f, ++tick) {
                const JitterBuffer::Time now = 20ms * tick;
                sender->playbackReference(speaker);
                const std::span<const float> frame(mic.data() + f * kFrameSamples, kFrameSamples);
                if (auto packet = sender->pushFrame(frame, Microphone::Live))
                    receiver->push(sequence++, now,
                                   {reinterpret_cast<const std::uint8_t*>(packet->constData()),
                                    std::size_t(packet->size())});
                receiver->pull(now + 10ms, speaker);
            }
            nanoseconds += threadNanoseconds() - start;
            ++seconds;
        }
        const double share = double(nanoseconds) / double(seconds) / 1e9 * 100.0;
        qInfo("%d simulated seconds, %.3f ms of CPU per second of call = %.2f %% of one core",
              seconds, double(nanoseconds) / double(seconds) / 1e6, share);
        QVERIFY(receiver->buffer().stats().packetsDecoded > 0);
    }
};

QTEST_GUILESS_MAIN(BenchMedia)
#include "bench_media.moc"
