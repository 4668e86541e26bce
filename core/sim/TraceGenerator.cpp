// Tor-like link trace generator: a family of profiles that differ in structure.
//
// Each call has n link slots. A link is one TCP stream over a caller circuit and a callee circuit
// joined at a rendezvous point, entering the network through one guard on each side. Its one-way
// delay, per direction, is
//     base × drift(t) + jitter + own spikes + spikes of its two guards + jitter bumps,
// and it breaks at the end of its lifetime or when one of its guards has an outage.
// Sources (seeds = ../shared/seeds/): DONAR = donar-anonymous-voip-over-tor.txt, FEAS =
// voice-calling-over-tor-feasibility.txt.
//
// `default` — the model the project started with (unchanged: same traces for the same seed):
//  - Base one-way delay: log-normal, median 200 ms, σ = 0.3 (5–95 %: 122–327 ms). FEAS measured a
//    mean OWD of 210–280 ms on 2- and 3-hop circuits and 396–458 ms on onion (two-way anonymous)
//    calls including their spikes; DONAR Fig. 9 shows onion-link medians mostly below 300 ms. The
//    median was set so that `simple` lands near DONAR Fig. 3/8 (35–40 % of 5-minute single-link
//    calls unacceptable, about half of 90-minute ones).
//  - Direction asymmetry: ba = ab × (1 + N(0, 0.05)); DONAR §4.1: one-way latencies are "highly
//    consistent in both directions of a link".
//  - Slow drift: ±8 % sine with a 3–15 minute period (DONAR §3.1).
//  - Jitter: |N(0, 4 ms)| per sample (cells on one TCP stream rarely reorder).
//  - Latency spikes: Poisson per link, one per 4 minutes; they build up over 0.2–1.5 s and drain
//    over 0.3–3 s; peak log-normal, median 300 ms, σ = 0.9 (1 % above 2.4 s). DONAR Fig. 5: maxima
//    "often 3 times higher than the 75th percentile", no relation between a link's median and
//    its spikes. 60 % of spikes hit both directions, the rest one.
//  - Persistently slow links: 15 %, base × 1.6 and spikes 4× as often (DONAR Fig. 5's long tail).
//  - Guards: 2 per side (DONAR footnote 3); a guard's spikes (one per 10 minutes, median 250 ms)
//    hit every link through it, both directions.
//  - Failures: Weibull lifetime, shape 0.6, scale 2080 minutes: 4 % of links fail within 10
//    minutes, 11 % within an hour (DONAR Fig. 4). A replacement is usable 2–8 s later.
//  - Sampling every 100 ms, every 20 ms while a gradual spike is under way.
// `calm` — a quiet network (FEAS: 28 % of single-circuit calls below 150 ms OWD, >80 % below
//    300 ms when relays are not congested): base median 180 ms σ 0.25, 5 % slow links (× 1.4),
//    own spikes one per 10 minutes (median 200 ms), guard spikes one per 30 minutes (median
//    150 ms), links live twice as long, no bumps, no outages.
// `congested` — busy guards and relays (the cross-circuit interference of
//    multipath-onion-routing-survey.txt §4: circuits sharing a relay's TCP connection all wait):
//    queues that build in an instant (≤ 20 ms) and drain linearly over 1–6 s (a sawtooth), on
//    each guard once every 90 s (median 350 ms) and on each link once every 2 minutes; 20 % slow
//    links; rare jitter bumps (one per 20 s per link and direction, 50–250 ms).
// `hostile` — the structure of an independent model that broke our first adaptive policy (issue
//    10): 30 % persistently slow links (× 1.8, spikes 5× as often); sawtooth queues on links
//    (one per 90 s, median 350 ms, σ 1.0) and on guards (one per 2.5 minutes); per-packet jitter
//    bumps (one per 4 s per link and direction; a stalled cell delays everything entering the
//    stream for 50–250 ms, Pareto α = 1.3, capped); guard outages (one per 20 minutes per
//    guard, 30–120 s) that break every link through the guard at once, replacements avoid a
//    guard that is out; link lifetimes half of `default`'s.
// `measured` — matched to the published measurements the seeds quote: base median 230 ms with
//    the wide spread across circuits of FEAS (σ 0.5: about 20 % below 150 ms, 70 % below 300 ms,
//    mean with spikes ≈ 280 ms as FEAS's 1000 calls); spikes with DONAR Fig. 5's shape (gradual,
//    one per 3 minutes, median 300 ms, σ 1.0) plus some sawtooth guard queues; 20 % slow links
//    (DONAR Fig. 5 ranks about a fifth of 64 links far above the rest); jitter bumps one per
//    10 s; lifetimes of DONAR Fig. 4; a guard outage per guard every 2 hours (DONAR §3.1: links
//    break "simultaneously" when the client's guard is unreachable).
// The random numbers come from a fixed SplitMix64 stream and our own distributions, so a seed
// gives the same trace with any standard library.
#include "TraceGenerator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
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
    double pareto(double minimum, double alpha) {
        return minimum * std::pow(1.0 - uniform(), -1.0 / alpha);
    }
    bool chance(double p) { return uniform() < p; }

