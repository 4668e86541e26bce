// How many circuits a call's link pool may ask tor to build: a token bucket. Every dial makes tor
// build a rendezvous circuit, and a peer decides when our links break: without a bound, a callee
// that closes each link once it has worked makes us build circuits without end, each with a fresh
// middle relay after our layer-2 one (a chance for a relay of the peer's to see which layer-2
// relay we use, a step towards our guard), and loads the network. With the bound, a burst covers
// what real faults need (a relay carrying every link dies: each slot dialled again, and a second
// attempt beside the slow ones), and beyond it the pool dials at a steady pace however often links
// break.
#pragma once

#include <chrono>
#include <cstdint>

namespace onionvoice::net {

class DialBudget {
public:
    using Clock = std::chrono::steady_clock;

    // Up to `burst` dials at once; a spent dial comes back every `refillEvery`.
    DialBudget(int burst, Clock::duration refillEvery);

    // Spends one dial if one is left at `now`.
    bool take(Clock::time_point now);
    // Returns a dial that built no circuit (tor's SOCKS port was not there to ask).
    void giveBack();
    // How long from `now` until take() succeeds; zero while a dial is left.
    Clock::duration untilNext(Clock::time_point now) const;
    int left(Clock::time_point now) const;
    Clock::duration refillEvery() const { return refillEvery_; }

private:
    // Whole dials come back since accruingSince_ (none while the bucket is full).
    std::int64_t accrued(Clock::time_point now) const;

    int burst_;
    Clock::duration refillEvery_;
    int left_;
    Clock::time_point accruingSince_{}; // the next dial comes back refillEvery_ after this
};

} // namespace onionvoice::net
