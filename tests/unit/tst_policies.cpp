// Unit tests of the scheduling policies: simple, torfone, alternate and double-send as DONAR
// describes them, and the adaptive policy's rules: stalled links avoided (an overdue
// acknowledgement counted beyond the peer's hold), links judged by their tail (known delays
// drained from when they were first known; an idle link, or one whose delay is only known again,
// by its usual delay; a replaced link forgotten), a third stream while links are unsettled, links
// that spike together kept apart (and a quiet link judged by its partner's spike), copies only in
// trouble and within budget, idle links explored.
#include "multipath/AdaptivePolicy.h"
#include "multipath/LinkTails.h"
#include "multipath/SchedulingPolicy.h"

#include <QTest>
#include <array>
#include <set>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

namespace {

struct World {
    LinkGroups groups{{3, 3}};
    LinkMonitor monitor{2000ms};
    DeliveryTracker delivery;
    explicit World(int links = 12) {
        for (LinkId l = 0; l < links; ++l)
            groups.linkUp(l);
    }
    std::vector<LinkId> pick(SchedulingPolicy& p, Time now = 0ms, LinkId previous = kNoLink) {
        const auto s = p.select({now, groups, monitor, delivery, previous});
        return {s.links().begin(), s.links().end()};
    }
    // One packet as the endpoint sends it: the previous packet's link known, the first copy's
    // link marked used.
    std::vector<LinkId> send(SchedulingPolicy& p, Time now) {
        const auto s = pick(p, now, lastSent);
        groups.markUsed(now, s[0]);
        lastSent = s[0];
        return s;
    }
    LinkId lastSent = kNoLink;
};

std::vector<LinkId> ids(std::initializer_list<int> v) {
    return std::vector<LinkId>(v.begin(), v.end());
}

// The peer's record on `link`, sent at peer time sendMs, echoing our record sent at echoMs.
Record peerRecord(std::uint32_t txSeq, std::uint32_t sendMs, std::uint32_t echoMs) {
    Record r;
    r.txSeq = txSeq;
    r.sendTimeMs = sendMs;
    r.echoTimeMs = echoMs;
    r.history.fill(kNoLink);
    r.freshFrames = 1;
    r.frames = {{txSeq, {0}}};
    return r;
}

// The peer's reports of our direction's delays on links 0–3, carried by its records on link 3.
struct PeerReports {
    World& world;
    std::uint32_t tx = 0;
    void operator()(Time now, std::array<int, 4> delayMs) {
        Record r = peerRecord(tx++, std::uint32_t(toWholeMillis(now)), kNoEcho);
        for (LinkId l = 0; l < 4; ++l)
            r.scores.push_back({l, 0, std::uint8_t(delayMs[l] / kDelayUnitMs), 0});
        world.monitor.onRecord(now, 3, r);
    }
};

// The peer's record on link 0 at `now`, reporting our direction's delay on each of `links` links
// for which `delayMs` gives one.
template <typename DelayOf>
void reportOnLinkZero(World& w, std::uint32_t& tx, Time now, int links, DelayOf delayMs) {
    Record r = peerRecord(tx++, std::uint32_t(toWholeMillis(now)), kNoEcho);
    for (LinkId l = 0; l < links; ++l)
        if (const std::optional<int> d = delayMs(l))
            r.scores.push_back({l, 0, std::uint8_t(*d / kDelayUnitMs), 0});
    w.monitor.onRecord(now, 0, r);
}

AdaptiveTuning withoutExploration() {
    AdaptiveTuning tuning;
    tuning.exploreEvery = std::chrono::hours(1);
    return tuning;
}

// Four links whose delays in our direction the peer reports, and the adaptive policy without
// exploration.
struct ReportedLinks {
    World w{4};
    AdaptivePolicy p{withoutExploration()};
    PeerReports report{w};
};

// Twelve links, the adaptive policy as it ships (exploring), and the peer's records one second
// into the call.
struct ExploringCall {
    World w{12};
    const AdaptiveTuning tuning{};
    AdaptivePolicy p{tuning};
    Time now = 1000ms;
    std::uint32_t tx = 0;
};

} // namespace

