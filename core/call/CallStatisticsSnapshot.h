// The statistics snapshot of an active call, as published a few times per second: per-link state
// and counters, frame delay percentiles, jitter buffer figures and the estimated MOS.
#pragma once

#include "CallSession.h"
#include "CallTypes.h"

namespace onionvoice::call {

CallStatistics snapshotStatistics(const CallSession& call);

} // namespace onionvoice::call
