// Link tails and co-spiking (see LinkTails.h).
#include "LinkTails.h"

#include <algorithm>

namespace onionvoice::multipath {
namespace {

// The baseline follows a link's delay down at once and up slowly, so a spike stands out from it
// for its whole length while a lasting change of route is absorbed within seconds.
constexpr double kBaselineRise = 0.003;

// A link's usual delay averages what is known of it outside spikes over about 50 observations
// (two seconds of packets): the level an idle link is expected back at, unlike the baseline,
// which is its floor.
constexpr double kUsualWeight = 0.02;

// Smoothing prior of the co-spiking ratio: links seen spiking together once are not yet a pair.
constexpr double kPairPrior = 2.0;

} // namespace

LinkTails::LinkTails(TailSettings settings)
    : settings_(settings) {}

void LinkTails::observe(Time now, LinkId link, Millis delay) {
    if (link >= kMaxLinks)
        return;
    Link& l = links_[link];
    // The peer repeats its report of a link until a newer record arrives there, so the same delay
    // known again is taken as the same measurement (a plateau of equal values too): it keeps the
    // time it was first known, drains from then and leaves the window a second after it. Nor is
    // the link heard again: once we leave a link that spiked, the peer and our own monitor keep
    // its last (spike) delay for seconds, and taking the repeat for news barred a link for as
    // long after it had recovered.
    if (!l.newest || *l.newest != delay) {
        l.recent.push_back({now, delay});
        l.newest = delay;
        l.lastHeard = now;
    }
    while (!l.recent.empty() && l.recent.front().at <= now - settings_.window)
        l.recent.pop_front();
    double largestMs = 0;
    for (const Observation& o : l.recent)
        largestMs = std::max(largestMs, double(o.delay.count()) -
                                            settings_.drainMsPerSecond *
                                                std::chrono::duration<double>(now - o.at).count());
    l.lastTail = std::max(delay, Millis(std::int64_t(largestMs)) - settings_.slack);
    const double ms = double(delay.count());
    l.baselineMs = l.baselineMs < 0 || ms < l.baselineMs
                       ? ms
                       : l.baselineMs + kBaselineRise * (ms - l.baselineMs);
    const bool spiking = ms > l.baselineMs + double(settings_.excursion.count());
    if (spiking)
        l.lastSpike = now;
    else
        l.usualMs = l.usualMs < 0 ? ms : l.usualMs + kUsualWeight * (ms - l.usualMs);
    if (spiking && !l.spikeStart)
        l.spikeStart = now;
    else if (!spiking)
        l.spikeStart.reset();
}

void LinkTails::updatePairs(Time now) {
    std::array<bool, kMaxLinks> fresh{};
    for (std::size_t i = 0; i < kMaxLinks; ++i)
        fresh[i] = heardWithin(links_[i], now, settings_.fresh);
    for (std::size_t i = 0; i < kMaxLinks; ++i) {
        if (!fresh[i])
            continue;
        for (std::size_t j = i + 1; j < kMaxLinks; ++j) {
            if (!fresh[j])
                continue;
            const bool a = links_[i].spikeStart.has_value(), b = links_[j].spikeStart.has_value();
            both_[i][j] = both_[i][j] * settings_.pairMemory + (a && b ? 1 : 0);
            either_[i][j] = either_[i][j] * settings_.pairMemory + (a || b ? 1 : 0);
        }
    }
}

void LinkTails::forget(LinkId link) {
    if (link >= kMaxLinks || !links_[link].lastTail)
        return; // nothing learnt (pairs need an observation too)
    links_[link] = Link{};
    for (std::size_t i = 0; i < kMaxLinks; ++i) {
        // By value: std::minmax returns references, one of them to the converted `link`.
        const std::size_t lo = std::min<std::size_t>(i, link), hi = std::max<std::size_t>(i, link);
        both_[lo][hi] = either_[lo][hi] = 0;
    }
}

Millis LinkTails::tail(Time now, LinkId link) const {
    if (link >= kMaxLinks || !links_[link].lastTail)
        return settings_.unmeasured;
    const Link& l = links_[link];
    if (heardWithin(l, now, settings_.window))
        return *l.lastTail;
    // The baseline is higher only when the link was in a long spike when last heard (it creeps
    // up meanwhile, the usual delay does not).
    return Millis(std::int64_t(std::max(l.usualMs, l.baselineMs)));
}

Millis LinkTails::tailWithPartners(Time now, LinkId link, std::span<const LinkId> links,
                                   double evidence) const {
    Millis judged = tail(now, link);
    if (link >= kMaxLinks || heardWithin(links_[link], now, settings_.fresh))
        return judged;
    for (LinkId partner : links) {
        if (partner == link || partner >= kMaxLinks || !links_[partner].spikeStart)
            continue;
        if (const double together = coSpiking(link, partner); together >= evidence)
            judged = std::max(judged,
                              Millis(std::int64_t(double(tail(now, partner).count()) * together)));
    }
    return judged;
}

std::optional<Time> LinkTails::spikeStart(LinkId link) const {
    return link < kMaxLinks ? links_[link].spikeStart : std::nullopt;
}

std::optional<Time> LinkTails::lastSpike(LinkId link) const {
    return link < kMaxLinks ? links_[link].lastSpike : std::nullopt;
}

double LinkTails::coSpiking(LinkId a, LinkId b) const {
    if (a >= kMaxLinks || b >= kMaxLinks || a == b)
        return a == b ? 1.0 : 0.0;
    const auto [lo, hi] = std::minmax(a, b);
    return both_[lo][hi] / (either_[lo][hi] + kPairPrior);
}

} // namespace onionvoice::multipath