class PoliciesTest : public QObject {
    Q_OBJECT
private slots:
    void factoryKnowsEveryName() {
        for (auto name : policyNames()) {
            const auto p = makePolicy(name);
            QVERIFY(p != nullptr);
            QCOMPARE(p->name(), name);
        }
        QVERIFY(makePolicy("nonsense") == nullptr);
    }

    void simpleWaitsForItsReplacement() {
        World w;
        auto p = makePolicy("simple");
        QCOMPARE(w.pick(*p), ids({0}));
        w.groups.linkDown(0);
        QVERIFY(w.pick(*p).empty());
        w.groups.linkUp(0);
        QCOMPARE(w.pick(*p), ids({0}));
    }

    void torfoneUsesTwoFixedLinks() {
        World w;
        auto p = makePolicy("torfone");
        QCOMPARE(w.pick(*p), ids({0, 1}));
        QCOMPARE(w.pick(*p), ids({0, 1}));
        w.groups.linkDown(1);
        QCOMPARE(w.pick(*p), ids({0}));
    }

    void alternateAlternatesGroupsRoundRobin() {
        World w;
        auto p = makePolicy("alternate");
        std::vector<LinkId> seen;
        for (int i = 0; i < 6; ++i) {
            const auto s = w.pick(*p);
            QCOMPARE(s.size(), std::size_t(1));
            seen.push_back(s[0]);
        }
        QCOMPARE(seen, ids({0, 3, 1, 4, 2, 5}));
    }

    void doubleSendTakesOneOfEachGroup() {
        World w;
        auto p = makePolicy("double-send");
        QCOMPARE(w.pick(*p), ids({0, 3}));
        QCOMPARE(w.pick(*p), ids({1, 4}));
        QCOMPARE(w.pick(*p), ids({2, 5}));
        QCOMPARE(w.pick(*p), ids({0, 3}));
    }

    void donarRanksByReorderAdaptiveByDelay() {
        const LinkScore fastButReordered{4.0, 10ms, 10ms};
        const LinkScore slowInOrder{0.0, 300ms, 250ms};
        auto donar = makePolicy("alternate");
        auto adaptive = makePolicy("adaptive");
        QVERIFY(*donar->rankKey(slowInOrder) < *donar->rankKey(fastButReordered));
        QVERIFY(*adaptive->rankKey(fastButReordered) < *adaptive->rankKey(slowInOrder));
        QVERIFY(!adaptive->rankKey(std::nullopt).has_value());
    }

    void adaptiveAvoidsAStalledLinkAndTheLinkOfThePreviousPacket() {
        World w(4);
        // Links 0–3 measured (relative delays 0, 0, 30, 100 ms) with a 300 ms round trip.
        const std::uint32_t delays[] = {0, 0, 30, 100};
        for (LinkId l = 0; l < 4; ++l)
            w.monitor.onRecord(Millis(1000 + delays[l]), l, peerRecord(l, 850, 700));
        // Our record on link 0 left at 100 ms and is still unacknowledged at 1000 ms.
        w.delivery.onSent(100ms, 0, 7);
        AdaptivePolicy p(withoutExploration());
        QCOMPARE(w.pick(p, 1000ms), ids({1}));
        QCOMPARE(w.pick(p, 1040ms, 1), ids({2}));
        // Acknowledged at last: the stall stays in link 0's tail for a second, then it is as
        // good as link 1 again and, less recently used, takes its turn.
        w.delivery.onAcknowledged(0, 7);
        QVERIFY(w.pick(p, 1080ms, 2) != ids({0}));
        // New records, with the jitter of real ones (a delay known again is no news of a link).
        for (LinkId l = 0; l < 4; ++l)
            w.monitor.onRecord(Millis(2100 + delays[l] + 1 + l), l, peerRecord(4 + l, 1950, 1800));
        QCOMPARE(w.pick(p, 2200ms, 1), ids({0}));
    }

    void adaptiveCountsAnAcknowledgementOverdueBeyondThePeersHold_data() {
        QTest::addColumn<int>("packetMs");
        QTest::newRow("20 ms packets") << 20;
        QTest::newRow("40 ms packets") << 40;
    }

