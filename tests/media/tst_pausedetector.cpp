// Unit test of PauseDetector and of the jitter buffer's catching up under steady background noise,
// where variable-bitrate Opus spends about as much on a pause as on a word.
#include "media/JitterBuffer.h"
#include "media/PauseDetector.h"
#include "media/VoiceCodec.h"

#include <QTest>
#include <algorithm>
#include <random>

using namespace onionvoice::media;
using namespace std::chrono_literals;
using Time = JitterBuffer::Time;
using Quietness = PauseDetector::Quietness;

namespace {

// Real 40 ms Opus packets of speech over steady noise: white noise whose level rises and falls
// like syllables over a floor 20 dB down. None is small enough to be a pause by its size.
const std::vector<QByteArray>& noisySpeech() {
    static const std::vector<QByteArray> packets = [] {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        std::mt19937 rng(11);
        std::normal_distribution<float> white(0.0f, 1.0f);
        std::vector<float> pcm(encoder->samplesPerPacket());
        std::vector<QByteArray> out;
        for (int i = 0; i < 120; ++i) {
            const float syllable = 0.2f * float(std::max(0.0, std::sin(i * 0.6)));
            std::generate(pcm.begin(), pcm.end(), [&] { return (0.02f + syllable) * white(rng); });
            QByteArray packet = encoder->encodePacket(pcm);
            if (i >= 20) // past the encoder's start-up
                out.push_back(std::move(packet));
        }
        return out;
    }();
    return packets;
}

} // namespace

class TestPauseDetector : public QObject {
    Q_OBJECT
private slots:
    void smallPacketsArePauses() {
        PauseDetector pauses;
        for (int i = 0; i < 300; ++i)
            pauses.note(i % 10 == 0 ? 10 : 160);
        QCOMPARE(pauses.classify(10), Quietness::Pause);
        QCOMPARE(pauses.classify(150), Quietness::Speech); // pauses keep coming: sizes decide
        QCOMPARE(pauses.classify(80), Quietness::Speech);
    }

    void onlyALongDroughtMakesTheQuietestCount() {
        PauseDetector pauses;
        std::mt19937 rng(3);
        std::uniform_int_distribution<std::size_t> size(138, 178);
        for (int i = 0; i < 240; ++i)
            pauses.note(size(rng));
        QCOMPARE(pauses.classify(139), Quietness::Speech); // 10 s of speech can do without pause
        for (int i = 0; i < 20; ++i)
            pauses.note(size(rng));
        QCOMPARE(pauses.classify(139), Quietness::QuietUnderNoise);
        QCOMPARE(pauses.classify(160), Quietness::Speech);
        pauses.note(20); // a real pause: the drought is over
        QCOMPARE(pauses.classify(139), Quietness::Speech);
    }

    void packetsAllOfOneSizeAreNeverQuiet() {
        PauseDetector pauses;
        for (int i = 0; i < 1000; ++i)
            pauses.note(160);
        QCOMPARE(pauses.classify(160), Quietness::Speech);
    }

    // The network's jitter ends at 8 s and the target falls back to its floor; under steady
    // noise no packet is a pause by its size. Before, the buffer dropped a packet to follow the
    // target only once two periods behind it, so it stayed up to 80 ms late for the rest of the
    // call (measured through the audio loop: 297 against 257 ms mouth-to-ear).
    void theBufferCatchesUpUnderSteadyNoise() {
        JitterBufferSettings settings;
        settings.minTarget = 20ms;
        settings.decreasePerPacket = 800us; // 20 ms a second
        JitterBuffer jb(settings);
        const auto& packets = noisySpeech();
        const auto delay = [](int i) {
            return Time(200ms) + (i < 200 && i % 3 == 0 ? 90ms : 0ms);
        };
        std::vector<std::pair<Time, std::int64_t>> played;
        int next = 0;
        for (Time now = 7ms; now < 40s;) {
            for (; next < 1000 && Time(40ms) * next + delay(next) <= now; ++next) {
                const QByteArray& p = packets[std::size_t(next) % packets.size()];
                jb.push(
                    std::uint32_t(next), Time(40ms) * next + delay(next),
                    {reinterpret_cast<const std::uint8_t*>(p.constData()), std::size_t(p.size())});
            }
            const PlayoutStep step = jb.pull(now);
            if (step.action == PlayoutAction::Decode)
                played.emplace_back(now, step.packet);
            now += step.action == PlayoutAction::Silence ? 20ms : 40ms;
        }
        QVERIFY(played.size() > 500);
        QVERIFY(jb.stats().droppedMs > 0ms);
        // Over the last 10 s: the network's 200 ms, the 20 ms floor, and less than a period.
        for (const auto& [at, packet] : played) {
            if (at < 30s)
                continue;
            const Time late = at - Time(40ms) * packet;
            QVERIFY2(late < 200ms + 20ms + 40ms,
                     qPrintable(QStringLiteral("packet %1 played %2 ms after it was sent")
                                    .arg(packet)
                                    .arg(late.count() / 1000)));
        }
    }
};

QTEST_GUILESS_MAIN(TestPauseDetector)
#include "tst_pausedetector.moc"
