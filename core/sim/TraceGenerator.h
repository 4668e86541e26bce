// A generator of Tor-like link traces for the simulator. The model and where each of its numbers
// comes from are documented in TraceGenerator.cpp.
#pragma once

#include "LinkTrace.h"

#include <cstdint>

namespace onionvoice::sim {

struct TraceModel {
    int links = 12;
    double minutes = 5;
    std::uint64_t seed = 1;
};

LinkTrace generateTrace(const TraceModel& model);

} // namespace onionvoice::sim
