// Unit test of the jitter buffer with real 40 ms Opus packets and a simulated clock: in-order play,
// reordering, duplicates, jitter, spikes, bursts after a stall, the hard cap, late and lost
// counting, FEC selection, the R-optimal target, stretching only between talk spurts, sequence
// wrap-around, sequence numbers far off the stream, a clock that jumped and malformed input.
#include "media/AudioFormat.h"
#include "media/CallQuality.h"
#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"

#include <QTest>
#include <algorithm>
#include <cmath>
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

// One real 40 ms Opus packet of speech with in-band FEC (its sender expects loss), so a missing
// packet before it can be rebuilt; the buffer tells frames apart by sequence number, not content.
const QByteArray& packet() {
    static const QByteArray p = [] {
        QString error;
        EncoderSettings settings;
        settings.expectedLossPercent = 5;
        auto encoder = VoiceEncoder::create(settings, &error);
        std::vector<float> pcm(encoder->samplesPerPacket());
        QByteArray last;
        for (int i = 0; i < 5; ++i) { // past the encoder's start-up, behind speech
            for (std::size_t k = 0; k < pcm.size(); ++k)
                pcm[k] = 0.2f * std::sin(0.11f * float(k + i * pcm.size())) *
                         (1.0f + 0.5f * std::sin(0.013f * float(k)));
            last = encoder->encodePacket(pcm);
        }
        return last;
    }();
    return p;
}

// Real speech-like and silent packets: variable bitrate Opus spends many bytes on the first and
// few on the second, which is how the buffer tells a pause.
const QByteArray& loudPacket() {
    static const QByteArray p = [] {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> noise(-0.3f, 0.3f);
        std::vector<float> pcm(encoder->samplesPerPacket());
        QByteArray last;
        for (int i = 0; i < 5; ++i) { // past the encoder's start-up
            std::generate(pcm.begin(), pcm.end(), [&] { return noise(rng); });
            last = encoder->encodePacket(pcm);
        }
        return last;
    }();
    return p;
}

