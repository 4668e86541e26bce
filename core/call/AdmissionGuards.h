// Defences of the incoming side that need memory: which Hellos were already seen (a captured
// Hello replayed within the clock-skew window must not ring again), and how often one caller, and
// all unknown callers together, may ring. Every structure is bounded by count, so a flood of
// identities or nonces costs a fixed amount of memory.
#pragma once

#include "Handshake.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <chrono>
#include <map>
#include <optional>

namespace onionvoice::call {

// Monotonic milliseconds, injected so tests can drive time.
using Millis = std::chrono::milliseconds;

class HelloReplayCache {
public:
    // Entries are kept for `window` after they were seen; it must cover the Hello time check.
    HelloReplayCache(Millis window, std::size_t capacity);

    // Whether (caller, nonce) was seen within the window (a replay).
    bool seen(const QString& caller, const Bytes32& nonce, Millis now);
    // Records (caller, nonce); false when it was already seen within the window (a replay).
    bool remember(const QString& caller, const Bytes32& nonce, Millis now);
    std::size_t size() const { return seen_.size(); }

private:
    void expire(Millis now);
    static QByteArray keyOf(const QString& caller, const Bytes32& nonce);

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

enum class RingVerdict { Ring, Replayed, RateLimited };

// Who a caller is to us, as far as the rate of rings goes.
enum class CallerStanding {
    Stranger, // not in the contacts: strangers share one rate besides their own
    Contact,  // in the contacts, blocked or not: a blocked contact limited where a contact would
              // not be could tell that it is blocked
};

// Whether a verified Hello may ring, in the order that keeps each defence intact: a replay is
// refused before it can spend its caller's rings (a replayer would lock the caller out), and a
// Hello is remembered only once it passed the rate limits, so a flood of rate-limited Hellos
// cannot push an earlier one out of the bounded cache and make it ring again. (A Hello refused
// for the rate is not remembered: replayed later, it is one more ring of its own caller, within
// the rate.)
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
    RingVerdict admit(const QString& caller, const Bytes32& nonce, CallerStanding standing,
                      Millis now);
    // A twin of a Hello that rings (see RingKey) is the same call: held to the replay cache, it
    // spends no ring. Ring or Replayed.
    RingVerdict admitTwin(const QString& caller, const Bytes32& nonce, Millis now);

private:
    double strangerRingsPerMinute_;
    HelloReplayCache replays_;
    KeyedRateLimit perCaller_;
    TokenBucket strangers_;
};

} // namespace onionvoice::call
