// Unit test of WAV reading and writing: round trips of 16-bit and float files, and clear errors
// (never a crash) for unsupported encodings, truncated files and absurd headers.
#include "media/WavFile.h"
#include "media/WavFileBackend.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>
#include <cmath>
#include <limits>
#include <random>
#include <sys/stat.h>

using namespace onionvoice::media;

namespace {

QByteArray makeWav(quint16 format, quint16 channels, quint32 rate, quint16 bits,
                   const QByteArray& data, qint64 declaredData = -1, quint16 blockAlign = 0) {
    QByteArray w;
    auto u16 = [&w](quint16 v) {
        char b[2];
        qToLittleEndian(v, b);
        w.append(b, 2);
    };
    auto u32 = [&w](quint32 v) {
        char b[4];
        qToLittleEndian(v, b);
        w.append(b, 4);
    };
    if (blockAlign == 0)
        blockAlign = quint16(channels * bits / 8);
    w.append("RIFF");
    u32(quint32(36 + data.size()));
    w.append("WAVEfmt ");
    u32(16);
    u16(format);
    u16(channels);
    u32(rate);
    u32(rate * blockAlign);
    u16(blockAlign);
    u16(bits);
    w.append("data");
    u32(declaredData < 0 ? quint32(data.size()) : quint32(declaredData));
    w.append(data);
    return w;
}

QByteArray pcm16(std::initializer_list<qint16> samples) {
    QByteArray d;
    for (qint16 s : samples) {
        char b[2];
        qToLittleEndian(s, b);
        d.append(b, 2);
    }
    return d;
}

} // namespace

class TestWavFile : public QObject {
    Q_OBJECT
private slots:
    void parsesPcm16AndDownmixes() {
        WavAudio audio;
        QString error;
        const QByteArray wav = makeWav(1, 2, 48000, 16, pcm16({16384, 0, -32768, -32768}));
        QVERIFY2(parseWav(wav, &audio, &error), qPrintable(error));
        QCOMPARE(audio.sampleRate, 48000);
        QCOMPARE(audio.sourceChannels, 2);
        QCOMPARE(audio.samples.size(), std::size_t(2));
        QCOMPARE(audio.samples[0], 0.25f);
        QCOMPARE(audio.samples[1], -1.0f);
    }

    void parsesFloat() {
        QByteArray data(8, '\0');
        qToLittleEndian(0.5f, data.data());
        qToLittleEndian(-0.25f, data.data() + 4);
        WavAudio audio;
        QString error;
        QVERIFY2(parseWav(makeWav(3, 1, 16000, 32, data), &audio, &error), qPrintable(error));
        QCOMPARE(audio.samples, (std::vector<float>{0.5f, -0.25f}));
    }

    // Fault: a float file with samples far beyond full scale. Two channels of FLT_MAX summed to
    // an infinite sample, NaN once resampled.
    void floatSamplesBeyondFullScaleStayFinite() {
        QByteArray data(16, '\0');
        for (int i = 0; i < 2; ++i)
            qToLittleEndian(std::numeric_limits<float>::max(), data.data() + 4 * i);
        qToLittleEndian(-3.0f, data.data() + 8);
        qToLittleEndian(-3.0f, data.data() + 12);
        WavAudio audio;
        QString error;
        QVERIFY2(parseWav(makeWav(3, 2, 48000, 32, data), &audio, &error), qPrintable(error));
        QCOMPARE(audio.samples, (std::vector<float>{1.0f, -1.0f}));
    }

    void skipsUnknownChunks() {
        QByteArray wav = makeWav(1, 1, 48000, 16, pcm16({1000}));
        // Insert an odd-sized LIST chunk (padded to even) between fmt and data.
        QByteArray list("LIST\x03\x00\x00\x00"
                        "abc\x00",
                        12);
        wav.insert(36, list);
        WavAudio audio;
        QString error;
        QVERIFY2(parseWav(wav, &audio, &error), qPrintable(error));
        QCOMPARE(audio.samples.size(), std::size_t(1));
    }

