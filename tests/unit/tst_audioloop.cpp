// Unit test of the audio-loop run (app/cli/AudioLoop): it ends when playout reaches the last
// packet, also when that packet never arrives, so nothing that was never sent counts as lost.
#include "AudioLoop.h"
#include "media/AudioFormat.h"
#include "media/WavFile.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <numbers>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

// 300 ms of delay, 60 ms less for the few packets before `firstLost`, and the packets from
// `firstLost` on lost: the lower delay puts playout behind its new schedule, and it skips the
// first missing packet to catch up, past the last packet sent.
class TailLossNetwork : public cli::LoopNetwork {
public:
    explicit TailLossNetwork(std::uint32_t firstLost)
        : m_firstLost(firstLost) {}
    std::optional<cli::Time> arrival(std::uint32_t sequence, cli::Time sent) override {
        if (sequence >= m_firstLost)
            return std::nullopt;
        return sent + (sequence + 4 >= m_firstLost ? 240ms : 300ms);
    }
    std::optional<cli::Time> fastestPath() const override { return 240ms; }

private:
    std::uint32_t m_firstLost;
};

} // namespace

class AudioLoopTest : public QObject {
    Q_OBJECT
private slots:
    void endsAtTheLastPacketEvenWhenItIsLost_data() {
        QTest::addColumn<std::uint32_t>("firstLost");
        QTest::newRow("every packet arrives") << std::uint32_t(1000);
        QTest::newRow("the last packet is lost") << std::uint32_t(48);
    }
    void endsAtTheLastPacketEvenWhenItIsLost() {
        QFETCH(std::uint32_t, firstLost);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath("in.wav");
        QString error;
        {
            // Two seconds of a 440 Hz tone: 50 packets of 40 ms.
            auto writer = media::WavWriter::open(in, media::kSampleRate, &error);
            QVERIFY2(writer, qPrintable(error));
            std::vector<float> tone(2 * media::kSampleRate);
            for (std::size_t i = 0; i < tone.size(); ++i)
                tone[i] =
                    0.3f *
                    float(std::sin(2 * std::numbers::pi * 440.0 * double(i) / media::kSampleRate));
            QVERIFY(writer->append(tone));
            QVERIFY(writer->finish(&error));
        }
        cli::AudioLoopConfig config;
        config.input = in;
        config.output = dir.filePath("out.wav");
        TailLossNetwork network(firstLost);
        const auto result = cli::runAudioLoop(config, network, &error);
        QVERIFY2(result, qPrintable(error));
        QVERIFY(result->packetsSent >= 49); // the voice processing delays the first packet
        const std::uint64_t lostInNetwork =
            result->packetsSent - std::min<std::uint64_t>(result->packetsSent, firstLost);
        QCOMPARE(result->packetsLostInNetwork, lostInNetwork);
        // Nothing beyond the packets sent is missing but the one slot whose playout shows that the
        // end was passed (waiting on for stragglers would add ~750 lost packets).
        QVERIFY2(result->jitter.lost <= lostInNetwork + 1,
                 qPrintable(QString("%1 lost").arg(result->jitter.lost)));
        QVERIFY(result->jitter.concealedMs <= 40ms * (lostInNetwork + 1));
    }
};

QTEST_GUILESS_MAIN(AudioLoopTest)
#include "tst_audioloop.moc"