    void adaptiveCountsAnAcknowledgementOverdueBeyondThePeersHold() {
        // Every link has a 300 ms round trip. Our record on link 0 left at 1000 ms and is still
        // unacknowledged at 1400 ms: 100 ms beyond the round trip. The peer would have sent its
        // acknowledgement with its next record, on average half a packet period after ours
        // arrived, so what link 0 is known to be slower by is 100 ms less that hold.
        QFETCH(int, packetMs);
        World w(4);
        for (LinkId l = 0; l < 4; ++l)
            w.monitor.onRecord(1000ms, l, peerRecord(l, 850, 700));
        w.delivery.onSent(1000ms, 0, 7);
        AdaptivePolicy p(withoutExploration());
        for (Time now = 1000ms; now <= 1400ms; now += Millis(packetMs))
            w.pick(p, now);
        QCOMPARE(p.tails().tail(1400ms, 0), Millis(100 - packetMs / 2));
    }

    void adaptiveJudgesLinksByTheirTailNotTheNewestSample() {
        // The peer reports our direction's delays; records travel on link 3 (reported slow).
        ReportedLinks links;
        auto& [w, p, report] = links;
        // Link 0 had a 300 ms spike; its newest delay is the best of all, links 1 and 2 steady.
        report(1000ms, {300, 60, 60, 400});
        w.pick(p, 1000ms);
        std::set<LinkId> used;
        const auto packets = [&](Time from) {
            // Through `links`: clang before 16 lets no lambda capture a structured binding.
            for (int i = 1; i <= 4; ++i) {
                const Time now = from + Millis(100 * i);
                links.report(now, {8, 60, 60, 400});
                for (LinkId l : links.w.pick(links.p, now))
                    used.insert(l);
            }
        };
        packets(1000ms);
        QVERIFY(!used.contains(0)); // a newest-sample rule would have used it at once
        QVERIFY(!used.contains(3));
        // Within the second, what is left of the spike once drained for its age falls below the
        // others' delays: link 0 takes its turns again.
        packets(1500ms);
        QVERIFY(used.contains(0));
    }

    void tailsDrainWhatIsKnownWithItsAge() {
        // A 300 ms stall known at 0 ms, the link back to 10 ms since: half a second later the
        // queue would have drained by 150 ms (300 ms/s), so the tail is 300 - 150 - 80 (slack).
        const TailSettings settings;
        LinkTails tails(settings);
        tails.observe(0ms, 0, 300ms);
        tails.observe(500ms, 0, 10ms);
        QCOMPARE(tails.tail(500ms, 0), Millis(300 - 150) - settings.slack);
        // A link in a lasting queue stays judged by it: the newest delay is a floor.
        tails.observe(0ms, 1, 300ms);
        tails.observe(500ms, 1, 290ms);
        QCOMPARE(tails.tail(500ms, 1), 290ms);
        tails.observe(900ms, 0, 10ms);
        QCOMPARE(tails.tail(900ms, 0), 10ms);
    }

    void tailsJudgeALinkUnheardForAWhileByItsUsualDelay() {
        // Link 0 is usually 100–140 ms slower than the fastest path, with a spike at the end;
        // unheard for two seconds it is expected back at its usual delay, about 120 ms: not at
        // its floor (100 ms), not in its spike, not good. A link never heard of is assumed good.
        const TailSettings settings;
        LinkTails tails(settings);
        Time now = 0ms;
        for (int i = 0; i < 400; ++i, now += 40ms)
            tails.observe(now, 0, i % 2 ? 140ms : 100ms);
        tails.observe(now, 0, 400ms);
        const Millis idle = tails.tail(now + 2s, 0);
        QVERIFY2(idle >= 118ms && idle <= 122ms, qPrintable(QString::number(idle.count())));
        QCOMPARE(tails.tail(now + 2s, 1), settings.unmeasured);
    }

