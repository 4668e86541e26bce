// Unit test of the Opus wrapper with real libopus: round trip of a speech-like signal, packet
// size and traffic shape, splitting multi-frame packets, concealment and FEC recovery.
#include "media/AudioFormat.h"
#include "media/VoiceCodec.h"

#include <QTest>
#include <cmath>
#include <numbers>
#include <vector>

using namespace onionvoice::media;

namespace {

// A voiced-speech stand-in: harmonics of a gliding 140..220 Hz pitch with a syllable envelope.
std::vector<float> speechLike(std::size_t samples, std::size_t offset = 0) {
    std::vector<float> out(samples);
    double phase = 0.0;
    for (std::size_t i = 0; i < samples + offset; ++i) {
        const double t = double(i) / kSampleRate;
        const double pitch = 180.0 + 40.0 * std::sin(2 * std::numbers::pi * 0.7 * t);
        phase += 2 * std::numbers::pi * pitch / kSampleRate;
        const double envelope = 0.5 + 0.5 * std::sin(2 * std::numbers::pi * 3.0 * t);
        double v = 0.0;
        for (int h = 1; h <= 12; ++h)
            v += std::sin(h * phase) / h;
        if (i >= offset)
            out[i - offset] = float(0.15 * envelope * v);
    }
    return out;
}

double energy(std::span<const float> s) {
    double e = 0.0;
    for (float v : s)
        e += double(v) * v;
    return e / double(s.size());
}

// Best normalized cross-correlation over lags 0..maxLag: Opus delays its output a few ms.
double similarity(std::span<const float> ref, std::span<const float> out, std::size_t maxLag) {
    double best = 0.0;
    for (std::size_t lag = 0; lag <= maxLag; ++lag) {
        double xy = 0, xx = 0, yy = 0;
        for (std::size_t i = 0; i + lag < out.size() && i < ref.size(); ++i) {
            xy += double(ref[i]) * out[i + lag];
            xx += double(ref[i]) * ref[i];
            yy += double(out[i + lag]) * out[i + lag];
        }
        if (xx > 0 && yy > 0)
            best = std::max(best, xy / std::sqrt(xx * yy));
    }
    return best;
}

enum class Gap { Conceal, Fec };
constexpr std::size_t kGapFrame = 50;
constexpr std::size_t kOpusDelay = 312; // 6.5 ms at 48 kHz

// Encodes `input` with FEC tuned for 20 % loss, then decodes it with frame kGapFrame missing,
// filled by concealment or by FEC from the next frame. Empty on any codec failure.
std::vector<float> decodeWithGap(std::span<const float> input, Gap gap) {
    QString error;
    EncoderSettings settings;
    settings.expectedLossPercent = 20;
    auto encoder = VoiceEncoder::create(settings, &error);
    auto decoder = VoiceDecoder::create(&error);
    if (!encoder || !decoder)
        return {};
    std::vector<QByteArray> frames;
    for (std::size_t p = 0; p + encoder->samplesPerPacket() <= input.size();
         p += encoder->samplesPerPacket()) {
        const QByteArray packet =
            encoder->encodePacket(input.subspan(p, encoder->samplesPerPacket()));
        const auto split =
            splitOpusPacket({reinterpret_cast<const std::uint8_t*>(packet.constData()),
                             std::size_t(packet.size())});
        frames.insert(frames.end(), split.begin(), split.end());
    }
    std::vector<float> out, frame(kFrameSamples);
    auto view = [](const QByteArray& a) {
        return std::span(reinterpret_cast<const std::uint8_t*>(a.constData()),
                         std::size_t(a.size()));
    };
    for (std::size_t i = 0; i < frames.size(); ++i) {
        bool ok = true;
        if (i == kGapFrame)
            ok = gap == Gap::Fec ? decoder->decodeFec(view(frames[i + 1]), frame)
                                 : decoder->conceal(frame);
        else
            ok = decoder->decode(view(frames[i]), frame);
        if (!ok)
            return {};
        out.insert(out.end(), frame.begin(), frame.end());
    }
    return out;
}

std::span<const std::uint8_t> bytes(const QByteArray& a) {
    return {reinterpret_cast<const std::uint8_t*>(a.constData()), std::size_t(a.size())};
}

} // namespace

class TestVoiceCodec : public QObject {
    Q_OBJECT
private slots:
    void rejectsBadSettings() {
        QString error;
        EncoderSettings s;
        s.framesPerPacket = 0;
        QVERIFY(!VoiceEncoder::create(s, &error));
        QVERIFY(error.contains("frames per packet"));
        s = {};
        s.bitrate = 100;
        QVERIFY(!VoiceEncoder::create(s, &error));
        QVERIFY(error.contains("bitrate"));
    }

