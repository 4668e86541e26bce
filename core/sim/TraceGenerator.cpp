// Tor-like link trace generator.
//
// Each call has n link slots. A link is one TCP stream over a caller circuit and a callee circuit
// joined at a rendezvous point. Its one-way delay, per direction, is
//     base × drift(t) + jitter + own spikes + spikes of the caller's and the callee's guard.
// Numbers and their sources (seeds = ../shared/seeds/):
//  - Base one-way delay: log-normal, median 200 ms, σ = 0.3 (5–95 %: 122–327 ms). The feasibility
//    study measured a mean OWD of 210–280 ms on 2- and 3-hop circuits and 396–458 ms on onion
//    (two-way anonymous) calls including their spikes; DONAR Fig. 9 shows onion-link medians
//    mostly below 300 ms. The median was then set so that `simple` (one link) lands near DONAR
//    Fig. 3/8: about 35–40 % of 5-minute single-link calls unacceptable, about half of 90-minute
//    ones.
//  - Direction asymmetry: ba = ab × (1 + N(0, 0.05)); DONAR §4.1 found one-way latencies "highly
//    consistent in both directions of a link".
//  - Slow drift: ±8 % sine with a 3–15 minute period (DONAR §3.1: latency grows with call
//    duration on some links; we keep it symmetric so it averages out).
//  - Jitter: |N(0, 4 ms)| per sample (cells on one TCP stream rarely reorder; jitter is small
//    compared with spikes).
//  - Latency spikes: Poisson per link, one per 4 minutes on a normal link; they build up over
//    0.2–1.5 s and drain over 0.3–3 s; peak extra delay log-normal, median 300 ms, σ = 0.9
//    (1 % above 2.4 s). DONAR Fig. 5: maxima "often 3 times higher than the 75th percentile",
//    and no relation between a link's median and its spikes. 60 % of spikes hit both
//    directions (a congested relay), the rest one direction.
//  - Persistently bad links: 15 % of links, base × 1.6 and spikes 4× as often (DONAR Fig. 5,
//    the long tail of link medians).
//  - Guards: each side uses 2 guards (DONAR footnote 3: tor effectively uses 2); each link goes
//    through one guard per side, so a guard's spikes (one per 10 minutes, median 250 ms) hit
//    several links at once, in both directions.
//  - Failures: Weibull lifetime, shape 0.6, scale 2080 minutes: 4 % of links fail within 10
//    minutes and 11 % within an hour (DONAR Fig. 4: "at least 4 %" after 10 minutes, "7 % to
//    16 %" after one hour, decreasing hazard).
//  - Replacement: a new link is usable 2–8 s after the failure (a new rendezvous circuit).
//  - Sampling: every 100 ms, every 20 ms while a spike is under way.
// The random numbers come from a fixed SplitMix64 stream and our own distributions, so a seed
// gives the same trace with any standard library.
#include "TraceGenerator.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace onionvoice::sim {
namespace {

class Random {
public:
    explicit Random(std::uint64_t seed)
        : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; } // [0, 1)
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    double normal() {
        const double u1 = 1.0 - uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * uniform());
    }
    double logNormal(double median, double sigma) { return median * std::exp(sigma * normal()); }
    double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }
    double weibull(double shape, double scale) {
        return scale * std::pow(-std::log(1.0 - uniform()), 1.0 / shape);
    }
    bool chance(double p) { return uniform() < p; }

private:
    std::uint64_t state_;
};

enum class Hits { Both, AtoB, BtoA };

struct Spike {
    double startMs, riseMs, peakMs, drainMs;
    Hits direction;
    double endMs() const { return startMs + riseMs + drainMs; }
    double extraAt(double t) const {
        if (t < startMs || t >= endMs())
            return 0;
        if (t < startMs + riseMs)
            return peakMs * (t - startMs) / riseMs;
        return peakMs * (1 - (t - startMs - riseMs) / drainMs);
    }
    bool affects(Direction d) const {
        return direction == Hits::Both || (direction == Hits::AtoB) == (d == Direction::AtoB);
    }
};

