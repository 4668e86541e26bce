// Unit tests of the call simulation: TCP head-of-line blocking, packets lost with a broken link,
// replacement, every policy on a clean trace, the oracle bound, and DONAR's per-call figures.
#include "multipath/AdaptivePolicy.h"
#include "multipath/SchedulingPolicy.h"
#include "sim/CallSimulation.h"
#include "sim/TraceGenerator.h"

#include <QTest>
#include <cmath>

using namespace onionvoice::sim;

namespace {

// Constant-delay links, `count` of them, for `ms` milliseconds.
LinkTrace flatTrace(int count, double ms, double delay) {
    LinkTrace t;
    t.durationMs = ms;
    t.bySlot.resize(std::size_t(count));
    for (auto& slot : t.bySlot) {
        LinkLife life;
        life.samples = {{0, delay, delay}, {ms, delay, delay}};
        slot.push_back(life);
    }
    return t;
}

CallConfig config(const char* policy) {
    CallConfig c;
    c.policy = policy;
    return c;
}

} // namespace

class CallSimulationTest : public QObject {
    Q_OBJECT
private slots:
    void headOfLineBlocking() {
        LinkTrace t = flatTrace(1, 4000, 100);
        // A packet entering at 1040 ms takes 1 s; the next one, 40 ms later, only 100 ms.
        t.bySlot[0][0].samples = {{0, 100, 100},
                                  {1000, 100, 100},
                                  {1040, 1000, 1000},
                                  {1080, 100, 100},
                                  {4000, 100, 100}};
        const CallResult r = simulateCall(t, config("simple"));
        const auto& d = r.ab.frameDelayMs;
        QCOMPARE(d[25], 100.0);
        QCOMPARE(d[26], 1000.0);
        QCOMPARE(d[27], 2040.0 - 1080.0); // waits behind frame 26 on the same TCP stream
        QCOMPARE(d[60], 100.0);
    }

    void brokenLinkLosesWhatIsInFlightUntilItsReplacement() {
        LinkTrace t = flatTrace(1, 30000, 500);
        LinkLife first;
        first.samples = {{0, 500, 500}};
        first.downMs = 20000;
        LinkLife second;
        second.samples = {{22000, 500, 500}, {30000, 500, 500}};
        t.bySlot[0] = {first, second};
        const CallResult r = simulateCall(t, config("simple"));
        const auto& d = r.ab.frameDelayMs;
        QCOMPARE(d[487], 500.0);     // sent at 19480, arrives at 19980
        QVERIFY(std::isinf(d[488])); // sent at 19520, still in flight at 20000
        QVERIFY(std::isinf(d[543])); // sent at 21720, no link, too old at 22000 + 120
        // Frames made while no link was up ride, newest first, in the first records on the new
        // link as long as they are younger than the frame lifetime: one at full size, one
        // reduced in each record (22000: 549, 548; 22040: 547, 546; 22080: 545, 544).
        QCOMPARE(d[549], 540.0);
        QCOMPARE(d[548], 580.0);
        QCOMPARE(d[547], 660.0);
        QCOMPARE(d[545], 780.0);
        QCOMPARE(d[544], 820.0);
        QCOMPARE(d[550], 500.0); // sent at 22000 on the replacement
        const DirectionStats s = directionStats(r.ab, 40, r.durationMs);
        QVERIFY(s.dropped);
        QVERIFY(!s.acceptable);
        QCOMPARE(s.lostPct, 100.0 * 56 / 750); // 488–543
    }

    void everyPolicyDeliversEverythingOnCleanLinks() {
        const LinkTrace t = flatTrace(12, 20000, 150);
        for (auto name : policyNamesWithOracle()) {
            const CallResult r = name == "oracle" ? oracleCall(t, config("oracle"))
                                                  : simulateCall(t, config(name.c_str()));
            for (const auto* dir : {&r.ab, &r.ba}) {
                const DirectionStats s = directionStats(*dir, 40, r.durationMs);
                QCOMPARE(s.frames, std::size_t(500));
                QCOMPARE(s.lostPct, 0.0);
                QCOMPARE(s.p99Ms, 150.0);
                QVERIFY(s.acceptable);
                const bool twoCopies = name == "torfone" || name == "double-send";
                if (name == "adaptive") // idle links explored by second copies, within budget
                    QVERIFY(s.cellsPerSecond > 25.0 &&
                            s.cellsPerSecond <=
                                25.0 *
                                    (1 + onionvoice::multipath::AdaptiveTuning{}.duplicateBudget));
                else
                    QCOMPARE(s.cellsPerSecond, twoCopies ? 50.0 : 25.0);
            }
        }
    }

