// Unit tests of RecordSealer/RecordOpener: round trip, forgery and wrong keys refused, replays
// refused on any link, reordering within the window accepted, too-old records refused.
#include "call/RecordSealer.h"

#include <QTest>

using namespace onionvoice::call;
using onionvoice::multipath::kPlainRecordSize;
using onionvoice::multipath::RecordBytes;

namespace {

SessionKey key(std::uint8_t fill) {
    SessionKey k;
    std::fill_n(k.data(), k.size(), fill);
    return k;
}

RecordBytes plain(std::uint8_t fill) {
    RecordBytes p{};
    p.fill(fill);
    return p;
}

} // namespace

class RecordSealerTest : public QObject {
    Q_OBJECT
private slots:
    void roundTripAndUniqueNonces() {
        RecordSealer sealer(key(1));
        RecordOpener opener(key(1));
        const SealedRecord a = sealer.seal(plain(7));
        const SealedRecord b = sealer.seal(plain(7));
        QVERIFY(a != b); // same plaintext, new counter, new ciphertext
        RecordBytes out{};
        QCOMPARE(opener.open(a, out), RecordOpener::Outcome::Opened);
        QCOMPARE(out, plain(7));
        QCOMPARE(opener.open(b, out), RecordOpener::Outcome::Opened);
    }

    void forgedOrWrongKeyIsRefused() {
        RecordSealer sealer(key(1));
        const SealedRecord good = sealer.seal(plain(3));
        RecordBytes out{};
        for (std::size_t at :
             {std::size_t(0), std::size_t(7), std::size_t(8), std::size_t(200), good.size() - 1}) {
            RecordOpener opener(key(1));
            SealedRecord bad = good;
            bad[at] ^= 0x01;
            QCOMPARE(opener.open(bad, out), RecordOpener::Outcome::Forged);
            // A forgery does not poison the window: the real record still opens.
            QCOMPARE(opener.open(good, out), RecordOpener::Outcome::Opened);
        }
        RecordOpener other(key(2));
        QCOMPARE(other.open(good, out), RecordOpener::Outcome::Forged);
    }

    void replaysAreRefusedReorderingIsNot() {
        RecordSealer sealer(key(5));
        RecordOpener opener(key(5));
        std::vector<SealedRecord> sent;
        for (int i = 0; i < 10; ++i)
            sent.push_back(sealer.seal(plain(std::uint8_t(i))));
        RecordBytes out{};
        for (int i : {0, 3, 1, 2, 9, 4, 8, 5, 7, 6})
            QCOMPARE(opener.open(sent[std::size_t(i)], out), RecordOpener::Outcome::Opened);
        for (const auto& s : sent)
            QCOMPARE(opener.open(s, out), RecordOpener::Outcome::Replayed);
    }

    void tooOldIsRefused() {
        RecordSealer sealer(key(9));
        RecordOpener opener(key(9));
        const SealedRecord first = sealer.seal(plain(0));
        RecordBytes out{};
        SealedRecord last{};
        for (std::uint64_t i = 1; i <= RecordOpener::kWindow; ++i)
            last = sealer.seal(plain(1));
        QCOMPARE(opener.open(last, out), RecordOpener::Outcome::Opened);
        QCOMPARE(opener.open(first, out), RecordOpener::Outcome::TooOld);
    }
};

QTEST_APPLESS_MAIN(RecordSealerTest)
#include "tst_recordsealer.moc"
