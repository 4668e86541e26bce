// Unit test of the Opus wrapper with real libopus: round trip of a speech-like signal, packet
// size and traffic shape, splitting multi-frame packets, concealment, FEC recovery and which
// packets carry FEC.
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

// These tests feed the encoder 48 kHz signals directly (the engine feeds it 16 kHz).
EncoderSettings fullRate() {
    EncoderSettings s;
    s.inputSampleRate = kSampleRate;
    return s;
}

enum class Gap { Conceal, Fec };
constexpr std::size_t kGapPacket = 25;
constexpr std::size_t kPacket = 1920;   // 40 ms
constexpr std::size_t kOpusDelay = 312; // 6.5 ms at 48 kHz

// Encodes `input` with FEC tuned for 5 % loss, then decodes it with packet kGapPacket missing,
// filled by concealment or by FEC from the next packet. Empty on any codec failure.
std::vector<float> decodeWithGap(std::span<const float> input, Gap gap) {
    QString error;
    EncoderSettings settings = fullRate();
    settings.expectedLossPercent = 5;
    auto encoder = VoiceEncoder::create(settings, &error);
    auto decoder = VoiceDecoder::create(&error);
    if (!encoder || !decoder)
        return {};
    std::vector<QByteArray> packets;
    for (std::size_t p = 0; p + kPacket <= input.size(); p += kPacket)
        packets.push_back(encoder->encodePacket(input.subspan(p, kPacket)));
    std::vector<float> out, packet(kPacket);
    auto view = [](const QByteArray& a) {
        return std::span(reinterpret_cast<const std::uint8_t*>(a.constData()),
                         std::size_t(a.size()));
    };
    for (std::size_t i = 0; i < packets.size(); ++i) {
        bool ok = true;
        if (i == kGapPacket)
            ok = gap == Gap::Fec ? decoder->decodeFec(view(packets[i + 1]), packet)
                                 : decoder->conceal(packet);
        else
            ok = decoder->decode(view(packets[i]), packet);
        if (!ok)
            return {};
        out.insert(out.end(), packet.begin(), packet.end());
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
        EncoderSettings s = fullRate();
        s.packetPeriod = std::chrono::milliseconds(30);
        QVERIFY(!VoiceEncoder::create(s, &error));
        QVERIFY(error.contains("packet period"));
        s = fullRate();
        s.bitrate = 100;
        QVERIFY(!VoiceEncoder::create(s, &error));
        QVERIFY(error.contains("bitrate"));
    }

    void roundTripKeepsTheSignal() {
        QString error;
        auto encoder = VoiceEncoder::create(fullRate(), &error);
        auto decoder = VoiceDecoder::create(&error);
        QVERIFY2(encoder && decoder, qPrintable(error));
        QCOMPARE(encoder->samplesPerPacket(), kPacket);
        const std::size_t packets = 50; // 2 s
        const auto input = speechLike(packets * kPacket);
        std::vector<float> output;
        std::vector<float> decoded(kPacket);
        std::size_t totalBytes = 0;
        for (std::size_t p = 0; p < packets; ++p) {
            const QByteArray packet =
                encoder->encodePacket(std::span(input).subspan(p * kPacket, kPacket));
            QVERIFY(!packet.isEmpty());
            QVERIFY(std::size_t(packet.size()) <= encoder->maxPacketBytes());
            QCOMPARE(opusPacketSamples(bytes(packet)), kPacket);
            totalBytes += std::size_t(packet.size());
            QVERIFY(decoder->decode(bytes(packet), decoded));
            output.insert(output.end(), decoded.begin(), decoded.end());
        }
        // Variable bitrate follows the signal but stays within the configured 32 kbit/s budget.
        const double kbps = double(totalBytes) * 8 / 2.0 / 1000.0;
        QVERIFY2(kbps > 8 && kbps < 36, qPrintable(QString::number(kbps)));
        // Skip the first 100 ms while the codec settles; Opus delays by 6.5 ms (312 samples).
        const std::size_t skip = 4800;
        const double sim = similarity(std::span(input).subspan(skip, 48000),
                                      std::span(output).subspan(skip, 48000 + 1000), 1000);
        QVERIFY2(sim > 0.9, qPrintable(QString::number(sim)));
    }

    void silenceAndMuteStillProducePackets() {
        // No DTX: silence is still one packet per period.
        QString error;
        auto encoder = VoiceEncoder::create(fullRate(), &error);
        QVERIFY(encoder);
        const std::vector<float> silence(kPacket, 0.0f);
        for (int i = 0; i < 50; ++i) {
            const QByteArray packet = encoder->encodePacket(silence);
            QVERIFY(packet.size() > 2);
            QCOMPARE(opusPacketSamples(bytes(packet)), kPacket);
        }
        QVERIFY(encoder->encodePacket(std::span(silence).first(100)).isEmpty());
    }

    void rejectsGarbageAndWrongDurations() {
        const std::uint8_t garbage[] = {0x03, 0xff, 0xff};
        QCOMPARE(opusPacketSamples(garbage), std::size_t(0));
        QCOMPARE(opusPacketSamples({}), std::size_t(0));
        QString error;
        auto encoder = VoiceEncoder::create(fullRate(), &error);
        auto decoder = VoiceDecoder::create(&error);
        const QByteArray packet = encoder->encodePacket(std::vector<float>(kPacket, 0.0f));
        std::vector<float> tooShort(960, 1.0f);
        QVERIFY(!decoder->decode(bytes(packet), tooShort));
        QCOMPARE(tooShort[0], 0.0f);
    }

    void concealmentContinuesASteadySignal() {
        const auto input = speechLike(40 * kPacket);
        const auto plc = decodeWithGap(input, Gap::Conceal);
        QVERIFY(!plc.empty());
        const auto refGap = std::span(input).subspan(kGapPacket * kPacket - kOpusDelay, kPacket);
        const auto outGap = std::span(plc).subspan(kGapPacket * kPacket, kPacket);
        QVERIFY(energy(outGap) > 0.1 * energy(refGap));
        QVERIFY(similarity(refGap, outGap, 0) > 0.5);
    }

    void fecRecoversAnOnsetConcealmentCannotPredict() {
        // Silence, then speech starting exactly in the lost frame: concealment can only
        // extrapolate silence, the FEC copy in the next frame carries the onset.
        auto input = speechLike(40 * kPacket);
        std::fill(input.begin(), input.begin() + kGapPacket * kPacket - kOpusDelay, 0.0f);
        const auto plc = decodeWithGap(input, Gap::Conceal);
        const auto fec = decodeWithGap(input, Gap::Fec);
        QVERIFY(!plc.empty() && !fec.empty());
        const auto refGap = std::span(input).subspan(kGapPacket * kPacket - kOpusDelay, kPacket);
        const auto plcGap = std::span(plc).subspan(kGapPacket * kPacket, kPacket);
        const auto fecGap = std::span(fec).subspan(kGapPacket * kPacket, kPacket);
        const double fecSim = similarity(refGap, fecGap, 0);
        QVERIFY2(fecSim > 0.5, qPrintable(QString::number(fecSim)));
        QVERIFY2(
            energy(plcGap) < 0.25 * energy(fecGap),
            qPrintable(QStringLiteral("plc %1 fec %2").arg(energy(plcGap)).arg(energy(fecGap))));
    }

    // A loss is FEC-recovered only from a next packet that carries FEC: the encoder adds it once
    // it expects loss, and only behind speech. The jitter buffer counted every loss followed by a
    // packet as recovered, whatever that packet held.
    void tellsWhichPacketsCarryFec() {
        const auto input = speechLike(30 * kPacket);
        const auto carrying = [&](int expectedLoss, std::span<const float> signal) {
            QString error;
            EncoderSettings settings = fullRate();
            settings.expectedLossPercent = expectedLoss;
            auto encoder = VoiceEncoder::create(settings, &error);
            int count = 0;
            for (std::size_t p = 0; p + kPacket <= signal.size(); p += kPacket)
                count += opusPacketHasFec(bytes(encoder->encodePacket(signal.subspan(p, kPacket))));
            return count;
        };
        QCOMPARE(carrying(0, input), 0);
        QVERIFY2(carrying(5, input) >= 25, qPrintable(QString::number(carrying(5, input))));
        const std::vector<float> silence(30 * kPacket, 0.0f);
        QCOMPARE(carrying(5, silence), 0);
        const std::uint8_t celtOnly[] = {0xf8, 0x12, 0x34}; // config 31, one 20 ms CELT frame
        QVERIFY(!opusPacketHasFec(celtOnly));
        const std::uint8_t truncated[] = {0x0b};
        QVERIFY(!opusPacketHasFec(truncated));
        QVERIFY(!opusPacketHasFec({}));
    }

    void decoderSurvivesBadInput() {
        QString error;
        auto decoder = VoiceDecoder::create(&error);
        std::vector<float> frame(kPacket, 1.0f);
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
