// Unit tests of the incoming side's memory: the Hello replay cache (a captured Hello is refused
// while its time would still pass the clock check, forgotten afterwards, and the cache never
// grows beyond its capacity), the ring rate limits (per key, bounded number of keys), the order
// in which RingAdmission applies them, what a twin of a ringing Hello is held to, and that a ring
// that is over takes no more Hellos of its call.
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

// A Hello of `caller`'s call `call` (its ephemeral key), made unique by `n`; admission reads no
// more of it (its signature was checked before).
Hello hello(const QString& caller, const Bytes32& n, std::uint8_t call = 0) {
    Hello h;
    h.caller = caller;
    h.nonce = n;
    h.ephemeral.fill(call);
    return h;
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

    // Attack: a stranger floods signed Hellos with fresh nonces, every one refused for the rate,
    // to push a captured Hello out of the bounded cache. Remembered before the rate limits (the
    // old order), the flood evicted it and its replay rang again.
    void rateLimitedFloodCannotEvictAHello() {
        RingAdmission admission({5min, 64, 4, 16, 6});
        QCOMPARE(admission.admit(hello(kAlice, nonce(1)), CallerStanding::Contact, 0ms),
                 RingVerdict::Ring);
        int rang = 0;
        for (int i = 0; i < 4096; ++i)
            rang += admission.admit(hello(kMallory, nonce(std::uint8_t(i))),
                                    CallerStanding::Stranger, 1s + Millis(i)) == RingVerdict::Ring;
        QCOMPARE(rang, 4); // mallory's own rate
        QCOMPARE(admission.admit(hello(kAlice, nonce(1)), CallerStanding::Contact, 10s),
                 RingVerdict::Replayed);
    }

    // A replayed Hello is refused before it spends its caller's rings: replaying alice's Hello
    // must not lock alice out.
    void replaysDoNotSpendTheCallersRings() {
        RingAdmission admission({5min, 64, 4, 16, 6});
        QCOMPARE(admission.admit(hello(kAlice, nonce(1)), CallerStanding::Contact, 0ms),
                 RingVerdict::Ring);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(admission.admit(hello(kAlice, nonce(1)), CallerStanding::Contact, 1s),
                     RingVerdict::Replayed);
        QCOMPARE(admission.admit(hello(kAlice, nonce(2)), CallerStanding::Contact, 2s),
                 RingVerdict::Ring);
    }

    // A twin (a second Hello of a ringing call, see RingKey) spends no ring, but is held to the
    // replay cache. Attack: replaying the Hello that rang, or a twin, as a twin of the ring; and
    // a twin's Hello replayed later as a call of its own.
    void twinsAreHeldToTheReplayCacheNotToTheRate() {
        RingAdmission admission({5min, 64, 4, 16, 6});
        for (std::uint8_t n = 1; n <= 4; ++n)
            QCOMPARE(admission.admit(hello(kAlice, nonce(n)), CallerStanding::Contact, 0ms),
                     RingVerdict::Ring);
        QCOMPARE(admission.admit(hello(kAlice, nonce(5)), CallerStanding::Contact, 0ms),
                 RingVerdict::RateLimited);
        QCOMPARE(admission.admitTwin(hello(kAlice, nonce(6)), 0ms), RingVerdict::Ring);
        QCOMPARE(admission.admitTwin(hello(kAlice, nonce(6)), 1s), RingVerdict::Replayed);
        QCOMPARE(admission.admitTwin(hello(kAlice, nonce(4)), 1s), RingVerdict::Replayed);
        QCOMPARE(admission.admit(hello(kAlice, nonce(6)), CallerStanding::Contact, 2min),
                 RingVerdict::Replayed);
        QCOMPARE(admission.admit(hello(kAlice, nonce(7)), CallerStanding::Contact, 2min),
                 RingVerdict::Ring);
    }

    // A ring that is over takes no Hello of its call (a twin late on its circuit) for the replay
    // window, and spends none of its caller's rings on it; other calls of the caller ring.
    // Attack: the caller's twin sent after the ring ended rang anew.
    void aRingThatIsOverTakesNoHelloOfItsCall() {
        RingAdmission admission({5min, 64, 2, 16, 6});
        QCOMPARE(admission.admit(hello(kAlice, nonce(1), 1), CallerStanding::Contact, 0ms),
                 RingVerdict::Ring);
        admission.endRing({kAlice, hello(kAlice, nonce(1), 1).ephemeral}, 1s);
        for (std::uint8_t n = 2; n < 6; ++n)
            QCOMPARE(admission.admit(hello(kAlice, nonce(n), 1), CallerStanding::Contact, 2s),
                     RingVerdict::Ended);
        QCOMPARE(admission.admit(hello(kMallory, nonce(6), 1), CallerStanding::Stranger, 2s),
                 RingVerdict::Ring); // the same key from another caller is another call
        QCOMPARE(admission.admit(hello(kAlice, nonce(7), 2), CallerStanding::Contact, 3s),
                 RingVerdict::Ring);
        QCOMPARE(admission.admit(hello(kAlice, nonce(8), 1), CallerStanding::Contact, 1s + 5min),
                 RingVerdict::Ring);
    }

    // Strangers share one rate besides their own: many identities do not ring more often.
    void strangersShareOneRate() {
        RingAdmission admission({5min, 64, 4, 16, 6});
        int rang = 0;
        for (int i = 0; i < 100; ++i)
            rang += admission.admit(hello(kMallory + QString::number(i), nonce(1)),
                                    CallerStanding::Stranger, 0ms) == RingVerdict::Ring;
        QCOMPARE(rang, 6);
        QCOMPARE(admission.admit(hello(kAlice, nonce(1)), CallerStanding::Contact, 0ms),
                 RingVerdict::Ring);
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
