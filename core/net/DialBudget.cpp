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

std::int64_t DialBudget::accrued(Clock::time_point now) const {
    return left_ >= burst_ ? 0 : (now - accruingSince_) / refillEvery_;
}

int DialBudget::left(Clock::time_point now) const {
    return int(std::min<std::int64_t>(burst_, left_ + accrued(now)));
}

bool DialBudget::take(Clock::time_point now) {
    const std::int64_t back = accrued(now);
    left_ = left(now);
    accruingSince_ += back * refillEvery_;
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