private:
    std::uint64_t state_;
};

struct Range {
    double min, max;
};

struct SpikeModel {
    double meanGapMs; // 0: none
    double medianPeakMs;
    double sigma;
    double bothProbability;
    Range riseMs, drainMs;
};

constexpr Range kGradualRise{200, 1500};
constexpr Range kGradualDrain{300, 3000};
constexpr Range kSawtoothRise{5, 20};
constexpr Range kSawtoothDrain{1000, 6000};

struct Profile {
    TraceProfile id;
    std::string_view name;
    double baseMedianMs, baseSigma;
    double slowFraction, slowFactor, slowSpikeRate;
    double jitterMs;
    SpikeModel own;
    int guardsPerSide;
    SpikeModel guard;
    double bumpGapMs; // per link and direction; 0: none
    double bumpMinMs, bumpMaxMs, bumpAlpha;
    double outageGapMs; // per guard; 0: none
    Range outageMs;
    double lifetimeScaleMinutes;
};

constexpr std::array kProfiles{
    Profile{TraceProfile::Calm,
            "calm",
            180,
            0.25,
            0.05,
            1.4,
            2,
            3,
            {600000, 200, 0.9, 0.6, kGradualRise, kGradualDrain},
            2,
            {1800000, 150, 0.9, 1.0, kGradualRise, kGradualDrain},
            0,
            0,
            0,
            0,
            0,
            {0, 0},
            4160},
    Profile{TraceProfile::Default,
            "default",
            200,
            0.3,
            0.15,
            1.6,
            4,
            4,
            {240000, 300, 0.9, 0.6, kGradualRise, kGradualDrain},
            2,
            {600000, 250, 0.9, 1.0, kGradualRise, kGradualDrain},
            0,
            0,
            0,
            0,
            0,
            {0, 0},
            2080},
    Profile{TraceProfile::Congested,
            "congested",
            210,
            0.3,
            0.2,
            1.6,
            4,
            6,
            {120000, 300, 0.9, 0.6, kSawtoothRise, kSawtoothDrain},
            2,
            {90000, 350, 0.8, 1.0, kSawtoothRise, kSawtoothDrain},
            20000,
            50,
            250,
            1.5,
            0,
            {0, 0},
            2080},
    Profile{TraceProfile::Hostile,
            "hostile",
            230,
            0.35,
            0.3,
            1.8,
            5,
            8,
            {90000, 350, 1.0, 0.6, kSawtoothRise, kSawtoothDrain},
            2,
            {150000, 300, 0.9, 1.0, kSawtoothRise, kSawtoothDrain},
            4000,
            50,
            250,
            1.3,
            1200000,
            {30000, 120000},
            1040},
    Profile{TraceProfile::Measured,
            "measured",
            230,
            0.5,
            0.2,
            1.5,
            3,
            5,
            {180000, 300, 1.0, 0.6, kGradualRise, kGradualDrain},
            2,
            {300000, 250, 0.9, 1.0, kSawtoothRise, kSawtoothDrain},
            10000,
            50,
            250,
            1.5,
            7200000,
            {20000, 90000},
            2080},
};

const Profile& profileOf(TraceProfile id) {
    for (const Profile& p : kProfiles)
        if (p.id == id)
            return p;
    return kProfiles[1];
}

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
    // A spike whose rise is shorter than the fine sampling step is written as its corner points
    // (the delay is piecewise linear, so that is exact); a gradual one is sampled finely instead.
    bool sharp() const { return riseMs < 20; }
};

std::vector<Spike> spikeTrain(Random& rng, double fromMs, double toMs, const SpikeModel& m,
                              double rate = 1) {
    std::vector<Spike> spikes;
    if (m.meanGapMs <= 0)
        return spikes;
    const double gap = m.meanGapMs / rate;
    for (double t = fromMs + rng.exponential(gap); t < toMs; t += rng.exponential(gap)) {
        const double r = rng.uniform();
        const Hits hits = r < m.bothProbability                                 ? Hits::Both
                          : r < m.bothProbability + (1 - m.bothProbability) / 2 ? Hits::AtoB
                                                                                : Hits::BtoA;
        const double rise = rng.uniform(m.riseMs.min, m.riseMs.max);
        const double peak = rng.logNormal(m.medianPeakMs, m.sigma);
        spikes.push_back({t, rise, peak, rng.uniform(m.drainMs.min, m.drainMs.max), hits});
    }
    return spikes;
}

