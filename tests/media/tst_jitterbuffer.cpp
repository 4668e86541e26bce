// Unit test of the jitter buffer with real 40 ms Opus packets and a simulated clock: in-order play,
// reordering, duplicates, jitter, spikes, bursts after a stall, the hard cap, late and lost
// counting, FEC selection, the R-optimal target and stretching only between talk spurts (the
// reading of sequence numbers: tst_jitterbuffernumbering.cpp).
#include "JitterBufferDriving.h"
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
using namespace onionvoice::media::testing;

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
};

QTEST_GUILESS_MAIN(TestJitterBuffer)
#include "tst_jitterbuffer.moc"
