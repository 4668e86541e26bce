// libFuzzer target: the link-trace reader must refuse or accept any text without crashing, and an
// accepted trace must be usable (every life has samples, interpolation stays finite).
#include "sim/LinkTrace.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

using namespace onionvoice::sim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    const auto parsed = readLinkTrace(in, "fuzz");
    const auto* trace = std::get_if<LinkTrace>(&parsed);
    if (!trace)
        return 0;
    for (const auto& slot : trace->bySlot)
        for (const LinkLife& life : slot) {
            if (life.samples.empty())
                std::abort();
            const double t = life.upMs() + 1.5;
            if (!std::isfinite(life.delayAt(Direction::AtoB, t)))
                std::abort();
        }
    return 0;
}