    void tailsTakeADelayKnownAgainForNoNews() {
        // Links 0 and 1 are usually 20 ms over the fastest path; then each is known at 300 ms for
        // 1.2 s. Link 0's delay is the same every time: the peer repeats its last measurement of
        // a link we left, and says nothing of what the link does now; a second after it was first
        // known link 0 is judged near its usual delay again, not barred by its spike. Link 1's
        // delay moves (fresh records in a lasting queue): it stays judged by it.
        LinkTails tails;
        Time now = 0ms;
        for (int i = 0; i < 400; ++i, now += 40ms) {
            tails.observe(now, 0, i % 2 ? 24ms : 16ms);
            tails.observe(now, 1, i % 2 ? 24ms : 16ms);
        }
        const Time spikeKnown = now;
        for (int i = 0; now <= spikeKnown + 1200ms; ++i, now += 40ms) {
            tails.observe(now, 0, 300ms);
            tails.observe(now, 1, i % 2 ? 304ms : 300ms);
        }
        const Millis repeated = tails.tail(now, 0);
        QVERIFY2(repeated >= 20ms && repeated < 100ms,
                 qPrintable(QString::number(repeated.count())));
        QVERIFY(tails.tail(now, 1) >= 300ms);
    }

    void tailsDrainARepeatedReportFromWhenItWasFirstKnown() {
        // The peer reports link 0's 300-ms stall in every record for half a second, then 8 ms.
        // The stall was first known at 1000 ms: at 1600 ms it has drained by 180 ms (300 ms/s),
        // so the tail is 300 - 180 - 80 (slack), not what a report renewed at 1500 ms would leave.
        ReportedLinks links;
        auto& [w, p, report] = links;
        for (Time now = 1000ms; now <= 1500ms; now += 100ms) {
            report(now, {300, 60, 60, 400});
            w.pick(p, now);
        }
        report(1600ms, {8, 60, 60, 400});
        w.pick(p, 1600ms);
        QCOMPARE(p.tails().tail(1600ms, 0), Millis(300 - 180) - TailSettings{}.slack);
    }

    void tailsForgetAStallFirstKnownLongerThanTheWindowAgo() {
        // A 300-ms report repeated for 1.5 s was first known 1.5 s ago: once the link is back at
        // 8 ms, nothing of it is left in the window.
        LinkTails tails;
        for (Time now = 0ms; now <= 1500ms; now += 40ms)
            tails.observe(now, 0, 300ms);
        tails.observe(1540ms, 0, 8ms);
        QCOMPARE(tails.tail(1540ms, 0), 8ms);
    }

    void tailsForgetOnlyTheReplacedLinksPairs() {
        // Links 1 and 2 spike together, and so do 3 and 4; the circuit in slot 2 is replaced:
        // what was learnt of its pairs goes, the pair 3-4 stays.
        LinkTails tails;
        int k = 0;
        for (Time now = 0ms; now < 20s; now += 40ms, ++k) {
            const bool spike = now % 4s < 1s;
            for (LinkId l = 1; l <= 4; ++l)
                tails.observe(now, l, Millis((spike ? 200 : 10) + (k + l) % 5));
            tails.updatePairs(now);
        }
        QVERIFY(tails.coSpiking(1, 2) > 0.5);
        const double kept = tails.coSpiking(3, 4);
        QVERIFY(kept > 0.5);
        tails.forget(2);
        QCOMPARE(tails.coSpiking(1, 2), 0.0);
        QCOMPARE(tails.coSpiking(2, 3), 0.0);
        QCOMPARE(tails.coSpiking(3, 4), kept);
    }

    void adaptiveForgetsAReplacedLink() {
        // A slot's circuit is replaced between two packets: the new circuit is not the slow one.
        ReportedLinks links;
        auto& [w, p, report] = links;
        report(1000ms, {300, 60, 60, 400});
        w.pick(p, 1000ms);
        QCOMPARE(p.tails().tail(1000ms, 0), 300ms);
        p.linkReset(0);
        QCOMPARE(p.tails().tail(1000ms, 0), TailSettings{}.unmeasured);
    }