std::vector<Spike> spikeTrain(Random& rng, double fromMs, double toMs, double meanGapMs,
                              double medianPeakMs, double bothProbability) {
    std::vector<Spike> spikes;
    for (double t = fromMs + rng.exponential(meanGapMs); t < toMs;
         t += rng.exponential(meanGapMs)) {
        const double r = rng.uniform();
        const Hits hits = r < bothProbability                               ? Hits::Both
                          : r < bothProbability + (1 - bothProbability) / 2 ? Hits::AtoB
                                                                            : Hits::BtoA;
        spikes.push_back({t, rng.uniform(200, 1500), rng.logNormal(medianPeakMs, 0.9),
                          rng.uniform(300, 3000), hits});
    }
    return spikes;
}

struct Guards {
    std::vector<std::vector<Spike>> caller, callee;
};

constexpr double kStepMs = 100;
constexpr double kSpikeStepMs = 20;

LinkLife generateLife(Random& rng, const Guards& guards, double upMs, double endMs) {
    const bool bad = rng.chance(0.15);
    const double base = rng.logNormal(200, 0.3) * (bad ? 1.6 : 1.0);
    const double baseBa = base * (1 + 0.05 * rng.normal());
    const double driftPeriod = rng.uniform(3, 15) * 60000;
    const double driftPhase = rng.uniform(0, 2 * std::numbers::pi);
    const double lifetime = rng.weibull(0.6, 2080.0 * 60000);
    const double downMs = upMs + lifetime;
    const double lastMs = std::min(downMs, endMs);
    const auto& callerGuard = guards.caller[rng.next() % guards.caller.size()];
    const auto& calleeGuard = guards.callee[rng.next() % guards.callee.size()];
    const std::vector<Spike> own =
        spikeTrain(rng, upMs, lastMs, (bad ? 60000.0 : 240000.0), 300, 0.6);

    const auto delay = [&](Direction d, double t, double jitter) {
        double v = (d == Direction::AtoB ? base : baseBa) *
                   (1 + 0.08 * std::sin(2 * std::numbers::pi * t / driftPeriod + driftPhase));
        v += jitter;
        for (const auto* train : {&own, &callerGuard, &calleeGuard})
            for (const Spike& s : *train)
                if (s.affects(d))
                    v += s.extraAt(t);
        return v;
    };
    const auto spikeNear = [&](double t) {
        for (const auto* train : {&own, &callerGuard, &calleeGuard})
            for (const Spike& s : *train)
                if (s.startMs < t + kStepMs && s.endMs() > t)
                    return true;
        return false;
    };

    LinkLife life;
    for (double t = upMs; t < lastMs; t += spikeNear(t) ? kSpikeStepMs : kStepMs)
        life.samples.push_back({t, delay(Direction::AtoB, t, std::abs(4 * rng.normal())),
                                delay(Direction::BtoA, t, std::abs(4 * rng.normal()))});
    if (life.samples.empty())
        return life;
    if (downMs < endMs)
        life.downMs = std::max(std::round(downMs * 10) / 10, life.samples.back().tMs + 0.1);
    else
        life.samples.push_back(
            {endMs, delay(Direction::AtoB, endMs, 0), delay(Direction::BtoA, endMs, 0)});
    return life;
}

} // namespace

LinkTrace generateTrace(const TraceModel& model) {
    Random rng(model.seed * 0x2545F4914F6CDD1Dull + 0x1234567);
    const double endMs = model.minutes * 60000;
    Guards guards;
    for (auto* side : {&guards.caller, &guards.callee})
        for (int g = 0; g < 2; ++g)
            side->push_back(spikeTrain(rng, 0, endMs, 600000.0, 250, 1.0));

    LinkTrace trace;
    trace.bySlot.resize(std::size_t(std::max(model.links, 1)));
    for (auto& slot : trace.bySlot) {
        double up = 0;
        while (up < endMs) {
            LinkLife life = generateLife(rng, guards, up, endMs);
            if (life.samples.empty())
                break;
            const bool broke = life.downMs.has_value();
            const double next = broke ? *life.downMs + rng.uniform(2000, 8000) : endMs;
            slot.push_back(std::move(life));
            up = std::round(next / kSpikeStepMs) * kSpikeStepMs;
        }
    }
    trace.durationMs = endMs;
    return trace;
}

} // namespace onionvoice::sim
