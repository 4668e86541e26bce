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
    r.scores = {{0, 16, 12, 0x6F}, {3, 0, 255, 1}};
    r.freshFrames = 1;
    r.frames = {{501, std::vector<std::uint8_t>(160, 0xAB)},
                {500, std::vector<std::uint8_t>(160, 0xCD)},
                {499, std::vector<std::uint8_t>(53, 0xEF), FrameQuality::Reduced}};
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

    void threeFramesAtThirtyTwoKbitWithTwelveScores() {
        // 32 kbit/s × 40 ms = 160 bytes of fresh audio. Three full frames (489 bytes) cannot fit
        // in 474 whatever the layout; the fresh frame, the previous one and a reduced copy of the
        // one before (a third of the bitrate) do, next to 12 score reports of 4 bytes.
        QCOMPARE(kScoreEntrySize, std::size_t(4));
        const std::size_t full = kFrameEntryOverhead + 160;
        const std::size_t reduced = kFrameEntryOverhead + 160 / 3;
        QVERIFY(2 * full + reduced <= frameSpace(12));
        QVERIFY(3 * full > kPlainRecordSize);
        Record r = sampleRecord();
        r.scores.clear();
        for (LinkId l = 0; l < 12; ++l)
            r.scores.push_back({l, 0, 20, std::uint8_t(l)});
        const auto bytes = encoded(r);
        const DecodeResult d = decodeRecord(bytes);
        QCOMPARE(d.error, RecordError::None);
        QCOMPARE(d.record.frames.size(), std::size_t(3));
        QCOMPARE(d.record.frames[2].quality, FrameQuality::Reduced);
        QVERIFY(d.record == r);
    }

    void refusesWhatDoesNotFit() {
        Record r = sampleRecord();
        r.frames.push_back({499, std::vector<std::uint8_t>(400, 1)});
        RecordBytes out{};
        QVERIFY(!encodeRecord(r, out));
    }

    void refusesAReducedFreshFrame() {
        Record r = sampleRecord();
        r.frames[0].quality = FrameQuality::Reduced;
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
        QTest::newRow("frame length") << framesHeader + 7 << 0x7F << int(RecordError::Truncated);
        QTest::newRow("reduced fresh frame")
            << framesHeader + 7 << 0x80 << int(RecordError::NoFrames);
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