    void oracleBoundsThePolicies() {
        const LinkTrace t = generateTrace({12, 2, 3});
        const auto oracle = directionStats(oracleCall(t, config("oracle")).ab, 40, 120000);
        for (const char* name : {"simple", "alternate", "double-send", "adaptive"}) {
            const CallResult r = simulateCall(t, config(name));
            const DirectionStats s = directionStats(r.ab, 40, r.durationMs);
            QVERIFY2(oracle.p50Ms <= s.p50Ms && oracle.p99Ms <= s.p99Ms, name);
        }
    }

    void adaptiveBeatsAlternateAtTheSameCellCount() {
        // On one Tor-like trace (the policy table in README covers 56 calls): lower p99 than
        // DONAR's alternate for at most 5 % more cells, every frame delivered exactly once.
        const LinkTrace t = generateTrace({12, 5, 21});
        const auto adaptive = simulateCall(t, config("adaptive"));
        const auto alternate = simulateCall(t, config("alternate"));
        const auto a = directionStats(adaptive.ab, 40, adaptive.durationMs);
        const auto b = directionStats(alternate.ab, 40, alternate.durationMs);
        QVERIFY(a.p99Ms < b.p99Ms);
        QVERIFY(a.cellsPerSecond <= 1.05 * b.cellsPerSecond);
        QVERIFY(adaptive.ab.piggybackedFirst + adaptive.ab.freshFirst == a.frames);
    }

    void withoutReducedCopiesEveryFrameArrivesFull() {
        // Real calls make no reduced copies; with them off, the simulator carries what real calls
        // carry. On a congested trace the reduced copies do deliver some frames first.
        const LinkTrace t = generateTrace({12, 5, 3, TraceProfile::Congested});
        CallConfig c = config("adaptive");
        const auto with = simulateCall(t, c);
        c.reducedCopies = ReducedCopies::None;
        const auto without = simulateCall(t, c);
        QVERIFY(with.ab.reducedFirst + with.ba.reducedFirst > 0);
        QCOMPARE(without.ab.reducedFirst + without.ba.reducedFirst, std::uint64_t(0));
        QCOMPARE(without.ab.freshFirst + without.ab.piggybackedFirst,
                 std::uint64_t(directionStats(without.ab, 40, without.durationMs).frames));
    }

    void statistics() {
        DirectionResult r;
        for (int i = 0; i < 1000; ++i)
            r.frameDelayMs.push_back(100 + i % 100);
        r.frameDelayMs[10] = 500; // late
        r.frameDelayMs[20] = kLost;
        r.cellsSent = 1000;
        DirectionStats s = directionStats(r, 40, 40000);
        QCOMPARE(s.frames, std::size_t(1000));
        QCOMPARE(s.p50Ms, 150.0); // 110 and 120 moved to the tail
        QCOMPARE(s.p99Ms, 199.0);
        QCOMPARE(s.latePct, 0.2);
        QCOMPARE(s.lostPct, 0.1);
        QVERIFY(!s.dropped);
        QVERIFY(s.acceptable);
        QCOMPARE(s.cellsPerSecond, 25.0);
        // 25 lost in a row within the first 10 s is not a drop; after it, it is.
        for (int i = 100; i < 125; ++i)
            r.frameDelayMs[std::size_t(i)] = kLost;
        QVERIFY(!directionStats(r, 40, 40000).dropped);
        for (int i = 300; i < 325; ++i)
            r.frameDelayMs[std::size_t(i)] = kLost;
        s = directionStats(r, 40, 40000);
        QVERIFY(s.dropped);
        QVERIFY(std::isinf(s.p99Ms));
        QVERIFY(!s.acceptable);
    }

private:
    static std::vector<std::string> policyNamesWithOracle() {
        std::vector<std::string> names;
        for (auto n : onionvoice::multipath::policyNames())
            names.emplace_back(n);
        names.emplace_back("oracle");
        return names;
    }
};

QTEST_APPLESS_MAIN(CallSimulationTest)
#include "tst_callsimulation.moc"
