// FrameDelays, on injected arrival times: the delay percentiles of a call's statistics counted
// above the fastest frame, over the last 30 s, the largest delay of a statistics interval, and
// frames numbered far off the stream, which the jitter buffer refuses, left out.
#include "call/FrameDelays.h"
#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"

#include <QTest>
#include <limits>

using namespace onionvoice;
using namespace onionvoice::call;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kPeriodMs = 40;
// The peer's clock is this far ahead of ours: only delays above the fastest frame may show.
constexpr std::int64_t kOffsetMs = 3'200'000;

// Frame n leaves the peer at n periods and arrives `delayMs` later, on our clock; the delay is
// measured as the jitter buffer measures it, with the clock offset in it.
void arrive(FrameDelays& d, std::uint32_t n, std::int64_t delayMs) {
    const std::int64_t arrivalMs = std::int64_t(n) * kPeriodMs - kOffsetMs + delayMs;
    d.add(arrivalMs, std::chrono::milliseconds(arrivalMs - std::int64_t(n) * kPeriodMs));
}

// One real 40 ms Opus packet: the jitter buffer refuses anything else as malformed.
std::span<const std::uint8_t> opusPacket() {
    static const QByteArray p = [] {
        QString error;
        auto encoder = media::VoiceEncoder::create({}, &error);
        return encoder->encodePacket(std::vector<float>(encoder->samplesPerPacket(), 0.01f));
    }();
    return {reinterpret_cast<const std::uint8_t*>(p.constData()), std::size_t(p.size())};
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

    void framesFarOffTheStreamDoNotCount() {
        // Frames reach the statistics as CallSession hands them over: through the jitter buffer,
        // which measures their delay. The frames of the stream take 200 ms.
        media::JitterBuffer buffer;
        FrameDelays d;
        auto receive = [&](std::uint32_t sequence, std::int64_t arrivalMs) {
            d.add(arrivalMs,
                  buffer.push(sequence, std::chrono::milliseconds(arrivalMs), opusPacket()));
        };
        for (std::uint32_t n = 0; n < 100; ++n) {
            const std::int64_t arrivalMs = std::int64_t(n) * kPeriodMs + 200;
            receive(n, arrivalMs);
            if (n == 3) // a copy "before frame 0", as the multipath receiver passes it on
                receive(0xFFFFFFFD, arrivalMs);
            if (n == 50) // a hostile peer's frame 2^31 ahead of the stream
                receive(n + 0x80000000u, arrivalMs);
        }
        const FrameDelaySummary s = d.summary(std::numeric_limits<std::int64_t>::min());
        QCOMPARE(s.p50Ms, 0.0);
        QCOMPARE(s.p99Ms, 0.0);
        // The copy counts as frame −3 (the buffer unwraps the numbering), come with frame 3: six
        // periods later than the stream. The frame 2^31 ahead does not count.
        QCOMPARE(s.intervalMaxMs, std::optional<double>(240));
    }
};

QTEST_APPLESS_MAIN(FrameDelaysTest)
#include "tst_framedelays.moc"