const QByteArray& quietPacket() {
    static const QByteArray p = [] {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        std::vector<float> pcm(encoder->samplesPerPacket(), 0.0f);
        QByteArray last;
        for (int i = 0; i < 5; ++i)
            last = encoder->encodePacket(pcm);
        return last;
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

// Drives the buffer like VoiceReceiver does: deliver what has arrived, pull, and pull again 40 ms
// later after a packet (20 ms later while nothing plays yet). Stops at `until` or once the last
// packet has played; packets still on their way then are delivered (late) without further pulls,
// as when a call ends.
std::vector<Played> run(JitterBuffer& jb, std::vector<Arrival> arrivals, Time until,
                        const QByteArray& data = packet()) {
    std::stable_sort(arrivals.begin(), arrivals.end(),
                     [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    // Packet indices as the buffer numbers them: sequence numbers unwrapped from the first one.
    std::int64_t last = 0;
    for (const Arrival& a : arrivals)
        last =
            std::max<std::int64_t>(last, std::int64_t(arrivals.front().sequence) +
                                             std::int32_t(a.sequence - arrivals.front().sequence));
    std::vector<Played> played;
    std::size_t next = 0;
    for (Time now = 7ms; now < until;) {
        while (next < arrivals.size() && arrivals[next].at <= now) {
            jb.push(arrivals[next].sequence, arrivals[next].at, bytes(data));
            ++next;
        }
        played.push_back({now, jb.pull(now)});
        if (played.back().step.packet >= last)
            break;
        now += played.back().step.action == PlayoutAction::Silence ? 20ms : 40ms;
    }
    for (; next < arrivals.size(); ++next)
        jb.push(arrivals[next].sequence, arrivals[next].at, bytes(data));
    return played;
}

// Settings that make the mechanics easy to see: a 20 ms floor and a fast 20 ms/s decrease.
JitterBufferSettings tight() {
    JitterBufferSettings s;
    s.minTarget = 20ms;
    s.decreasePerPacket = 800us;
    return s;
}

std::vector<std::int64_t> decodedPackets(const std::vector<Played>& played) {
    std::vector<std::int64_t> frames;
    for (const Played& p : played)
        if (p.step.action == PlayoutAction::Decode)
            frames.push_back(p.step.packet);
    return frames;
}

// Whether `packets` are first, first + 1, ..., last.
bool isRun(const std::vector<std::int64_t>& packets, std::int64_t first, std::int64_t last) {
    if (packets.empty() || packets.front() != first || packets.back() != last)
        return false;
    return std::adjacent_find(packets.begin(), packets.end(),
                              [](auto a, auto b) { return b != a + 1; }) == packets.end();
}

int count(const std::vector<Played>& played, PlayoutAction action) {
    return int(std::count_if(played.begin(), played.end(),
                             [action](const Played& p) { return p.step.action == action; }));
}

} // namespace

Q_DECLARE_METATYPE(std::vector<Arrival>)

class TestJitterBuffer : public QObject {
    Q_OBJECT
private slots:
    void constantDelayPlaysEverythingInOrder() {
        JitterBuffer jb(tight());
        const auto played = run(jb, schedule(100, [](int) { return Time(250ms); }), 10s);
        const auto packets = decodedPackets(played);
        QCOMPARE(packets.size(), std::size_t(100));
        for (std::size_t i = 0; i < packets.size(); ++i)
            QCOMPARE(packets[i], std::int64_t(i));
        const auto s = jb.stats();
        QCOMPARE(s.late, 0u);
        QCOMPARE(s.lost, 0u);
        QCOMPARE(s.concealedMs, 0ms);
        QCOMPARE(s.stretchedMs, 0ms);
        QCOMPARE(s.droppedMs, 0ms);
        QCOMPARE(s.targetDelay, Time(20ms)); // the constant Tor delay cancels out
        // The first packet plays within the target plus one pull step of its arrival.
        const auto first = std::find_if(played.begin(), played.end(), [](const Played& p) {
            return p.step.action == PlayoutAction::Decode;
        });
        QVERIFY(first->at >= 250ms + 20ms && first->at < 250ms + 20ms + 20ms);
    }

    void reorderedPacketsPlayInOrder() {
        JitterBuffer jb(tight());
        // Every odd packet overtakes its predecessor by 10 ms.
        const auto played =
            run(jb, schedule(100, [](int i) { return Time(i % 2 ? 190ms : 240ms); }), 10s);
        const auto packets = decodedPackets(played);
        QVERIFY(std::is_sorted(packets.begin(), packets.end()));
        QVERIFY(std::adjacent_find(packets.begin(), packets.end()) == packets.end());
        QCOMPARE(packets.size(), std::size_t(100));
        QCOMPARE(jb.stats().late, 0u);
        QCOMPARE(jb.stats().targetDelay, Time(50ms)); // the reordering depth
    }

    void duplicatesAreDroppedAndCounted() {
        JitterBuffer jb;
        auto arrivals = schedule(100, [](int) { return Time(200ms); });
        // A second copy of every packet: some soon, some long after they were played.
        for (int i = 0; i < 100; ++i)
            arrivals.push_back({std::uint32_t(i), Time(40ms) * i + (i % 2 ? 210ms : 900ms)});
        const auto played = run(jb, arrivals, 10s);
        QCOMPARE(decodedPackets(played).size(), std::size_t(100));
        const auto s = jb.stats();
        QCOMPARE(s.duplicates, 100u);
        QCOMPARE(s.late, 0u);
        QCOMPARE(s.packetsReceived, 100u);
    }

    void targetFollowsAHighQuantileOfJitter() {
        JitterBuffer jb(tight());
        std::mt19937 rng(1);
        std::uniform_int_distribution<int> jitter(0, 100);
        const auto played = run(
            jb, schedule(1000, [&](int) { return Time(300ms) + Time(1ms) * jitter(rng); }), 60s);
        const auto s = jb.stats();
        // The 95th percentile (95 ms), plus one packet period for FEC while some packets are
        // late.
        QVERIFY2(s.targetDelay >= 90ms && s.targetDelay <= 140ms,
                 qPrintable(QString::number(s.targetDelay.count())));
        const double lateShare = double(s.late + s.lost) / 1000.0;
        QVERIFY2(lateShare < 0.05, qPrintable(QString::number(lateShare)));
        QCOMPARE(decodedPackets(played).size() + s.late + s.lost + s.droppedMs / 40ms,
                 std::size_t(1000));
    }

    void isolatedSpikeIsLateButDoesNotRaiseTheTarget() {
        JitterBuffer jb(tight());
        const auto played =
            run(jb, schedule(200, [](int i) { return Time(i == 100 ? 1500ms : 200ms); }), 12s);
        const auto s = jb.stats();
        QCOMPARE(s.late, 1u);
        QCOMPARE(s.lost, 0u);
        // One late packet in 250 costs less R than waiting 1.3 s; the miss only adds one packet
        // period of room for FEC.
        QCOMPARE(s.targetDelay, Time(40ms));
        // Packet 100 itself was concealed (there was no room for FEC yet).
        QCOMPARE(s.fecRecovered, 0u);
        QCOMPARE(s.concealedMs, 40ms);
        // The room is not made by stretching in the middle of speech (every packet here is
        // speech, and no packet goes missing again): the play position stays where it was.
        QCOMPARE(s.stretchedMs, 0ms);
        QCOMPARE(count(played, PlayoutAction::Conceal), 1);
    }

    void burstAfterStallIsDrainedNotPlayedLate() {
        JitterBuffer jb;
        // Packets sent between 4 s and 5.5 s are held back and released together at
        // 5.5 s + 200 ms, like a TCP stream that unblocks.
        const auto arrivals = schedule(300, [](int i) {
            const Time sent = Time(40ms) * i;
            return sent >= 4s && sent < 5500ms ? 5500ms + 200ms - sent : Time(200ms);
        });
        const auto played = run(jb, arrivals, 20s);
        // No packet plays much later than its slot: mouth-to-ear stays at the network delay
        // plus the cap and two packet periods of slack, even right after the burst.
        for (const Played& p : played) {
            if (p.step.action != PlayoutAction::Decode)
                continue;
            const Time sent = Time(40ms) * p.step.packet;
            QVERIFY2(p.at - sent <= 200ms + 300ms + 80ms,
                     qPrintable(QStringLiteral("packet %1 at %2 ms")
                                    .arg(p.step.packet)
                                    .arg(p.at.count() / 1000)));
        }
        const auto s = jb.stats();
        QVERIFY2(s.late >= 30, qPrintable(QString::number(s.late))); // of 38 held back
        QCOMPARE(s.late + s.lost + decodedPackets(played).size() + s.droppedMs / 40ms,
                 std::size_t(300));
        QCOMPARE(decodedPackets(played).back(), std::int64_t(299));
    }

    void targetNeverExceedsTheCap() {
        JitterBufferSettings settings;
        settings.maxTarget = 300ms;
        JitterBuffer jb(settings);
        std::mt19937 rng(2);
        std::uniform_int_distribution<int> jitter(0, 1500);
        auto arrivals = schedule(500, [&](int) { return Time(200ms) + Time(1ms) * jitter(rng); });
        std::stable_sort(arrivals.begin(), arrivals.end(),
                         [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
        Time highest{0};
        std::size_t next = 0;
        for (Time now = 7ms; now < 22s; now += 40ms) {
            for (; next < arrivals.size() && arrivals[next].at <= now; ++next)
                jb.push(arrivals[next].sequence, arrivals[next].at, bytes(packet()));
            jb.pull(now);
            highest = std::max(highest, jb.stats().targetDelay);
        }
        QCOMPARE(highest, Time(300ms));
        QVERIFY(jb.stats().late > 100);
    }

    void targetRisesFastAndFallsSlowly() {
        JitterBuffer jb(tight());
        // 10 s of up to 150 ms jitter, then 30 s of none.
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> jitter(0, 150);
        auto arrivals = schedule(1000, [&](int i) {
            return Time(200ms) + (i < 250 ? Time(1ms) * jitter(rng) : Time(0));
        });
        std::stable_sort(arrivals.begin(), arrivals.end(),
                         [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
        std::vector<Time> targets;
        std::size_t next = 0;
        for (Time now = 7ms; now < 40s; now += 40ms) {
            for (; next < arrivals.size() && arrivals[next].at <= now; ++next)
                jb.push(arrivals[next].sequence, arrivals[next].at, bytes(packet()));
            jb.pull(now);
            targets.push_back(jb.stats().targetDelay);
        }
        // Within the first second the target has already climbed most of the way.
        QVERIFY(targets[25] >= 100ms);
        // After the jitter stops it falls by at most 20 ms per second (25 pulls).
        for (std::size_t i = 300; i + 25 < targets.size(); ++i)
            QVERIFY(targets[i] - targets[i + 25] <= 20ms + 1ms);
        QCOMPARE(targets.back(), Time(20ms));
        QVERIFY(jb.stats().droppedMs > 0ms); // catching up as the target falls
    }

    void targetMaximisesTheRFactor_data() {
        QTest::addColumn<int>("extraMs");    // how much later every 25th packet arrives
        QTest::addColumn<int>("expectedMs"); // the target that gives the best R
        // 4 % of packets 100 ms later: losing them costs about 13 R (Ie,eff with Bpl 25.1),
        // waiting 100 ms more at 246 ms mouth-to-ear about 11 R, so wait; a 95th-percentile rule
        // would not.
        QTest::newRow("4 % at +100 ms") << 100 << 100;
        // 4 % of packets 400 ms later: waiting would cost about 25 R, so let them be late.
        QTest::newRow("4 % at +400 ms") << 400 << 20;
    }
    void targetMaximisesTheRFactor() {
        QFETCH(int, extraMs);
        QFETCH(int, expectedMs);
        JitterBufferSettings settings = tight();
        settings.pathDelay = 200ms;
        settings.maxTarget = 500ms;
        JitterBuffer jb(settings);
        // Every packet arrives before the first pull, so no loss history adds FEC room.
        for (int i = 0; i < 250; ++i)
            jb.push(std::uint32_t(i),
                    Time(40ms) * i + 200ms + (i % 25 == 12 ? Time(1ms) * extraMs : Time{0}),
                    bytes(packet()));
        jb.pull(11s);
        const Time target = jb.stats().targetDelay;
        QCOMPARE(target, Time(1ms) * expectedMs);
        // No other target scores better in the E-model.
        const auto r = [&](Time wait, double lossPct) {
            EModelInput in;
            in.mouthToEar = std::chrono::duration_cast<std::chrono::milliseconds>(
                Time(200ms) + Time(40ms) + MouthToEarBudget{}.codecLookahead + wait);
            in.packetLossPercent = lossPct;
            return computeEModel(in).rFactor;
        };
        const double chosen = r(target, target >= Time(1ms) * extraMs ? 0.0 : 4.0);
        QVERIFY(chosen >= r(20ms, 4.0));
        QVERIFY(chosen >= r(Time(1ms) * extraMs, 0.0));
    }

    void stretchesOnlyBetweenTalkSpurts() {
        // Speech in packets 0–69 and 90–149, a pause in 70–89; the network's jitter grows at
        // packet 30, so the target rises in the middle of a word. The extra delay is taken in
        // the pause or at a gap (a packet not there yet, which concealment would have covered
        // anyway), never by concealment inside flowing speech.
        JitterBuffer jb(tight());
        std::vector<Arrival> arrivals =
            schedule(150, [](int i) { return Time(200ms) + (i >= 30 && i % 3 == 0 ? 90ms : 0ms); });
        std::stable_sort(arrivals.begin(), arrivals.end(),
                         [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
        const auto quiet = [](std::int64_t packet) {
            return packet >= 70 && packet < 90;
        };
        std::vector<Played> played;
        std::size_t next = 0;
        for (Time now = 7ms; now < 10s;) {
            for (; next < arrivals.size() && arrivals[next].at <= now; ++next) {
                const auto s = arrivals[next].sequence;
                jb.push(s, arrivals[next].at, bytes(quiet(s) ? quietPacket() : loudPacket()));
            }
            played.push_back({now, jb.pull(now)});
            now += played.back().step.action == PlayoutAction::Silence ? 20ms : 40ms;
        }
        QVERIFY(jb.stats().stretchedMs > 0ms);
        for (std::size_t i = 0; i + 1 < played.size(); ++i) {
            const PlayoutStep& step = played[i].step;
            if (step.action != PlayoutAction::Conceal || step.packet != -1)
                continue;
            // A stretch: the packet played next is one of the pause's, or was not there yet.
            const auto following =
                std::find_if(played.begin() + std::ptrdiff_t(i) + 1, played.end(),
                             [](const Played& p) { return p.step.packet >= 0; });
            QVERIFY(following != played.end());
            const auto packet = following->step.packet;
            const bool gap = std::any_of(arrivals.begin(), arrivals.end(), [&](const Arrival& a) {
                return a.sequence == std::uint32_t(packet) && a.at > played[i].at;
            });
            QVERIFY2(quiet(packet) || gap,
                     qPrintable(QString("stretch in speech before packet %1").arg(packet)));
        }
    }

    void lateAndLostAreToldApart() {
        JitterBuffer jb(tight());
        // Packet 50 never arrives; packet 60 arrives 2 s late.
        auto arrivals = schedule(100, [](int i) { return Time(i == 60 ? 2200ms : 200ms); });
        arrivals.erase(arrivals.begin() + 50);
        run(jb, arrivals, 10s);
        const auto s = jb.stats();
        QCOMPARE(s.lost, 1u);
        QCOMPARE(s.late, 1u);
        // The first miss was concealed; it made room for FEC, which rebuilt the second.
        QCOMPARE(s.fecRecovered, 1u);
        QCOMPARE(s.concealedMs, 40ms);
        QCOMPARE(s.targetDelay, Time(40ms));
        QVERIFY(std::abs(jb.recentLossPercent() - 2.0) < 0.01); // 2 of the 100 played
    }

    // A loss followed by a packet without FEC (the sender expects no loss yet, or the packet is
    // silence) cannot be rebuilt from it: it is concealment, and counts as such. The buffer said
    // DecodeFec and counted a recovery whenever the next packet was there.
    void aLossBeforeAPacketWithoutFecIsConcealed() {
        QVERIFY(!opusPacketHasFec(bytes(loudPacket())));
        JitterBuffer jb;
        auto arrivals = schedule(100, [](int) { return Time(200ms); });
        arrivals.erase(arrivals.begin() + 50);
        const auto played = run(jb, arrivals, 10s, loudPacket());
        const auto s = jb.stats();
        QCOMPARE(s.lost, 1u);
        QCOMPARE(s.fecRecovered, 0u);
        QCOMPARE(s.concealedMs, 40ms);
        const auto lost = std::find_if(played.begin(), played.end(),
                                       [](const Played& p) { return p.step.packet == 50; });
        QVERIFY(lost != played.end());
        QCOMPARE(lost->step.action, PlayoutAction::Conceal);
        QVERIFY(lost->step.data.isEmpty());
    }

    void aPacketBeforeTheFirstPlayedIsLate() {
        // Packet 0 is overtaken at the start of the call and arrives once playout has begun at
        // packet 1: it was never received before, so it is late, not a duplicate.
        JitterBuffer jb;
        run(jb, schedule(100, [](int i) { return Time(i == 0 ? 1000ms : 200ms); }), 10s);
        const auto s = jb.stats();
        QCOMPARE(s.late, 1u);
        QCOMPARE(s.duplicates, 0u);
        QCOMPARE(s.packetsReceived, 100u);
        QCOMPARE(s.lost, 0u); // playout never passed it
    }

    void sustainedLossMakesRoomForFec() {
        JitterBuffer jb(tight());
        // Every tenth packet is lost.
        auto arrivals = schedule(300, [](int) { return Time(200ms); });
        std::erase_if(arrivals, [](const Arrival& a) { return a.sequence % 10 == 5; });
        run(jb, arrivals, 20s);
        const auto s = jb.stats();
        QCOMPARE(s.lost, 30u);
        // After the first loss the target holds one packet period (relative delay 0 + 40 ms), so
        // the packet after a lost one is there in time and carries it back through FEC.
        QCOMPARE(s.targetDelay, Time(40ms));
        QCOMPARE(s.fecRecovered, 29u);
        QCOMPARE(s.concealedMs, 40ms);
        QCOMPARE(s.stretchedMs, 40ms);
    }

    void defaultFloorLeavesRoomForFecWithoutStretching() {
        // The default 60 ms floor already holds the next packet when one is lost, so FEC
        // rebuilds even the first loss and the audio is never stretched.
        JitterBuffer jb;
        auto arrivals = schedule(300, [](int) { return Time(200ms); });
        std::erase_if(arrivals, [](const Arrival& a) { return a.sequence % 10 == 5; });
        run(jb, arrivals, 20s);
        const auto s = jb.stats();
        QCOMPARE(s.targetDelay, Time(60ms));
        QCOMPARE(s.fecRecovered, 30u);
        QCOMPARE(s.concealedMs, 0ms);
        QCOMPARE(s.stretchedMs, 0ms);
    }

    void sequenceNumbersWrapAround() {
        JitterBuffer jb;
        std::vector<Arrival> arrivals;
        for (int i = 0; i < 100; ++i)
            arrivals.push_back({std::uint32_t(0xffffffce + i), Time(40ms) * i + 200ms});
        const auto played = run(jb, arrivals, 10s);
        const auto packets = decodedPackets(played);
        QCOMPARE(packets.size(), std::size_t(100));
        QVERIFY(std::adjacent_find(packets.begin(), packets.end(),
                                   [](auto a, auto b) { return b != a + 1; }) == packets.end());
    }

    void aFarJumpIsRefused_data() {
        QTest::addColumn<int>("packets");
        QTest::addColumn<std::vector<Arrival>>("bogus");
        // Mid-call, one packet numbered a million ahead (2^31 ahead held the engine thread for
        // minutes): taken in, it moved the playout base by 11 hours, playout walked a million
        // packets to it, and every real packet after it came too late.
        QTest::newRow("mid-call") << 200 << std::vector<Arrival>{{100 + 1'000'000, 4200ms}};
        // Mid-call, packets a million behind the play position: each was counted late (the call
        // quality shown) and its delay of 11 hours went into the history the target comes from.
        std::vector<Arrival> behind;
        for (int k = 0; k < 20; ++k)
            behind.push_back({std::uint32_t(100 + k - 1'000'000), Time(4200ms) + k * 40ms});
        QTest::newRow("mid-call-behind") << 200 << behind;
        // Two seconds of them, agreeing with each other as a stream whose sender's clock jumped
        // would: among the real stream's packets they are no jump to follow.
        for (int k = 20; k < 50; ++k)
            behind.push_back({std::uint32_t(100 + k - 1'000'000), Time(4200ms) + k * 40ms});
        QTest::newRow("mid-call-behind-2s") << 200 << behind;
        // Before playout starts, a packet a million behind the first one would become the first
        // to play, one a million ahead would set the base.
        QTest::newRow("before-playout")
            << 100
            << std::vector<Arrival>{{std::uint32_t(1 - 1'000'000), 201ms}, {1 + 1'000'000, 202ms}};
    }

    void aFarJumpIsRefused() {
        QFETCH(int, packets);
        QFETCH(std::vector<Arrival>, bogus);
        JitterBuffer jb;
        auto arrivals = schedule(packets, [](int) { return 200ms; });
        arrivals.insert(arrivals.end(), bogus.begin(), bogus.end());
        const auto played = decodedPackets(run(jb, arrivals, Time(40ms) * packets + 2s));
        QCOMPARE(played.size(), std::size_t(packets));
        QVERIFY(isRun(played, 0, packets - 1));
        QCOMPARE(jb.stats().late, 0u);
        QCOMPARE(jb.stats().outOfReach, std::uint64_t(bogus.size()));
    }

    void aClockJumpIsFollowed_data() {
        QTest::addColumn<int>("shift");   // added to the sequence numbers of packets 100-399
        QTest::addColumn<int>("pauseMs"); // added to their arrival times
        QTest::addColumn<int>("run");     // packets after the jump before it is followed
        // The sender's clock stopped for 12 s (a suspended laptop or paused VM: no capture
        // overrun, so numbering resumed where it left off): every later packet was 300 behind
        // the play position, refused as out of reach, and the direction stayed silent.
        QTest::newRow("sender-paused-12s") << 0 << 12000 << 25;
        // Our clock stopped for 12 s: every later packet was 300 ahead, refused the same way.
        QTest::newRow("we-paused-12s") << 300 << 0 << 25;
        // The sender's clock stopped for 5 s: every later packet counted late until the old
        // minimum left the 20-s window.
        QTest::newRow("sender-paused-5s") << 0 << 5000 << 25;
        // Stopped for 1 s or half a second (a review found it): the same, 20 s of late frames.
        // Such a jump is followed after 4 s of packets, which a draining network queue never
        // makes: its delays do not agree that long.
        QTest::newRow("sender-paused-1s") << 0 << 1000 << 100;
        QTest::newRow("sender-paused-500ms") << 0 << 500 << 100;
    }
    void aClockJumpIsFollowed() {
        QFETCH(int, shift);
        QFETCH(int, pauseMs);
        QFETCH(int, run);
        JitterBuffer jb;
        auto arrivals =
            schedule(400, [&](int i) { return Time(200ms) + Time(1ms) * (i < 100 ? 0 : pauseMs); });
        for (int i = 100; i < 400; ++i)
            arrivals[std::size_t(i)].sequence += std::uint32_t(shift);
        // Driven as run() does, but on past the last packet's number, which the play position
        // passes while the sender's clock stands still.
        std::vector<std::int64_t> before, after;
        Time resumedAt{-1};
        std::size_t next = 0;
        for (Time now = 7ms; now < arrivals.back().at + 2s;) {
            for (; next < arrivals.size() && arrivals[next].at <= now; ++next)
                jb.push(arrivals[next].sequence, arrivals[next].at, bytes(packet()));
            const PlayoutStep step = jb.pull(now);
            if (step.action == PlayoutAction::Decode)
                (step.packet < 100 + shift ? before : after).push_back(step.packet);
            if (after.size() == 1 && resumedAt < Time{0})
                resumedAt = now;
            now += step.action == PlayoutAction::Silence ? 20ms : 40ms;
        }
        QVERIFY(isRun(before, 0, 99));
        // A run of packets tells the jump from a bad packet (or a queue); the rest play.
        QVERIFY2(
            int(after.size()) >= 300 - run - 15,
            qPrintable(QString("%1 of the 300 packets after the jump played").arg(after.size())));
        QVERIFY(isRun(after, after.front(), 399 + shift));
        const Time silence = resumedAt - arrivals[100].at;
        QVERIFY2(silence <= 40ms * run + 200ms,
                 qPrintable(QString("playback resumed %1 ms after the first packet after the jump")
                                .arg(silence.count() / 1000)));
        QVERIFY2(int(jb.stats().late) < run + 5, qPrintable(QString::number(jb.stats().late)));
        // A short jump is followed only after its whole run: as many packets came late first.
        if (pauseMs > 0 && pauseMs < 2000)
            QVERIFY2(int(jb.stats().late) >= run - 5, qPrintable(QString::number(jb.stats().late)));
    }

    // A network queue that builds at once to 1.2 s and drains at 200 ms a second is no jump: its
    // delays do not agree within the cap for 4 s, and playout is not started over (a Silence
    // after playout began would say it was; it also dropped what the buffer held).
    void aDrainingQueueIsNoJump() {
        JitterBuffer jb;
        const auto played = run(jb,
                                schedule(400,
                                         [](int i) {
                                             const int queued =
                                                 i < 100 ? 0 : std::max(0, 1200 - (i - 100) * 8);
                                             return Time(200ms) + Time(1ms) * queued;
                                         }),
                                30s);
        const auto begun = std::find_if(played.begin(), played.end(), [](const Played& p) {
            return p.step.action == PlayoutAction::Decode;
        });
        QVERIFY(begun != played.end());
        QVERIFY(std::none_of(begun, played.end(), [](const Played& p) {
            return p.step.action == PlayoutAction::Silence;
        }));
        QVERIFY(jb.stats().late > 0); // the queue did make packets late
    }

    void malformedPacketsAreCountedAndIgnored() {
        JitterBuffer jb;
        const std::uint8_t garbage[] = {0x03, 0xff};
        jb.push(0, 0ms, garbage);
        jb.push(1, 0ms, {});
        // A valid Opus packet of the wrong duration (20 ms) is refused too.
        QString error;
        EncoderSettings twenty;
        twenty.packetPeriod = 20ms;
        auto encoder = VoiceEncoder::create(twenty, &error);
        const QByteArray shortPacket =
            encoder->encodePacket(std::vector<float>(encoder->samplesPerPacket(), 0.0f));
        QVERIFY(!shortPacket.isEmpty());
        jb.push(2, 0ms, bytes(shortPacket));
        QCOMPARE(jb.stats().malformed, 3u);
        QCOMPARE(jb.pull(1s).action, PlayoutAction::Silence);
        // Bogus far-future sequence numbers cannot grow memory without bound.
        for (std::uint32_t i = 0; i < 2000; ++i)
            jb.push(i * 1000, 1ms * i, bytes(packet()));
        QVERIFY(jb.stats().currentLevel <= 250 * 40ms);
    }
};

QTEST_GUILESS_MAIN(TestJitterBuffer)
#include "tst_jitterbuffer.moc"