// A stalled cell: whatever enters the stream during the next A ms leaves when it is released.
std::vector<Spike> bumpTrain(Random& rng, double fromMs, double toMs, const Profile& p, Hits d) {
    std::vector<Spike> bumps;
    if (p.bumpGapMs <= 0)
        return bumps;
    for (double t = fromMs + rng.exponential(p.bumpGapMs); t < toMs;
         t += rng.exponential(p.bumpGapMs)) {
        const double a = std::min(p.bumpMaxMs, rng.pareto(p.bumpMinMs, p.bumpAlpha));
        bumps.push_back({t, 0.1, a, a, d});
    }
    return bumps;
}

// The spikes that touch one link, queried at non-decreasing times.
class SpikeField {
public:
    explicit SpikeField(std::vector<Spike> spikes)
        : spikes_(std::move(spikes)) {
        std::stable_sort(spikes_.begin(), spikes_.end(),
                         [](const Spike& a, const Spike& b) { return a.startMs < b.startMs; });
        for (const Spike& s : spikes_)
            longestMs_ = std::max(longestMs_, s.endMs() - s.startMs);
    }
    double extraAt(Direction d, double t) {
        advance(t);
        double v = 0;
        for (std::size_t i = first_; i < spikes_.size() && spikes_[i].startMs <= t; ++i)
            if (spikes_[i].affects(d))
                v += spikes_[i].extraAt(t);
        return v;
    }
    // Whether a gradual spike is under way at t or starts within `aheadMs`.
    bool gradualNear(double t, double aheadMs) {
        advance(t);
        for (std::size_t i = first_; i < spikes_.size() && spikes_[i].startMs < t + aheadMs; ++i)
            if (!spikes_[i].sharp() && spikes_[i].endMs() > t)
                return true;
        return false;
    }
    // Corner points of the sharp spikes, sorted, rounded to the trace's 0.1 ms resolution.
    std::vector<double> cornerTimes() const {
        std::vector<double> times;
        for (const Spike& s : spikes_)
            if (s.sharp())
                for (double t : {s.startMs, s.startMs + s.riseMs, s.endMs()})
                    times.push_back(std::round(t * 10) / 10);
        std::sort(times.begin(), times.end());
        return times;
    }

private:
    void advance(double t) {
        while (first_ < spikes_.size() && spikes_[first_].startMs + longestMs_ < t)
            ++first_;
    }
    std::vector<Spike> spikes_;
    double longestMs_ = 0;
    std::size_t first_ = 0;
};

struct Outage {
    double startMs, endMs;
};

struct Guard {
    std::vector<Spike> spikes;
    std::vector<Outage> outages;
    bool outAt(double t) const {
        return std::any_of(outages.begin(), outages.end(),
                           [t](const Outage& o) { return t >= o.startMs && t < o.endMs; });
    }
    double nextOutageAfter(double t) const {
        for (const Outage& o : outages)
            if (o.startMs > t)
                return o.startMs;
        return std::numeric_limits<double>::infinity();
    }
};

struct Guards {
    std::vector<Guard> caller, callee;
};

// A guard for a new link: any of the side's guards that is not out (all of them when none is
// out, which keeps `default` traces identical to the original generator's).
const Guard& pickGuard(Random& rng, const std::vector<Guard>& side, double t) {
    std::vector<const Guard*> up;
    for (const Guard& g : side)
        if (!g.outAt(t))
            up.push_back(&g);
    if (up.empty())
        return side[rng.next() % side.size()];
    return *up[rng.next() % up.size()];
}

constexpr double kStepMs = 100;
constexpr double kSpikeStepMs = 20;