    void adaptiveSendsNoFreshFrameToAnIdleLinkKnownToBeSlow() {
        // Links 0 and 1 are in a mild spike (90 ms over the fastest path); link 2 is known to be
        // 250 ms slow but has not been heard of for seconds. Fresh frames stay on 0 and 1: an
        // idle slow link is not a good link.
        World w(3);
        AdaptivePolicy p(withoutExploration());
        PeerReports report{w};
        report(1000ms, {90, 90, 250, 0});
        w.pick(p, 1000ms);
        Time now = 1000ms;
        LinkId previous = kNoLink;
        for (int i = 0; i < 200; ++i, now += 40ms) {
            Record r = peerRecord(report.tx++, std::uint32_t(toWholeMillis(now)), kNoEcho);
            for (LinkId l = 0; l < 2; ++l)
                r.scores.push_back({l, 0, std::uint8_t(90 / kDelayUnitMs), 0});
            w.monitor.onRecord(now, 1, r);
            const auto s = w.pick(p, now, previous);
            QVERIFY2(s[0] != 2,
                     qPrintable(
                         QString("fresh frame on the slow link at %1 ms").arg(toWholeMillis(now))));
            previous = s[0];
        }
    }

    void adaptiveTakesAThirdStreamOnlyWhileALinkHasSpikedLately() {
        // Links 0, 1, 2 are 0, 4 and 20 ms slower than the fastest path. Calm, packets alternate
        // between 0 and 1: both copies of a frame are on the two fastest links. Once link 0 has
        // spiked, the packet after one on 0 and one on 1 goes to link 2 (a frame's three copies
        // on three streams) for half a minute; then 0 and 1 alternate again.
        ReportedLinks links;
        Time now = 1000ms;
        const auto firstCopies = [&](Millis length, std::array<int, 4> delays) {
            std::set<LinkId> used;
            for (const Time end = now + length; now < end; now += 40ms) {
                links.report(now, delays);
                used.insert(links.w.send(links.p, now)[0]);
            }
            return used;
        };
        const std::array calm{0, 4, 20, 800};
        QCOMPARE(firstCopies(10s, calm), (std::set<LinkId>{0, 1}));
        firstCopies(40ms, {300, 4, 20, 800});
        firstCopies(2s, calm); // the spike drains out of link 0's tail
        QVERIFY(firstCopies(10s, calm).contains(2));
        firstCopies(20s, calm);
        QCOMPARE(firstCopies(10s, calm), (std::set<LinkId>{0, 1}));
    }

    void adaptiveKeepsLinksThatSpikeTogetherApart() {
        // Links 0 and 1 spike together (one guard); link 2 spikes alone. All three are equally
        // fast otherwise. Once that is learnt, a packet on 0 or 1 is never followed by one on
        // the other: the piggybacked copy must not sit in the same spike.
        ReportedLinks links;
        auto& [w, p, report] = links;
        Time now = 1000ms;
        for (int round = 0; round < 60; ++round, now += 100ms) {
            const bool guardSpike = round % 6 == 0, ownSpike = round % 6 == 3;
            report(now, {guardSpike ? 300 : 20, guardSpike ? 300 : 20, ownSpike ? 300 : 20, 800});
            w.pick(p, now);
        }
        QVERIFY(p.tails().coSpiking(0, 1) > 2 * p.tails().coSpiking(0, 2));
        // Calm for longer than the tail window, then consecutive packets.
        for (int i = 0; i < 15; ++i, now += 100ms) {
            report(now, {20, 20, 20, 800});
            w.pick(p, now);
        }
        LinkId previous = kNoLink;
        for (int i = 0; i < 12; ++i, now += 40ms) {
            report(now, {20, 20, 20, 800});
            const auto s = w.pick(p, now);
            QCOMPARE(s.size(), std::size_t(1));
            const bool together = (previous == 0 && s[0] == 1) || (previous == 1 && s[0] == 0);
            QVERIFY2(!together, qPrintable(QString("%1 after %2").arg(s[0]).arg(previous)));
            previous = s[0];
        }
    }

