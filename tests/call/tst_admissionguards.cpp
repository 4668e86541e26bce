// Unit tests of the incoming side's memory: the Hello replay cache (a captured Hello is refused
// while its time would still pass the clock check, forgotten afterwards, and the cache never
// grows beyond its capacity) and the ring rate limits (per key, bounded number of keys).
#include "call/AdmissionGuards.h"

#include <QTest>

using namespace onionvoice::call;
using namespace std::chrono_literals;

namespace {

Bytes32 nonce(std::uint8_t n) {
    Bytes32 b{};
    b.fill(n);
    return b;
}

const QString kAlice = QStringLiteral("alice");
const QString kMallory = QStringLiteral("mallory");

} // namespace

class AdmissionGuardsTest : public QObject {
    Q_OBJECT
private slots:
    void replayIsRefusedWithinTheWindow() {
        HelloReplayCache cache(5min, 100);
        QVERIFY(cache.remember(kAlice, nonce(1), 1000ms));
        QVERIFY(!cache.remember(kAlice, nonce(1), 1000ms + 4min));  // replayed
        QVERIFY(cache.remember(kAlice, nonce(2), 1000ms + 4min));   // a new call
        QVERIFY(cache.remember(kMallory, nonce(1), 1000ms + 4min)); // same nonce, other caller
        // Past the window the clock check refuses the Hello anyway; the entry is gone.
        QVERIFY(cache.remember(kAlice, nonce(1), 1000ms + 6min));
    }

    void cacheIsBoundedByCount() {
        HelloReplayCache cache(5min, 64);
        for (int i = 0; i < 10000; ++i)
            QVERIFY(
                cache.remember(kMallory + QString::number(i), nonce(std::uint8_t(i)), Millis(i)));
        QCOMPARE(cache.size(), std::size_t(64));
        // The most recent entries are still known.
        QVERIFY(
            !cache.remember(kMallory + QString::number(9999), nonce(std::uint8_t(9999)), 10000ms));
    }

    void ringsAreRateLimitedPerCaller() {
        KeyedRateLimit limit(4, 4, 16);
        for (int i = 0; i < 4; ++i)
            QVERIFY(limit.allow(kMallory, 0ms));
        QVERIFY(!limit.allow(kMallory, 0ms));
        QVERIFY(!limit.allow(kMallory, 10s));
        QVERIFY(limit.allow(kAlice, 10s));   // others are not affected
        QVERIFY(limit.allow(kMallory, 16s)); // one ring per 15 s comes back
    }

    void rateLimitIsBoundedByKeys() {
        KeyedRateLimit limit(4, 4, 16);
        for (int i = 0; i < 1000; ++i)
            limit.allow(QString::number(i), Millis(i));
        QCOMPARE(limit.size(), std::size_t(16));
    }

    void tokenBucketRefills() {
        TokenBucket bucket;
        for (int i = 0; i < 6; ++i)
            QVERIFY(bucket.take(0ms, 6, 6));
        QVERIFY(!bucket.take(1s, 6, 6));
        QVERIFY(bucket.take(11s, 6, 6));
    }
};

QTEST_GUILESS_MAIN(AdmissionGuardsTest)
#include "tst_admissionguards.moc"