LinkLife generateLife(Random& rng, const Profile& p, const Guards& guards, double upMs,
                      double endMs) {
    const bool slow = rng.chance(p.slowFraction);
    const double base = rng.logNormal(p.baseMedianMs, p.baseSigma) * (slow ? p.slowFactor : 1.0);
    const double baseBa = base * (1 + 0.05 * rng.normal());
    const double driftPeriod = rng.uniform(3, 15) * 60000;
    const double driftPhase = rng.uniform(0, 2 * std::numbers::pi);
    const double lifetime = rng.weibull(0.6, p.lifetimeScaleMinutes * 60000);
    const Guard& callerGuard = pickGuard(rng, guards.caller, upMs);
    const Guard& calleeGuard = pickGuard(rng, guards.callee, upMs);
    const double downMs = std::min(
        {upMs + lifetime, callerGuard.nextOutageAfter(upMs), calleeGuard.nextOutageAfter(upMs)});
    const double lastMs = std::min(downMs, endMs);
    std::vector<Spike> all = spikeTrain(rng, upMs, lastMs, p.own, slow ? p.slowSpikeRate : 1.0);
    for (const auto* g : {&callerGuard, &calleeGuard})
        all.insert(all.end(), g->spikes.begin(), g->spikes.end());
    for (Hits d : {Hits::AtoB, Hits::BtoA}) {
        const auto bumps = bumpTrain(rng, upMs, lastMs, p, d);
        all.insert(all.end(), bumps.begin(), bumps.end());
    }
    SpikeField field(std::move(all));
    const std::vector<double> corners = field.cornerTimes();

    const auto delay = [&](Direction d, double t, double jitter) {
        double v = (d == Direction::AtoB ? base : baseBa) *
                   (1 + 0.08 * std::sin(2 * std::numbers::pi * t / driftPeriod + driftPhase));
        v += jitter;
        return v + field.extraAt(d, t);
    };
    LinkLife life;
    const auto sample = [&](double t) {
        if (!life.samples.empty() && t < life.samples.back().tMs + 0.05)
            return;
        const double ab = delay(Direction::AtoB, t, std::abs(p.jitterMs * rng.normal()));
        life.samples.push_back(
            {t, ab, delay(Direction::BtoA, t, std::abs(p.jitterMs * rng.normal()))});
    };
    auto corner = corners.begin();
    for (double t = upMs; t < lastMs; t += field.gradualNear(t, kStepMs) ? kSpikeStepMs : kStepMs) {
        for (; corner != corners.end() && *corner <= t; ++corner)
            if (*corner >= upMs)
                sample(*corner);
        sample(t);
    }
    for (; corner != corners.end() && *corner < lastMs; ++corner)
        sample(*corner);
    if (life.samples.empty())
        return life;
    if (downMs < endMs)
        life.downMs = std::max(std::round(downMs * 10) / 10, life.samples.back().tMs + 0.1);
    else
        life.samples.push_back(
            {endMs, delay(Direction::AtoB, endMs, 0), delay(Direction::BtoA, endMs, 0)});
    return life;
}

std::vector<Outage> outageTrain(Random& rng, double endMs, const Profile& p) {
    std::vector<Outage> outages;
    if (p.outageGapMs <= 0)
        return outages;
    for (double t = rng.exponential(p.outageGapMs); t < endMs;
         t += rng.exponential(p.outageGapMs)) {
        const double length = rng.uniform(p.outageMs.min, p.outageMs.max);
        outages.push_back({t, t + length});
        t += length;
    }
    return outages;
}

// When a replacement link may come up: 2–8 s after the failure (a new rendezvous circuit), and
// not before some guard on each side is reachable again.
double replacementTime(Random& rng, const Guards& guards, double downMs) {
    double t = downMs + rng.uniform(2000, 8000);
    for (const auto* side : {&guards.caller, &guards.callee}) {
        if (std::none_of(side->begin(), side->end(), [t](const Guard& g) { return g.outAt(t); }))
            continue;
        if (std::any_of(side->begin(), side->end(), [t](const Guard& g) { return !g.outAt(t); }))
            continue;
        for (const Guard& g : *side)
            for (const Outage& o : g.outages)
                if (t >= o.startMs && t < o.endMs)
                    t = o.endMs;
    }
    return t;
}

} // namespace

std::string_view traceProfileName(TraceProfile profile) {
    return profileOf(profile).name;
}

std::optional<TraceProfile> traceProfileFromName(std::string_view name) {
    for (const Profile& p : kProfiles)
        if (p.name == name)
            return p.id;
    return std::nullopt;
}

std::vector<TraceProfile> allTraceProfiles() {
    std::vector<TraceProfile> all;
    for (const Profile& p : kProfiles)
        all.push_back(p.id);
    return all;
}

LinkTrace generateTrace(const TraceModel& model) {
    const Profile& p = profileOf(model.profile);
    Random rng(model.seed * 0x2545F4914F6CDD1Dull + 0x1234567);
    const double endMs = model.minutes * 60000;
    Guards guards;
    for (auto* side : {&guards.caller, &guards.callee})
        for (int g = 0; g < p.guardsPerSide; ++g)
            side->push_back({spikeTrain(rng, 0, endMs, p.guard), {}});
    for (auto* side : {&guards.caller, &guards.callee})
        for (Guard& g : *side)
            g.outages = outageTrain(rng, endMs, p);

    LinkTrace trace;
    trace.bySlot.resize(std::size_t(std::max(model.links, 1)));
    for (auto& slot : trace.bySlot) {
        double up = 0;
        while (up < endMs) {
            LinkLife life = generateLife(rng, p, guards, up, endMs);
            if (life.samples.empty())
                break;
            const bool broke = life.downMs.has_value();
            const double next = broke ? replacementTime(rng, guards, *life.downMs) : endMs;
            slot.push_back(std::move(life));
            up = std::round(next / kSpikeStepMs) * kSpikeStepMs;
        }
    }
    trace.durationMs = endMs;
    return trace;
}

} // namespace onionvoice::sim
