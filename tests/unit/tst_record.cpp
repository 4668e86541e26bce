// Unit tests of the wire record codec: exact size, round trip, and a typed error for every kind of
// malformed input.
#include "multipath/Record.h"

#include <QTest>

using namespace onionvoice::multipath;

namespace {

Record sampleRecord() {
    Record r;
    r.txSeq = 70000;
    r.sendTimeMs = 123456;
    r.echoTimeMs = 120000;
    r.echoHoldMs = 17;
    r.history.fill(kNoLink);
    r.history[0] = 3;
    r.history[1] = 11;
    r.scores = {{0, 16, 10, 12, 4463}, {3, 0, 255, 7, 1}};
    r.freshFrames = 1;
    r.frames = {{501, std::vector<std::uint8_t>(160, 0xAB)},
                {500, std::vector<std::uint8_t>(160, 0xCD)}};
    return r;
}

RecordBytes encoded(const Record& r) {
    RecordBytes out{};
    if (!encodeRecord(r, out))
        qFatal("sample record does not encode");
    return out;
}

} // namespace

class RecordTest : public QObject {
    Q_OBJECT
private slots:
    void sizesComeFromTheTorCell() {
        QCOMPARE(kRecordSize, std::size_t(498));
        QCOMPARE(kPlainRecordSize + kSealOverhead, kRecordSize);
        QCOMPARE(sizeof(RecordBytes), kPlainRecordSize);
    }

    void roundTrip() {
        const Record r = sampleRecord();
        const auto bytes = encoded(r);
        const DecodeResult d = decodeRecord(bytes);
        QCOMPARE(d.error, RecordError::None);
        QVERIFY(d.record == r);
    }

    void twoPacketsOfDefaultAudioFitWithTwelveScores() {
        // 32 kbit/s × 40 ms = 160 bytes of fresh audio; the previous packet rides along.
        const std::size_t perFrame = kFrameEntryOverhead + 160;
        QVERIFY(2 * perFrame <= frameSpace(12));
        QVERIFY(3 * perFrame > frameSpace(12));
    }

    void refusesWhatDoesNotFit() {
        Record r = sampleRecord();
        r.frames.push_back({499, std::vector<std::uint8_t>(400, 1)});
        RecordBytes out{};
        QVERIFY(!encodeRecord(r, out));
    }

    void refusesFramesOutOfOrder() {
        Record r = sampleRecord();
        std::swap(r.frames[0], r.frames[1]);
        RecordBytes out{};
        QVERIFY(!encodeRecord(r, out));
    }

    void decodeErrors_data() {
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("value");
        QTest::addColumn<int>("error");
        const int scoreCount = 1 + 4 + 4 + 4 + 2 + int(kHistoryLength);
        const int firstScore = scoreCount + 1;
        const int framesHeader = firstScore + 2 * int(kScoreEntrySize);
        QTest::newRow("type") << 0 << 9 << int(RecordError::UnknownType);
        QTest::newRow("history link") << 15 << 16 << int(RecordError::BadLinkId);
        QTest::newRow("score count") << scoreCount << 17 << int(RecordError::TooManyScores);
        QTest::newRow("score link") << firstScore << 200 << int(RecordError::BadLinkId);
        QTest::newRow("no frames") << framesHeader + 4 << 0 << int(RecordError::NoFrames);
        QTest::newRow("fresh > count") << framesHeader + 5 << 3 << int(RecordError::NoFrames);
        QTest::newRow("frame length") << framesHeader + 7 << 0xFF << int(RecordError::Truncated);
        QTest::newRow("padding") << int(kPlainRecordSize) - 1 << 1
                                 << int(RecordError::NonZeroPadding);
    }
    void decodeErrors() {
        QFETCH(int, offset);
        QFETCH(int, value);
        QFETCH(int, error);
        auto bytes = encoded(sampleRecord());
        bytes[std::size_t(offset)] = std::uint8_t(value);
        const DecodeResult d = decodeRecord(bytes);
        QCOMPARE(int(d.error), error);
        QVERIFY(!describe(d.error).empty());
    }

    void wrongSizes() {
        const auto bytes = encoded(sampleRecord());
        QCOMPARE(decodeRecord(std::span(bytes).first(kPlainRecordSize - 1)).error,
                 RecordError::WrongSize);
        QCOMPARE(decodeRecord({}).error, RecordError::WrongSize);
        std::vector<std::uint8_t> longer(bytes.begin(), bytes.end());
        longer.push_back(0);
        QCOMPARE(decodeRecord(longer).error, RecordError::WrongSize);
    }

    void frameBackOrderDetected() {
        auto bytes = encoded(sampleRecord());
        const std::size_t framesHeader = kFixedHeaderSize + 2 * kScoreEntrySize;
        const std::size_t secondEntry =
            framesHeader + kFramesHeaderSize + kFrameEntryOverhead + 160;
        bytes[secondEntry] = 0; // second frame claims the same sequence number as the first
        QCOMPARE(decodeRecord(bytes).error, RecordError::BadFrameOrder);
    }

    void randomBytesNeverCrash() {
        std::uint64_t x = 42;
        RecordBytes bytes{};
        int decoded = 0;
        for (int i = 0; i < 20000; ++i) {
            for (auto& b : bytes) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                b = std::uint8_t(x >> 56);
            }
            bytes[0] = 1;
            decoded += decodeRecord(bytes).error == RecordError::None ? 1 : 0;
        }
        QCOMPARE(decoded, 0); // random padding is never accepted
    }
};

QTEST_APPLESS_MAIN(RecordTest)
#include "tst_record.moc"
