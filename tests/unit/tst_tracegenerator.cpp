// Unit tests of the trace generator: determinism, valid output, and the Tor-like properties its
// documentation claims (failure rate, delay range, spikes, shared guards), and the structure that
// sets the profiles apart (sawtooth queues, guard outages).
#include "sim/TraceGenerator.h"

#include <QTest>
#include <algorithm>
#include <map>
#include <sstream>

using namespace onionvoice::sim;

class TraceGeneratorTest : public QObject {
    Q_OBJECT
private slots:
    void sameSeedSameTrace() {
        std::stringstream a, b, c;
        writeLinkTrace(a, generateTrace({12, 1, 5}));
        writeLinkTrace(b, generateTrace({12, 1, 5}));
        writeLinkTrace(c, generateTrace({12, 1, 6}));
        QCOMPARE(a.str(), b.str());
        QVERIFY(a.str() != c.str());
    }

    void outputIsAValidTrace() {
        std::stringstream s;
        writeLinkTrace(s, generateTrace({8, 3, 11}));
        const auto parsed = readLinkTrace(s, "generated");
        QVERIFY(std::holds_alternative<LinkTrace>(parsed));
        const auto& t = std::get<LinkTrace>(parsed);
        QCOMPARE(t.bySlot.size(), std::size_t(8));
        QVERIFY(t.durationMs > 179000 && t.durationMs <= 180000);
    }

    void failureRateIsTorLike() {
        // DONAR Fig. 4: 7–16 % of links fail within an hour. 40 calls × 12 links × 60 minutes.
        int links = 0, failedWithinHour = 0;
        for (std::uint64_t seed = 1; seed <= 40; ++seed) {
            const LinkTrace t = generateTrace({12, 60, seed});
            for (const auto& slot : t.bySlot) {
                ++links;
                failedWithinHour += slot.front().downMs.has_value() ? 1 : 0;
                // A replacement comes 2–8 s after a failure.
                for (std::size_t i = 1; i < slot.size(); ++i) {
                    const double gap = slot[i].upMs() - *slot[i - 1].downMs;
                    QVERIFY(gap >= 1990 && gap <= 8010);
                }
            }
        }
        const double rate = 100.0 * failedWithinHour / links;
        QVERIFY2(rate >= 7 && rate <= 16, qPrintable(QString::number(rate)));
    }

    void delaysAreTorLike() {
        std::vector<double> medians;
        double worst = 0;
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            const LinkTrace t = generateTrace({12, 10, seed});
            for (const auto& slot : t.bySlot) {
                std::vector<double> d;
                for (const auto& s : slot.front().samples)
                    d.push_back(s.abMs);
                std::nth_element(d.begin(), d.begin() + long(d.size() / 2), d.end());
                medians.push_back(d[d.size() / 2]);
                worst = std::max(worst, *std::max_element(d.begin(), d.end()));
            }
        }
        std::sort(medians.begin(), medians.end());
        const double median = medians[medians.size() / 2];
        QVERIFY2(median > 150 && median < 280, qPrintable(QString::number(median)));
        QVERIFY(medians.front() > 50);
        QVERIFY(worst > 3 * median); // latency spikes (DONAR Fig. 5)
    }

    void profilesHaveNamesAndValidTraces() {
        QCOMPARE(allTraceProfiles().size(), std::size_t(5));
        for (TraceProfile p : allTraceProfiles()) {
            QCOMPARE(traceProfileFromName(traceProfileName(p)), std::optional(p));
            std::stringstream a, b;
            writeLinkTrace(a, generateTrace({6, 2, 3, p}));
            writeLinkTrace(b, generateTrace({6, 2, 3, p}));
            QCOMPARE(a.str(), b.str());
            const auto parsed = readLinkTrace(a, "generated");
            QVERIFY2(std::holds_alternative<LinkTrace>(parsed), traceProfileName(p).data());
        }
        QVERIFY(!traceProfileFromName("Default"));
        QVERIFY(!traceProfileFromName(""));
    }

    void congestedQueuesBuildInAnInstant() {
        // A sawtooth: +150 ms or more between two samples at most 20 ms apart. The default
        // profile's spikes build up over 0.2–1.5 s instead.
        const auto jumps = [](TraceProfile p) {
            int n = 0;
            for (const auto& slot : generateTrace({12, 10, 4, p}).bySlot)
                for (const auto& life : slot)
                    for (std::size_t i = 1; i < life.samples.size(); ++i)
                        n += life.samples[i].tMs - life.samples[i - 1].tMs <= 20.05 &&
                                     life.samples[i].abMs - life.samples[i - 1].abMs >= 150
                                 ? 1
                                 : 0;
            return n;
        };
        QVERIFY2(jumps(TraceProfile::Congested) >= 10,
                 qPrintable(QString::number(jumps(TraceProfile::Congested))));
        QVERIFY(jumps(TraceProfile::Congested) > 5 * jumps(TraceProfile::Default));
    }

    void guardOutageBreaksEveryLinkThroughIt() {
        // Hostile: links break together at the instant their guard goes out; in the default
        // profile, failures are independent.
        const auto simultaneousBreaks = [](TraceProfile p) {
            int events = 0;
            for (std::uint64_t seed = 1; seed <= 6; ++seed) {
                std::map<double, int> downs;
                for (const auto& slot : generateTrace({12, 30, seed, p}).bySlot)
                    for (const auto& life : slot)
                        if (life.downMs)
                            ++downs[*life.downMs];
                for (const auto& [t, n] : downs)
                    events += n >= 2 ? 1 : 0;
            }
            return events;
        };
        QVERIFY(simultaneousBreaks(TraceProfile::Hostile) >= 2);
        QCOMPARE(simultaneousBreaks(TraceProfile::Default), 0);
    }
};

QTEST_APPLESS_MAIN(TraceGeneratorTest)
#include "tst_tracegenerator.moc"
