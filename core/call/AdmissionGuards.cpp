// Replay cache, the memory of rings that are over, and rate limits of incoming calls.
#include "AdmissionGuards.h"

#include <algorithm>

namespace onionvoice::call {

HelloReplayCache::HelloReplayCache(Millis window, std::size_t capacity)
    : window_(window)
    , capacity_(capacity) {}

void HelloReplayCache::expire(Millis now) {
    while (!expiry_.empty() && expiry_.begin()->first <= now) {
        seen_.remove(expiry_.begin()->second);
        expiry_.erase(expiry_.begin());
    }
}

QByteArray HelloReplayCache::keyOf(const QString& caller, const Bytes32& key) {
    QByteArray entry = caller.toLatin1();
    entry.append(reinterpret_cast<const char*>(key.data()), qsizetype(key.size()));
    return entry;
}

bool HelloReplayCache::seen(const QString& caller, const Bytes32& key, Millis now) {
    expire(now);
    return seen_.contains(keyOf(caller, key));
}

bool HelloReplayCache::remember(const QString& caller, const Bytes32& key, Millis now) {
    expire(now);
    const QByteArray entry = keyOf(caller, key);
    if (seen_.contains(entry))
        return false;
    if (seen_.size() >= qsizetype(capacity_)) {
        // Only reachable past the ring rate limits (RingAdmission); the oldest entry is the
        // closest to expiring.
        seen_.remove(expiry_.begin()->second);
        expiry_.erase(expiry_.begin());
    }
    seen_.insert(entry, now + window_);
    expiry_.emplace(now + window_, entry);
    return true;
}

bool TokenBucket::take(Millis now, double perMinute, double burst) {
    tokens = last ? std::min(burst, tokens + double((now - *last).count()) * perMinute / 60000.0)
                  : burst;
    last = now;
    if (tokens < 1)
        return false;
    tokens -= 1;
    return true;
}

KeyedRateLimit::KeyedRateLimit(double perMinute, double burst, std::size_t capacity)
    : perMinute_(perMinute)
    , burst_(burst)
    , capacity_(capacity) {}

bool KeyedRateLimit::allow(const QString& key, Millis now) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) {
        if (buckets_.size() >= qsizetype(capacity_)) {
            // Every stored bucket has been used once, so `last` is set.
            const auto oldest = std::min_element(
                buckets_.begin(), buckets_.end(),
                [](const TokenBucket& a, const TokenBucket& b) { return a.last < b.last; });
            buckets_.erase(oldest);
        }
        it = buckets_.insert(key, TokenBucket{});
    }
    return it->take(now, perMinute_, burst_);
}

RingAdmission::RingAdmission(const Limits& limits)
    : strangerRingsPerMinute_(limits.strangerRingsPerMinute)
    , replays_(limits.replayWindow, limits.replayCapacity)
    , endedRings_(limits.replayWindow, limits.replayCapacity)
    , perCaller_(limits.ringsPerCallerPerMinute, limits.ringsPerCallerPerMinute,
                 limits.trackedCallers) {}

RingVerdict RingAdmission::admit(const Hello& hello, CallerStanding standing, Millis now) {
    if (replays_.seen(hello.caller, hello.nonce, now))
        return RingVerdict::Replayed;
    if (endedRings_.seen(hello.caller, hello.ephemeral, now))
        return RingVerdict::Ended;
    if (!perCaller_.allow(hello.caller, now) ||
        (standing == CallerStanding::Stranger &&
         !strangers_.take(now, strangerRingsPerMinute_, strangerRingsPerMinute_)))
        return RingVerdict::RateLimited;
    replays_.remember(hello.caller, hello.nonce, now);
    return RingVerdict::Ring;
}

RingVerdict RingAdmission::admitTwin(const Hello& hello, Millis now) {
    return replays_.remember(hello.caller, hello.nonce, now) ? RingVerdict::Ring
                                                             : RingVerdict::Replayed;
}

void RingAdmission::endRing(const RingKey& ring, Millis now) {
    endedRings_.remember(ring.caller, ring.ephemeral, now);
}

} // namespace onionvoice::call
