// Unit test of the jitter buffer with real Opus packets and a simulated clock: in-order play,
// reordering, duplicates, jitter, spikes, bursts after a stall, the hard cap, late and lost
// counting, FEC selection, sequence wrap-around and malformed input.
#include "media/AudioFormat.h"
#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"

#include <QTest>
#include <algorithm>
#include <random>

using namespace onionvoice::media;
using namespace std::chrono_literals;
using Time = JitterBuffer::Time;

namespace {

struct Arrival {
    std::uint32_t sequence;
    Time at;
};

struct Played {
    Time at;
    PlayoutStep step;
};

// One real 40 ms Opus packet; the buffer tells frames apart by sequence number, not content.
const QByteArray& packet() {
    static const QByteArray p = [] {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        std::vector<float> pcm(encoder->samplesPerPacket(), 0.01f);
        return encoder->encodePacket(pcm);
    }();
    return p;
}

std::span<const std::uint8_t> bytes(const QByteArray& a) {
    return {reinterpret_cast<const std::uint8_t*>(a.constData()), std::size_t(a.size())};
}

// Packets sent every 40 ms from time 0, arriving after `delay(i)`.
template <typename Delay> std::vector<Arrival> schedule(int packets, Delay delay) {
    std::vector<Arrival> out;
    for (int i = 0; i < packets; ++i)
        out.push_back({std::uint32_t(i), Time(40ms) * i + delay(i)});
    return out;
}

// Drives the buffer: every 20 ms (at 7 ms past the period start) deliver what has arrived, then
// pull one frame. Stops at `until` or once the last frame has played; packets still on their way
// then are delivered (late) without further pulls, as when a call ends.
std::vector<Played> run(JitterBuffer& jb, std::vector<Arrival> arrivals, Time until) {
    std::stable_sort(arrivals.begin(), arrivals.end(),
                     [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    // Frame indices as the buffer numbers them: sequence numbers unwrapped from the first one.
    std::int64_t lastFrame = 0;
    for (const Arrival& a : arrivals)
        lastFrame = std::max<std::int64_t>(
            lastFrame, 2 * (std::int64_t(arrivals.front().sequence) +
                            std::int32_t(a.sequence - arrivals.front().sequence)) +
                           1);
    std::vector<Played> played;
    std::size_t next = 0;
    for (Time now = 7ms; now < until; now += 20ms) {
        while (next < arrivals.size() && arrivals[next].at <= now) {
            jb.push(arrivals[next].sequence, arrivals[next].at, bytes(packet()));
            ++next;
        }
        played.push_back({now, jb.pull(now)});
        if (played.back().step.frame >= lastFrame)
            break;
    }
    for (; next < arrivals.size(); ++next)
        jb.push(arrivals[next].sequence, arrivals[next].at, bytes(packet()));
    return played;
}

std::vector<std::int64_t> decodedFrames(const std::vector<Played>& played) {
    std::vector<std::int64_t> frames;
    for (const Played& p : played)
        if (p.step.action == PlayoutAction::Decode)
            frames.push_back(p.step.frame);
    return frames;
}

int count(const std::vector<Played>& played, PlayoutAction action) {
    return int(std::count_if(played.begin(), played.end(),
                             [action](const Played& p) { return p.step.action == action; }));
}

} // namespace

class TestJitterBuffer : public QObject {
    Q_OBJECT
private slots:
    void constantDelayPlaysEverythingInOrder() {
        JitterBuffer jb;
        const auto played = run(jb, schedule(100, [](int) { return Time(250ms); }), 5s);
        const auto frames = decodedFrames(played);
        QCOMPARE(frames.size(), std::size_t(200));
        for (std::size_t i = 0; i < frames.size(); ++i)
            QCOMPARE(frames[i], std::int64_t(i));
        const auto s = jb.stats();
        QCOMPARE(s.late, 0u);
        QCOMPARE(s.lost, 0u);
        QCOMPARE(s.concealedMs, 0ms);
        QCOMPARE(s.targetDelay, Time(20ms)); // the constant Tor delay cancels out
        // The first frame plays within the target plus one pull period of its arrival.
        const auto first = std::find_if(played.begin(), played.end(), [](const Played& p) {
            return p.step.action == PlayoutAction::Decode;
        });
        QVERIFY(first->at >= 250ms + 20ms && first->at < 250ms + 20ms + 20ms);
    }

    void reorderedPacketsPlayInOrder() {
        JitterBuffer jb;
        // Every odd packet overtakes its predecessor by 15 ms.
        auto arrivals = schedule(100, [](int i) { return Time(i % 2 ? 190ms : 240ms); });
        const auto played = run(jb, arrivals, 5s);
        const auto frames = decodedFrames(played);
        QVERIFY(std::is_sorted(frames.begin(), frames.end()));
        QVERIFY(std::adjacent_find(frames.begin(), frames.end()) == frames.end());
        QCOMPARE(frames.size(), std::size_t(200));
        QCOMPARE(jb.stats().late, 0u);
    }

    void duplicatesAreDroppedAndCounted() {
        JitterBuffer jb;
        auto arrivals = schedule(100, [](int) { return Time(200ms); });
        // A second copy of every packet: some soon, some long after they were played.
        for (int i = 0; i < 100; ++i)
            arrivals.push_back({std::uint32_t(i), Time(40ms) * i + (i % 2 ? 210ms : 900ms)});
        const auto played = run(jb, arrivals, 5s);
        QCOMPARE(decodedFrames(played).size(), std::size_t(200));
        const auto s = jb.stats();
        QCOMPARE(s.duplicates, 100u);
        QCOMPARE(s.late, 0u);
        QCOMPARE(s.packetsReceived, 100u);
    }

    void targetFollowsAHighQuantileOfJitter() {
        JitterBuffer jb;
        std::mt19937 rng(1);
        std::uniform_int_distribution<int> jitter(0, 100);
        const auto played = run(
            jb, schedule(1000, [&](int) { return Time(300ms) + Time(1ms) * jitter(rng); }), 41s);
        const auto s = jb.stats();
        QVERIFY2(s.targetDelay >= 85ms && s.targetDelay <= 100ms,
                 qPrintable(QString::number(s.targetDelay.count())));
        const double lateShare = double(s.late + s.lost) / 2000.0;
        QVERIFY2(lateShare < 0.08, qPrintable(QString::number(lateShare)));
        QCOMPARE(decodedFrames(played).size() + s.late + s.lost, std::size_t(2000));
    }

    void isolatedSpikeIsLateButDoesNotRaiseTheTarget() {
        JitterBuffer jb;
        const auto played =
            run(jb, schedule(200, [](int i) { return Time(i == 100 ? 1500ms : 200ms); }), 9s);
        const auto s = jb.stats();
        QCOMPARE(s.late, 2u); // both frames of the delayed packet
        QCOMPARE(s.lost, 0u);
        QCOMPARE(s.targetDelay, Time(20ms));
        // Frame 200 was concealed, frame 201 rebuilt from the FEC data of frame 202.
        QCOMPARE(s.fecRecovered, 1u);
        QCOMPARE(s.concealedMs, 20ms);
        QCOMPARE(count(played, PlayoutAction::DecodeFec), 1);
    }

    void burstAfterStallIsDrainedNotPlayedLate() {
        JitterBuffer jb;
        // Packets sent between 4 s and 5.5 s are held back and released together at 5.5 s + 200 ms,
        // like a TCP stream that unblocks.
        const auto arrivals = schedule(300, [](int i) {
            const Time sent = Time(40ms) * i;
            return sent >= 4s && sent < 5500ms ? 5500ms + 200ms - sent : Time(200ms);
        });
        const auto played = run(jb, arrivals, 13s);
        // No frame plays much later than its slot: mouth-to-ear stays at the network delay plus
        // the cap and a packet period, even right after the burst.
        for (const Played& p : played) {
            if (p.step.action != PlayoutAction::Decode)
                continue;
            const Time sent = Time(20ms) * p.step.frame;
            QVERIFY2(p.at - sent <= 200ms + 300ms + 40ms,
                     qPrintable(QStringLiteral("frame %1 at %2 ms")
                                    .arg(p.step.frame)
                                    .arg(p.at.count() / 1000)));
        }
        const auto s = jb.stats();
        QVERIFY(s.late >= 60); // most of the 75 held-back frames pairs missed their slot
        QCOMPARE(s.late + s.lost + decodedFrames(played).size() + s.droppedMs / 20ms,
                 std::size_t(600));
        // After the stall the buffer settles again: the tail plays without loss.
        const auto frames = decodedFrames(played);
        QCOMPARE(frames.back(), std::int64_t(599));
    }

    void targetNeverExceedsTheCap() {
        JitterBufferSettings settings;
        settings.maxTarget = 300ms;
        JitterBuffer jb(settings);
        std::mt19937 rng(2);
        std::uniform_int_distribution<int> jitter(0, 1500);
        Time highest{0};
        auto arrivals = schedule(500, [&](int) { return Time(200ms) + Time(1ms) * jitter(rng); });
        std::stable_sort(arrivals.begin(), arrivals.end(),
                         [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
        std::size_t next = 0;
        for (Time now = 7ms; now < 22s; now += 20ms) {
            while (next < arrivals.size() && arrivals[next].at <= now)
                jb.push(arrivals[next].sequence, arrivals[next].at, bytes(packet())), ++next;
            jb.pull(now);
            highest = std::max(highest, jb.stats().targetDelay);
        }
        QCOMPARE(highest, Time(300ms));
        QVERIFY(jb.stats().late > 100);
    }

    void targetRisesFastAndFallsSlowly() {
        JitterBuffer jb;
        // 10 s of 150 ms jitter, then 20 s of none.
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> jitter(0, 150);
        const auto arrivals = schedule(750, [&](int i) {
            return Time(200ms) + (i < 250 ? Time(1ms) * jitter(rng) : Time(0));
        });
        std::vector<Time> targets;
        auto sorted = arrivals;
        std::size_t next = 0;
        for (Time now = 7ms; now < 30s; now += 20ms) {
            while (next < sorted.size() && sorted[next].at <= now)
                jb.push(sorted[next].sequence, sorted[next].at, bytes(packet())), ++next;
            jb.pull(now);
            targets.push_back(jb.stats().targetDelay);
        }
        // Within the first second the target has already climbed most of the way.
        QVERIFY(targets[50] >= 100ms);
        // After the jitter stops it falls by at most 20 ms per second (50 pulls).
        for (std::size_t i = 550; i + 50 < targets.size(); ++i)
            QVERIFY(targets[i] - targets[i + 50] <= 20ms + 1ms);
        QCOMPARE(targets.back(), Time(20ms));
        QVERIFY(jb.stats().droppedMs > 0ms); // catching up when the target falls
    }

    void lateAndLostAreToldApart() {
        JitterBuffer jb;
        // Packet 50 never arrives; packet 60 arrives 2 s late.
        auto arrivals = schedule(100, [](int i) { return Time(i == 60 ? 2200ms : 200ms); });
        arrivals.erase(arrivals.begin() + 50);
        run(jb, arrivals, 5s);
        const auto s = jb.stats();
        QCOMPARE(s.lost, 2u);
        QCOMPARE(s.late, 2u);
        QCOMPARE(s.fecRecovered, 2u);
        QCOMPARE(s.concealedMs, 40ms);
        QVERIFY(jb.recentLossPercent() >= 0.0);
    }

    void sequenceNumbersWrapAround() {
        JitterBuffer jb;
        std::vector<Arrival> arrivals;
        for (int i = 0; i < 100; ++i)
            arrivals.push_back({std::uint32_t(0xffffffce + i), Time(40ms) * i + 200ms});
        const auto played = run(jb, arrivals, 5s);
        const auto frames = decodedFrames(played);
        QCOMPARE(frames.size(), std::size_t(200));
        QVERIFY(std::adjacent_find(frames.begin(), frames.end(),
                                   [](auto a, auto b) { return b != a + 1; }) == frames.end());
    }

    void malformedPacketsAreCountedAndIgnored() {
        JitterBuffer jb;
        const std::uint8_t garbage[] = {0x03, 0xff};
        jb.push(0, 0ms, garbage);
        jb.push(1, 0ms, {});
        QCOMPARE(jb.stats().malformed, 2u);
        QCOMPARE(jb.pull(1s).action, PlayoutAction::Silence);
        // A bogus far-future sequence number cannot grow memory without bound.
        for (std::uint32_t i = 0; i < 2000; ++i)
            jb.push(i * 1000, 1ms * i, bytes(packet()));
        QVERIFY(jb.stats().currentLevel <= 500 * 20ms);
    }
};

QTEST_GUILESS_MAIN(TestJitterBuffer)
#include "tst_jitterbuffer.moc"
