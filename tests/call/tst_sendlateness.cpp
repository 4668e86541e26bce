// SendLateness, on injected times: a sound card whose clock runs slow against the system's for
// 90 minutes, and an engine thread held up for 200 ms in the middle of it.
#include "call/SendLateness.h"

#include <QTest>

using namespace onionvoice::call;
using namespace std::chrono_literals;

class SendLatenessTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: the origin was the earliest send of the whole call, so a sound card 100 ppm slow
    // (packet n captured at n × 40.004 ms) read as an engine 540 ms late after 90 minutes.
    void aDriftingAudioClockIsNotLateness() {
        SendLateness lateness;
        constexpr std::uint32_t kPackets = 90 * 60 * 25;
        std::chrono::milliseconds worst{0};
        for (std::uint32_t n = 0; n < kPackets; ++n) {
            if (n % 25 == 0)
                lateness.startInterval(); // a statistics snapshot each second
            lateness.sent(std::chrono::milliseconds(std::int64_t(n) * 40'004 / 1000), n, 40ms);
            worst = std::max(worst, lateness.intervalMax());
        }
        QVERIFY2(worst <= 3ms, qPrintable(QString::number(worst.count())));
    }

    void aHeldUpEngineShows() {
        SendLateness lateness;
        std::uint32_t n = 0;
        for (; n < 3000; ++n)
            lateness.sent(std::chrono::milliseconds(n * 40), n, 40ms);
        lateness.startInterval();
        QCOMPARE(lateness.intervalMax(), 0ms);
        // Held up 200 ms: five packets go out at once, the first one 200 ms late.
        for (std::uint32_t k = 0; k < 5; ++k, ++n)
            lateness.sent(std::chrono::milliseconds(std::int64_t(n - k) * 40 + 200), n, 40ms);
        QCOMPARE(lateness.intervalMax(), 200ms);
        lateness.startInterval();
        lateness.sent(std::chrono::milliseconds(std::int64_t(n) * 40), n, 40ms);
        QCOMPARE(lateness.intervalMax(), 0ms);
    }
};

QTEST_GUILESS_MAIN(SendLatenessTest)
#include "tst_sendlateness.moc"
