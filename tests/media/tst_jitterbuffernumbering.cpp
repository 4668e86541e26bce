// Unit test of the jitter buffer's reading of sequence numbers, with real 40 ms Opus packets and a
// simulated clock: wrap-around, packets numbered far off the stream, a clock that jumped on either
// side (followed), a draining queue (not followed), a sound card whose clock drifts from the
// sender's for 90 minutes, and malformed input.
#include "JitterBufferDriving.h"
#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"

#include <QTest>
#include <algorithm>
#include <random>

using namespace onionvoice::media;
using namespace onionvoice::media::testing;
using namespace std::chrono_literals;

namespace {

struct DriftRun {
    std::vector<double> delayMs; // per packet played: played at minus sent at
    int packets = 0;             // sent
    int decoded = 0;
    int concealed = 0;
};

// 90 minutes of talk (3 s of speech, 1 s of pause) sent every 40 ms on the sender's clock,
// arriving 150-170 ms later, pulled by a sound card whose clock runs `skew` fast (pulls come
// 40 ms × (1 - skew) apart).
DriftRun driftingCall(double skew) {
    JitterBuffer jb;
    DriftRun r;
    const auto sentAt = [](std::int64_t p) {
        return Time(40ms) * p;
    };
    const std::int64_t packets = 90 * 60 * 25;
    std::mt19937 rng(90);
    std::uniform_int_distribution<int> jitterUs(0, 20000);
    // Each packet is pushed when it arrives, 150-170 ms after it was sent: the jitter (20 ms at
    // most) is less than the 40 ms between packets, so they arrive in order.
    auto arrival = std::vector<Time>(std::size_t(packets));
    for (std::int64_t p = 0; p < packets; ++p)
        arrival[std::size_t(p)] = sentAt(p) + 150ms + Time(jitterUs(rng));
    std::int64_t next = 0;
    double now = 7000; // µs on the receiver's clock, which is the sender's
    while (next < packets || now < double(sentAt(packets).count()) + 1e6) {
        for (; next < packets && double(arrival[std::size_t(next)].count()) <= now; ++next) {
            const QByteArray& data = next % 100 < 75 ? loudPacket() : quietPacket();
            jb.push(std::uint32_t(next), arrival[std::size_t(next)], bytes(data));
        }
        const PlayoutStep step = jb.pull(Time(std::int64_t(now)));
        if (step.action == PlayoutAction::Decode || step.action == PlayoutAction::DecodeFec) {
            ++r.decoded;
            r.delayMs.push_back((now - double(sentAt(step.packet).count())) / 1000.0);
        } else if (step.action == PlayoutAction::Conceal) {
            ++r.concealed;
        }
        if (step.packet == packets - 1)
            break;
        now += (step.action == PlayoutAction::Silence ? 20000.0 : 40000.0) * (1.0 - skew);
    }
    r.packets = int(packets);
    return r;
}

double medianOf(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

} // namespace

class TestJitterBufferNumbering : public QObject {
    Q_OBJECT
private slots:
    // A sound card's clock is not the sender's: 100 ppm (common) is 0.54 s over 90 minutes, and
    // cheap USB devices drift more. The buffer must neither let the delay grow with it (a slow
    // card) nor run dry again and again (a fast one): the delay at the end of a 90-minute call is
    // the delay at its start, and nearly every packet plays.
    void aSoundCardThatDriftsIsFollowedForNinetyMinutes_data() {
        QTest::addColumn<double>("skew");
        QTest::newRow("300 ppm slow") << -300e-6;
        QTest::newRow("300 ppm fast") << 300e-6;
    }
    void aSoundCardThatDriftsIsFollowedForNinetyMinutes() {
        QFETCH(double, skew);
        const DriftRun r = driftingCall(skew);
        const std::size_t tenMinutes = 10 * 60 * 25;
        QVERIFY(r.delayMs.size() > 2 * tenMinutes);
        const double first = medianOf({r.delayMs.begin(), r.delayMs.begin() + tenMinutes});
        const double last = medianOf({r.delayMs.end() - tenMinutes, r.delayMs.end()});
        qInfo("skew %+.0f ppm: median delay %.1f ms in the first 10 minutes, %.1f ms in the last; "
              "%d of %d packets decoded, %d concealed",
              skew * 1e6, first, last, r.decoded, r.packets, r.concealed);
        QVERIFY2(std::abs(last - first) < 60, qPrintable(QString::number(last - first)));
        // What the drift itself costs: a slow card has a packet's worth of audio too much every
        // 40 ms / skew (dropped), a fast one too little (stretched); twice that, and ten more.
        const int drift = int(std::abs(skew) * r.packets);
        QVERIFY(r.packets - r.decoded <= 2 * drift + 10);
        QVERIFY(r.concealed <= 2 * drift + 10);
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

QTEST_GUILESS_MAIN(TestJitterBufferNumbering)
#include "tst_jitterbuffernumbering.moc"
