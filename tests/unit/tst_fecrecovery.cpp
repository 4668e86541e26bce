// Unit test across the multipath receiver and the jitter buffer: a frame lost on every path is
// rebuilt from the Opus in-band FEC of the next frame even when that next frame only ever arrives
// as a piggybacked copy inside a later record.
#include "media/AudioFormat.h"
#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"
#include "multipath/MultipathEndpoint.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <numeric>

using namespace onionvoice;
using namespace std::chrono_literals;

class FecRecoveryTest : public QObject {
    Q_OBJECT
private slots:
    void lostFrameComesBackFromAPiggybackedCopy() {
        // Real Opus packets with in-band FEC (the encoder adds it once it expects loss).
        QString error;
        media::EncoderSettings settings;
        settings.bitrate = 24000; // two packets always fit a record next to each other
        auto encoder = media::VoiceEncoder::create(settings, &error);
        QVERIFY2(encoder, qPrintable(error));
        encoder->setExpectedLossPercent(20);
        std::vector<float> pcm(encoder->samplesPerPacket());
        std::vector<QByteArray> packets;
        for (int k = 0; k < 10; ++k) {
            for (std::size_t i = 0; i < pcm.size(); ++i)
                pcm[i] = 0.3f * std::sin(0.05f * float(i + k * pcm.size())) *
                         std::sin(0.0007f * float(i + k * pcm.size()));
            packets.push_back(encoder->encodePacket(pcm));
        }
        // The encoder codes FEC behind the frames it finds active, so not into every packet: the
        // frame lost is one whose next packet carries it (before, frame 2 was lost, packet 3 held
        // no FEC, and what the test took for recovered audio was concealment).
        const auto view = [](const QByteArray& a) {
            return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(a.data()),
                                                 std::size_t(a.size()));
        };
        std::uint32_t lost = 2;
        while (lost + 1 < packets.size() && !media::opusPacketHasFec(view(packets[lost + 1])))
            ++lost;
        QVERIFY(lost + 1 < packets.size());

        multipath::MultipathEndpoint sender({}, multipath::makePolicy("alternate"));
        multipath::MultipathEndpoint receiver({}, multipath::makePolicy("alternate"));
        for (multipath::LinkId l = 0; l < 3; ++l) {
            sender.linkUp(l);
            receiver.linkUp(l);
        }
        // Every record that holds the lost frame, fresh or piggybacked, is lost; the rest arrive
        // 100 ms after they were sent.
        media::JitterBufferSettings jitter;
        jitter.minTarget = 200ms;
        media::JitterBuffer buffer(jitter);
        std::vector<multipath::ReceivedFrame> delivered;
        for (std::uint32_t k = 0; k < packets.size(); ++k) {
            const multipath::Frame frame{
                k, std::vector<std::uint8_t>(packets[k].begin(), packets[k].end())};
            const auto now = multipath::Millis(40 * k);
            for (const auto& out : sender.sendPacket(now, std::span(&frame, 1))) {
                const auto record = multipath::decodeRecord(out.bytes).record;
                if (std::any_of(record.frames.begin(), record.frames.end(),
                                [&](const multipath::Frame& f) { return f.seq == lost; }))
                    continue;
                delivered.clear();
                QCOMPARE(receiver.receive(now + 100ms, out.link, out.bytes, delivered),
                         multipath::RecordError::None);
                for (const auto& f : delivered) {
                    QVERIFY(f.seq != lost);
                    if (f.seq == lost + 1)
                        QCOMPARE(f.copy, multipath::CopyKind::Piggybacked);
                    buffer.push(f.seq, f.arrival, f.data);
                }
            }
        }

        // A second decoder conceals the lost frame: libopus asked for FEC from a packet without
        // it conceals too, to the sample, so only a difference shows that FEC was there.
        auto decoder = media::VoiceDecoder::create(&error);
        auto concealing = media::VoiceDecoder::create(&error);
        std::vector<float> out(media::samplesIn(40ms)), concealed(out.size());
        bool recovered = false;
        for (auto now = media::JitterBuffer::Time(10ms); now < 2s; now += 40ms) {
            const media::PlayoutStep step = buffer.pull(now);
            const auto data = view(step.data);
            if (step.action == media::PlayoutAction::Decode) {
                QVERIFY(decoder->decode(data, out));
                QVERIFY(concealing->decode(data, concealed));
            }
            if (step.packet != std::int64_t(lost))
                continue;
            QCOMPARE(step.action, media::PlayoutAction::DecodeFec);
            QCOMPARE(step.data, packets[lost + 1]);
            QVERIFY(decoder->decodeFec(data, out));
            QVERIFY(concealing->conceal(concealed));
            const double energy = std::inner_product(out.begin(), out.end(), out.begin(), 0.0);
            QVERIFY2(energy > 1.0, qPrintable(QString::number(energy))); // audio, not a fade
            double apart = 0;
            for (std::size_t i = 0; i < out.size(); ++i)
                apart += double(out[i] - concealed[i]) * double(out[i] - concealed[i]);
            QVERIFY2(apart > 0.01 * energy, qPrintable(QString::number(apart)));
            recovered = true;
        }
        QVERIFY(recovered);
        QCOMPARE(buffer.stats().fecRecovered, 1u);
    }
};

QTEST_GUILESS_MAIN(FecRecoveryTest)
#include "tst_fecrecovery.moc"
