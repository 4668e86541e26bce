// Token-bucket arithmetic of DialBudget.
#include "DialBudget.h"

#include <algorithm>
#include <cassert>

namespace onionvoice::net {

DialBudget::DialBudget(int burst, Clock::duration refillEvery)
    : burst_(burst)
    , refillEvery_(refillEvery)
    , left_(burst) {
    assert(burst > 0 && refillEvery > Clock::duration::zero());
}

int DialBudget::left(Clock::time_point now) const {
    if (left_ >= burst_)
        return burst_;
    const auto accrued = (now - accruingSince_) / refillEvery_;
    return int(std::min<decltype(accrued)>(burst_, left_ + accrued));
}

bool DialBudget::take(Clock::time_point now) {
    if (left_ < burst_) {
        const auto accrued = (now - accruingSince_) / refillEvery_;
        left_ = left(now);
        accruingSince_ += accrued * refillEvery_;
    }
    if (left_ == 0)
        return false;
    if (left_ == burst_)
        accruingSince_ = now; // a full bucket accrues nothing: the clock starts with this dial
    --left_;
    return true;
}

void DialBudget::giveBack() {
    left_ = std::min(burst_, left_ + 1);
}

DialBudget::Clock::duration DialBudget::untilNext(Clock::time_point now) const {
    if (left(now) > 0)
        return Clock::duration::zero();
    return refillEvery_ - (now - accruingSince_);
}

} // namespace onionvoice::net