    void roundTripKeepsTheSignal() {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        auto decoder = VoiceDecoder::create(&error);
        QVERIFY2(encoder && decoder, qPrintable(error));
        const std::size_t packets = 50; // 2 s
        const auto input = speechLike(packets * encoder->samplesPerPacket());
        std::vector<float> output;
        std::vector<float> frame(kFrameSamples);
        QSet<qsizetype> sizes;
        for (std::size_t p = 0; p < packets; ++p) {
            const QByteArray packet = encoder->encodePacket(std::span(input).subspan(
                p * encoder->samplesPerPacket(), encoder->samplesPerPacket()));
            QVERIFY(!packet.isEmpty());
            sizes.insert(packet.size());
            const auto frames = splitOpusPacket(bytes(packet));
            QCOMPARE(frames.size(), std::size_t(2));
            for (const QByteArray& f : frames) {
                QVERIFY(decoder->decode(bytes(f), frame));
                output.insert(output.end(), frame.begin(), frame.end());
            }
        }
        // CBR: the traffic shape is the same whatever the signal.
        QCOMPARE(sizes.size(), 1);
        QVERIFY(*sizes.begin() <= 32000 / 8 * 40 / 1000 + 8);
        // Skip the first 100 ms while the codec settles; Opus delays by 6.5 ms (312 samples).
        const std::size_t skip = 4800;
        const double sim = similarity(std::span(input).subspan(skip, 48000),
                                      std::span(output).subspan(skip, 48000 + 1000), 1000);
        QVERIFY2(sim > 0.9, qPrintable(QString::number(sim)));
    }

    void silenceAndMuteKeepPacketSize() {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        QVERIFY(encoder);
        const std::vector<float> silence(encoder->samplesPerPacket(), 0.0f);
        const auto speech = speechLike(encoder->samplesPerPacket());
        const QByteArray a = encoder->encodePacket(speech);
        const QByteArray b = encoder->encodePacket(silence);
        QCOMPARE(a.size(), b.size());
        QVERIFY(encoder->encodePacket(std::span(silence).first(100)).isEmpty());
    }

    void splitRejectsGarbage() {
        const std::uint8_t garbage[] = {0x03, 0xff, 0xff};
        QVERIFY(splitOpusPacket(garbage).empty());
        QVERIFY(splitOpusPacket({}).empty());
    }

    void concealmentContinuesASteadySignal() {
        const auto input = speechLike(80 * kFrameSamples);
        const auto plc = decodeWithGap(input, Gap::Conceal);
        QVERIFY(!plc.empty());
        const auto refGap =
            std::span(input).subspan(kGapFrame * kFrameSamples - kOpusDelay, kFrameSamples);
        const auto outGap = std::span(plc).subspan(kGapFrame * kFrameSamples, kFrameSamples);
        QVERIFY(energy(outGap) > 0.1 * energy(refGap));
        QVERIFY(similarity(refGap, outGap, 0) > 0.5);
    }

    void fecRecoversAnOnsetConcealmentCannotPredict() {
        // Silence, then speech starting exactly in the lost frame: concealment can only
        // extrapolate silence, the FEC copy in the next frame carries the onset.
        auto input = speechLike(80 * kFrameSamples);
        std::fill(input.begin(), input.begin() + kGapFrame * kFrameSamples - kOpusDelay, 0.0f);
        const auto plc = decodeWithGap(input, Gap::Conceal);
        const auto fec = decodeWithGap(input, Gap::Fec);
        QVERIFY(!plc.empty() && !fec.empty());
        const auto refGap =
            std::span(input).subspan(kGapFrame * kFrameSamples - kOpusDelay, kFrameSamples);
        const auto plcGap = std::span(plc).subspan(kGapFrame * kFrameSamples, kFrameSamples);
        const auto fecGap = std::span(fec).subspan(kGapFrame * kFrameSamples, kFrameSamples);
        const double fecSim = similarity(refGap, fecGap, 0);
        QVERIFY2(fecSim > 0.5, qPrintable(QString::number(fecSim)));
        QVERIFY2(
            energy(plcGap) < 0.25 * energy(fecGap),
            qPrintable(QStringLiteral("plc %1 fec %2").arg(energy(plcGap)).arg(energy(fecGap))));
    }

    void decoderSurvivesBadInput() {
        QString error;
        auto decoder = VoiceDecoder::create(&error);
        std::vector<float> frame(kFrameSamples, 1.0f);
        const std::uint8_t bad[] = {0xff, 0x00};
        QVERIFY(!decoder->decode(bad, frame));
        QCOMPARE(frame[0], 0.0f);
        QVERIFY(!decoder->decode({}, frame));
        std::vector<float> wrongSize(10);
        QVERIFY(!decoder->conceal(wrongSize));
    }
};

QTEST_GUILESS_MAIN(TestVoiceCodec)
#include "tst_voicecodec.moc"
