// A generator of Tor-like link traces for the simulator, as a family of named profiles that differ
// in structure (not only in scale), so that a policy tuned on some of them can be judged on the
// others. Each profile's model and where its numbers come from are documented in
// TraceGenerator.cpp.
#pragma once

#include "LinkTrace.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace onionvoice::sim {

enum class TraceProfile { Calm, Default, Congested, Hostile, Measured };

std::string_view traceProfileName(TraceProfile profile);
std::optional<TraceProfile> traceProfileFromName(std::string_view name);
std::vector<TraceProfile> allTraceProfiles();

struct TraceModel {
    int links = 12;
    double minutes = 5;
    std::uint64_t seed = 1;
    TraceProfile profile = TraceProfile::Default;
};

LinkTrace generateTrace(const TraceModel& model);

} // namespace onionvoice::sim