    void adaptiveSendsNoFreshFrameToAQuietLinkWhosePartnerSpikes() {
        // Links 0 and 1 sit behind one guard and have spiked together; link 2 spiked alone, link 3
        // never. Now the guard's queue shows on link 0, while link 1 is quiet (the peer has nothing
        // new of it): link 1 is in the queue too, so fresh frames go to 2 and 3, not to link 1 as
        // if it were as good as they are. Link 4, 800 ms slow, carries the peer's reports.
        World w(5);
        AdaptivePolicy p(withoutExploration());
        std::uint32_t tx = 0;
        const auto report = [&](Time now, std::initializer_list<std::pair<LinkId, int>> delays) {
            Record r = peerRecord(tx++, std::uint32_t(toWholeMillis(now)), kNoEcho);
            for (const auto& [link, ms] : delays)
                r.scores.push_back({link, 0, std::uint8_t(ms / kDelayUnitMs), 0});
            w.monitor.onRecord(now, 4, r);
        };
        Time now = 1000ms;
        for (int round = 0; round < 60; ++round, now += 100ms) {
            const bool guard = round % 6 == 0, own = round % 6 == 3;
            const int calm = round % 2 ? 20 : 24; // moving delays: news of every link
            report(now, {{0, guard ? 300 : calm},
                         {1, guard ? 300 : calm},
                         {2, own ? 300 : calm},
                         {3, calm},
                         {4, 800}});
            w.pick(p, now);
        }
        QVERIFY(p.tails().coSpiking(0, 1) >= AdaptiveTuning{}.coSpikeEvidence);
        for (int i = 0; i < 20; ++i, now += 40ms) {
            const int calm = i % 2 ? 20 : 24;
            report(now, {{0, i % 2 ? 300 : 304}, {2, calm}, {3, calm}, {4, 800}});
            const auto s = w.send(p, now);
            QVERIFY2(i < 5 || s[0] != 1,
                     qPrintable(QString("fresh frame on link 1 at %1 ms").arg(toWholeMillis(now))));
        }
    }

    void adaptiveCopiesWhenASpikeBeginsOnARecentLink() {
        // Calm links: one copy per packet, none extra. Then the link of the last packet is
        // reported in a spike: the next packet goes out twice, because the frames on that link
        // now depend on their piggybacked copies.
        ReportedLinks links;
        auto& [w, p, report] = links;
        Time now = 1000ms;
        for (int i = 0; i < 40; ++i, now += 40ms) {
            report(now, {20, 20, 20, 800});
            QCOMPARE(w.send(p, now).size(), std::size_t(1));
        }
        const LinkId last = w.lastSent;
        std::array<int, 4> spike{20, 20, 20, 800};
        spike[last] = 300;
        report(now, spike);
        const auto s = w.pick(p, now, last);
        QCOMPARE(s.size(), std::size_t(2));
        QVERIFY(!std::count(s.begin(), s.end(), last));
    }

    void adaptiveExploresEveryIdleLinkWithinTheBudget() {
        // Three fast links, nine slow ones. Every packet's first copy goes to a fast link; the
        // slow links still carry a copy now and then (their measurements stay fresh, the call
        // window's per-link counts rise), and all copies together stay within the budget.
        ExploringCall call;
        auto& [w, tuning, p, now, tx] = call;
        std::array<Time, 12> lastCarried{};
        lastCarried.fill(now);
        Millis longestIdle{0};
        int copies = 0;
        const int packets = 1500; // a minute
        LinkId previous = kNoLink;
        for (int i = 0; i < packets; ++i, now += 40ms) {
            // The peer reports our direction's delays: 20 ms on links 0–2, 250 ms on the others.
            reportOnLinkZero(w, tx, now, 12,
                             [](LinkId l) { return std::optional<int>(l < 3 ? 20 : 250); });
            const auto s = w.pick(p, now, previous);
            QVERIFY(!s.empty());
            QVERIFY2(s[0] < 3, qPrintable(QString("first copy on slow link %1").arg(s[0])));
            for (LinkId l : s) {
                w.groups.markUsed(now, l);
                if (i > 250) // after the first 10 s
                    longestIdle = std::max(
                        longestIdle, std::chrono::duration_cast<Millis>(now - lastCarried[l]));
                lastCarried[l] = now;
            }
            previous = s[0];
            copies += int(s.size()) - 1;
        }
        for (LinkId l = 0; l < 12; ++l)
            longestIdle =
                std::max(longestIdle, std::chrono::duration_cast<Millis>(now - lastCarried[l]));
        // Nine slow links, one explored per exploreEvery at most: each is back within about
        // nine of them after exploreAfter.
        QVERIFY2(longestIdle <= tuning.exploreAfter + 10 * tuning.exploreEvery,
                 qPrintable(QString("a link idle for %1 ms").arg(longestIdle.count())));
        QVERIFY(copies > 0);
        QVERIFY(copies <= int(tuning.duplicateBudget * packets) + 1);
    }

