// Defences of the incoming side that need memory: which Hellos were already seen (a captured
// Hello replayed within the clock-skew window must not ring again), which rings are over (a late
// twin of one must not ring again either), and how often one caller, and all unknown callers
// together, may ring. Every structure is bounded by count, so a flood of identities or nonces
// costs a fixed amount of memory.
#pragma once

#include "Handshake.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <chrono>
#include <map>
#include <optional>

namespace onionvoice::call {

// Which ring a Hello belongs to: its caller and its ephemeral key. A caller whose handshake link
// is slow to open dials a second attempt beside it (net::LinkPoolConfig::firstHedgeDelay), each
// with a Hello of its own for the same call, and both may arrive: the later one is a twin of the
// first, and joins the ring the first started, real or decoy alike (it hears Ringing and ends with
// it). Only the caller can make one: the Hello is signed, and the key is the caller's own.
struct RingKey {
    QString caller;
    Bytes32 ephemeral{};
    friend bool operator==(const RingKey&, const RingKey&) = default;
};
inline RingKey ringKeyOf(const Hello& hello) {
    return {hello.caller, hello.ephemeral};
}

// Monotonic milliseconds, injected so tests can drive time.
using Millis = std::chrono::milliseconds;

// Which (caller, 32 bytes) pairs were seen within a window: the nonces of Hellos, or the ephemeral
// keys of rings that are over.
class HelloReplayCache {
public:
    // Entries are kept for `window` after they were seen; it must cover the Hello time check.
    HelloReplayCache(Millis window, std::size_t capacity);

    // Whether (caller, key) was seen within the window (a replay, or a ring that is over).
    bool seen(const QString& caller, const Bytes32& key, Millis now);
    // Records (caller, key); false when it was already seen within the window.
    bool remember(const QString& caller, const Bytes32& key, Millis now);
    std::size_t size() const { return seen_.size(); }

private:
    void expire(Millis now);
    static QByteArray keyOf(const QString& caller, const Bytes32& key);

    Millis window_;
    std::size_t capacity_;
    QHash<QByteArray, Millis> seen_;           // key → expiry
    std::multimap<Millis, QByteArray> expiry_; // expiry → key, oldest first
};

// A token bucket: `burst` events at once, refilled at `perMinute` per minute.
struct TokenBucket {
    double tokens = 0;
    std::optional<Millis> last; // none: never used, the bucket is full
    bool take(Millis now, double perMinute, double burst);
};

// Token buckets per key (caller address), at most `capacity` keys: when full, the least recently
// used key is forgotten (it starts again with a full bucket, which only helps a caller that has
// been quiet the longest).
class KeyedRateLimit {
public:
    KeyedRateLimit(double perMinute, double burst, std::size_t capacity);
    bool allow(const QString& key, Millis now);
    std::size_t size() const { return buckets_.size(); }

private:
    double perMinute_, burst_;
    std::size_t capacity_;
    QHash<QString, TokenBucket> buckets_;
};

enum class RingVerdict { Ring, Replayed, RateLimited, Ended };

// Who a caller is to us, as far as the rate of rings goes.
enum class CallerStanding {
    Stranger, // not in the contacts: strangers share one rate besides their own
    Contact,  // in the contacts, blocked or not: a blocked contact limited where a contact would
              // not be could tell that it is blocked
};

// Whether a verified Hello may ring, in the order that keeps each defence intact: a replay, or a
// Hello of a ring that is over, is refused before it can spend its caller's rings (a replayer
// would lock the caller out), and a Hello is remembered only once it passed the rate limits, so a
// flood of rate-limited Hellos cannot push an earlier one out of the bounded cache and make it
// ring again. (A Hello refused for the rate is not remembered: replayed later, it is one more ring
// of its own caller, within the rate.)
class RingAdmission {
public:
    struct Limits {
        Millis replayWindow;
        std::size_t replayCapacity;
        double ringsPerCallerPerMinute;
        std::size_t trackedCallers;
        double strangerRingsPerMinute;
    };
    explicit RingAdmission(const Limits& limits);
    RingVerdict admit(const Hello& hello, CallerStanding standing, Millis now);
    // A twin of a Hello that rings (see RingKey) is the same call: held to the replay cache, it
    // spends no ring. Ring or Replayed.
    RingVerdict admitTwin(const Hello& hello, Millis now);
    // The ring is over: a Hello of it that comes later (a twin late on its circuit) is refused by
    // admit() for the replay window, before it can spend a ring, as a replay is. Not for a ring
    // that ended because its link was lost before its caller said anything: for the caller that
    // call is still being dialled (see CallEngine::end).
    void endRing(const RingKey& ring, Millis now);

private:
    double strangerRingsPerMinute_;
    HelloReplayCache replays_;
    HelloReplayCache endedRings_; // (caller, ephemeral key) of the rings that are over
    KeyedRateLimit perCaller_;
    TokenBucket strangers_;
};

} // namespace onionvoice::call
