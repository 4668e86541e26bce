// FrameDelays, on injected arrival times: the delay percentiles of a call's statistics counted
// above the fastest frame, over the last 30 s, and the largest delay of a statistics interval.
#include "call/FrameDelays.h"

#include <QTest>
#include <limits>

using namespace onionvoice::call;

namespace {

constexpr std::int64_t kPeriodMs = 40;
// The peer's clock is this far ahead of ours: only delays above the fastest frame may show.
constexpr std::int64_t kOffsetMs = 3'200'000;

// Frame n leaves the peer at n periods and arrives `delayMs` later, on our clock.
void arrive(FrameDelays& d, std::uint32_t n, std::int64_t delayMs) {
    d.add(std::int64_t(n) * kPeriodMs - kOffsetMs + delayMs, n, kPeriodMs);
}

} // namespace

class FrameDelaysTest : public QObject {
    Q_OBJECT
private slots:
    void delaysCountAboveTheFastestFrame() {
        FrameDelays d;
        // 100 frames: 90 take 200 ms, 9 take 260 ms, one 700 ms.
        for (std::uint32_t n = 0; n < 100; ++n)
            arrive(d, n, n == 50 ? 700 : n % 10 == 9 ? 260 : 200);
        const FrameDelaySummary s = d.summary(std::numeric_limits<std::int64_t>::min());
        QCOMPARE(s.p50Ms, 0.0);
        QCOMPARE(s.p95Ms, 60.0);
        QCOMPARE(s.p99Ms, 500.0);
        QCOMPARE(s.intervalMaxMs, std::optional<double>(500));
    }

    void theWindowIsTheLastThirtySeconds() {
        FrameDelays d;
        // A 2-s spike at the start of the call, then 40 s at a steady 200 ms.
        std::uint32_t n = 0;
        for (; n < 50; ++n)
            arrive(d, n, 2200);
        for (; n < 1050; ++n)
            arrive(d, n, 200);
        const std::int64_t lastArrival = std::int64_t(n - 1) * kPeriodMs - kOffsetMs + 200;
        const FrameDelaySummary s = d.summary(lastArrival);
        QCOMPARE(s.p99Ms, 0.0);
        QVERIFY(!s.intervalMaxMs); // nothing arrived after the interval began
    }
};

QTEST_APPLESS_MAIN(FrameDelaysTest)
#include "tst_framedelays.moc"