    void adaptiveExploresWhileInTroubleAndFindsARecoveredLink() {
        // A stall hit every link; afterwards the two links the call rode it out on settle at
        // 150 ms (the call stays in trouble), while the ten others were last reported at 800 ms
        // and nothing is sent there. Link 6 has long recovered to 20 ms: the peer reports it
        // once it carries a record again. Copies spent on the other busy link would never find
        // out; exploration in trouble does, and the call moves to link 6 (hostile seed 1, call
        // 14: fifteen seconds on 300-ms links while a 167-ms link sat idle, believed at 800 ms).
        ExploringCall call;
        auto& [w, tuning, p, now, tx] = call;
        std::optional<Time> link6Carried;
        Time link6FirstBest{};
        LinkId previous = kNoLink;
        for (int i = 0; i < 1500 && link6FirstBest == Time{}; ++i, now += 40ms) {
            reportOnLinkZero(
                w, tx, now, 12, [&link6Carried, now = now](LinkId l) -> std::optional<int> {
                    if (l < 2)
                        return 150;
                    if (l == 6 && link6Carried && now > *link6Carried + 400ms)
                        return 20; // recovered, and known once it carried a record again
                    if (now < 2000ms)
                        return 800; // the stall
                    return std::nullopt;
                });
            const auto s = w.pick(p, now, previous);
            QVERIFY(!s.empty());
            for (LinkId l : s) {
                w.groups.markUsed(now, l);
                if (l == 6 && !link6Carried)
                    link6Carried = now;
            }
            if (s[0] == 6)
                link6FirstBest = now;
            previous = s[0];
        }
        QVERIFY2(link6Carried.has_value(), "the idle links were never explored in trouble");
        QVERIFY2(link6FirstBest != Time{}, "the recovered link was explored but never used");
        // Ten idle links, one explored per exploreEvery: link 6 is reached within about ten.
        QVERIFY(*link6Carried <= 2000ms + tuning.exploreAfter + 11 * tuning.exploreEvery);
    }

    void adaptiveCopiesOnlyInTroubleAndWithinBudget_data() {
        QTest::addColumn<int>("fastest"); // relative delay of the two best links (ms)
        QTest::addColumn<bool>("trouble");
        QTest::newRow("healthy") << 0 << false;
        QTest::newRow("every link slow") << 200 << true;
    }
    void adaptiveCopiesOnlyInTroubleAndWithinBudget() {
        QFETCH(int, fastest);
        QFETCH(bool, trouble);
        World w(6);
        // The first record defines the fastest path (0 ms); the links then show their delays.
        w.monitor.onRecord(1000ms, 5, peerRecord(0, 850, 700));
        const int delays[] = {fastest, fastest + 10, 500, 600, 700, 800};
        for (LinkId l = 0; l < 6; ++l)
            w.monitor.onRecord(Millis(1000 + delays[l]), l, peerRecord(l + 1, 850, 700));
        AdaptiveTuning tuning;
        AdaptivePolicy p(tuning);
        int copies = 0;
        LinkId previous = kNoLink;
        const int packets = 1000;
        for (int i = 0; i < packets; ++i) {
            const auto s = w.pick(p, 1900ms, previous);
            QVERIFY(!s.empty());
            QVERIFY(s[0] != previous);
            previous = s[0];
            copies += int(s.size()) - 1;
        }
        if (trouble) {
            QVERIFY(copies > 0);
            QVERIFY(copies <= int(tuning.duplicateBudget * packets) + 1);
        } else {
            QCOMPARE(copies, 0);
        }
    }
};

QTEST_APPLESS_MAIN(PoliciesTest)
#include "tst_policies.moc"