    void rejectsBadFiles_data() {
        QTest::addColumn<QByteArray>("image");
        QTest::addColumn<QString>("message");
        const QByteArray ok = pcm16({1, 2, 3, 4});
        QTest::newRow("empty") << QByteArray() << "not a RIFF/WAVE";
        QTest::newRow("text") << QByteArray("hello world, not audio") << "not a RIFF/WAVE";
        QTest::newRow("8-bit") << makeWav(1, 1, 48000, 8, QByteArray(4, 'x')) << "unsupported";
        QTest::newRow("24-bit") << makeWav(1, 1, 48000, 24, QByteArray(6, 'x')) << "unsupported";
        QTest::newRow("mu-law") << makeWav(7, 1, 8000, 8, QByteArray(4, 'x')) << "unsupported";
        QTest::newRow("float64") << makeWav(3, 1, 48000, 64, QByteArray(16, 'x')) << "unsupported";
        QTest::newRow("zero channels") << makeWav(1, 0, 48000, 16, ok, -1, 2) << "channel";
        QTest::newRow("65535 channels") << makeWav(1, 65535, 48000, 16, ok, -1, 2) << "channel";
        QTest::newRow("zero rate") << makeWav(1, 1, 0, 16, ok) << "sample rate";
        QTest::newRow("absurd rate") << makeWav(1, 1, 0xffffffff, 16, ok) << "sample rate";
        QTest::newRow("block align") << makeWav(1, 1, 48000, 16, ok, -1, 3) << "block align";
        QTest::newRow("data too long") << makeWav(1, 1, 48000, 16, ok, 0xffffffff) << "truncated";
        QTest::newRow("half sample") << makeWav(1, 1, 48000, 16, ok, 7) << "truncated";
        QByteArray cut = makeWav(1, 1, 48000, 16, ok);
        QTest::newRow("cut in data") << cut.left(cut.size() - 3) << "truncated";
        QTest::newRow("cut in fmt") << cut.left(30) << "fmt";
        QTest::newRow("no data") << cut.left(36) << "no data chunk";
        QByteArray hugeChunk = cut.left(12) + QByteArray("junk\xf0\xff\xff\xff", 8);
        QTest::newRow("huge chunk") << hugeChunk << "runs past the end";
        QByteArray dataFirst = cut;
        dataFirst.replace(12, 4, "blah");
        QTest::newRow("data before fmt") << dataFirst << "before fmt";
    }

    void rejectsBadFiles() {
        QFETCH(QByteArray, image);
        QFETCH(QString, message);
        WavAudio audio;
        audio.sampleRate = 1234;
        QString error;
        QVERIFY(!parseWav(image, &audio, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QCOMPARE(audio.sampleRate, 1234); // untouched on failure
    }

    void survivesRandomCorruption() {
        const QByteArray good = makeWav(1, 1, 48000, 16, pcm16({1, 2, 3, 4, 5, 6, 7, 8}));
        std::mt19937 rng(7);
        for (int i = 0; i < 20000; ++i) {
            QByteArray bad = good;
            const int flips = 1 + int(rng() % 4);
            for (int f = 0; f < flips; ++f)
                bad[int(rng() % bad.size())] = char(rng());
            bad.truncate(int(rng() % (bad.size() + 1)));
            WavAudio audio;
            QString error;
            if (!parseWav(bad, &audio, &error))
                QVERIFY(!error.isEmpty());
        }
    }

    void writerRoundTripsWithPrivatePermissions() {
        QTemporaryDir dir;
        const QString path = dir.filePath("out.wav");
        std::vector<float> samples(4800);
        for (std::size_t i = 0; i < samples.size(); ++i)
            samples[i] = float(0.5 * std::sin(double(i) * 0.05));
        QString error;
        QVERIFY2(writeWavFile(path, samples, 48000, &error), qPrintable(error));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        WavAudio audio;
        QVERIFY2(readWavFile(path, &audio, &error), qPrintable(error));
        QCOMPARE(audio.samples.size(), samples.size());
        for (std::size_t i = 0; i < samples.size(); ++i)
            QVERIFY(std::abs(audio.samples[i] - samples[i]) < 1.0f / 16000);
    }

    void unfinishedWriterLeavesNoFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("never.wav");
        {
            QString error;
            auto writer = WavWriter::open(path, 48000, &error);
            QVERIFY(writer);
            const float s[3] = {0.1f, 0.2f, 0.3f};
            QVERIFY(writer->append(s));
        }
        QVERIFY(!QFile::exists(path));
    }

    void sourceNeeds48kHzAndNamesTheFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("16k.wav");
        QString error;
        const float s[4] = {};
        QVERIFY(writeWavFile(path, s, 16000, &error));
        QVERIFY(!WavFileSource::open(path, &error));
        QVERIFY2(error.contains("16000") && error.contains(path), qPrintable(error));
        QVERIFY(!WavFileSource::open(dir.filePath("missing.wav"), &error));
        QVERIFY2(error.contains("cannot open"), qPrintable(error));
    }

    void sourcePadsWithSilence() {
        WavFileSource source({0.1f, 0.2f, 0.3f});
        std::vector<float> out(2);
        QCOMPARE(source.read(out), std::size_t(2));
        QCOMPARE(source.read(out), std::size_t(1));
        QCOMPARE(out, (std::vector<float>{0.3f, 0.0f}));
        QVERIFY(source.atEnd());
    }
};

QTEST_GUILESS_MAIN(TestWavFile)
#include "tst_wavfile.moc"
