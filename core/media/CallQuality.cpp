// ITU-T G.107 E-model (see CallQuality.h for the formulas and their source).
#include "media/CallQuality.h"

#include <algorithm>
#include <cmath>

namespace onionvoice::media {
namespace {

// R0 - Is with every G.107 Table 2 default.
constexpr double kDefaultR = 93.2;

double delayImpairment(double ta) {
    if (ta <= 100.0)
        return 0.0;
    const double x = std::log10(ta / 100.0) / std::log10(2.0);
    return 25.0 * (std::pow(1.0 + std::pow(x, 6.0), 1.0 / 6.0) -
                   3.0 * std::pow(1.0 + std::pow(x / 3.0, 6.0), 1.0 / 6.0) + 2.0);
}

} // namespace

double mosFromR(double r) {
    if (r < 0.0)
        return 1.0;
    if (r > 100.0)
        return 4.5;
    return 1.0 + 0.035 * r + r * (r - 60.0) * (100.0 - r) * 7e-6;
}

EModelResult computeEModel(const EModelInput& input) {
    EModelResult result;
    result.delayImpairment = delayImpairment(double(input.mouthToEar.count()));
    const double ppl = std::clamp(input.packetLossPercent, 0.0, 100.0);
    const double burst = std::max(input.burstRatio, 1.0);
    const double ie = input.equipmentImpairment;
    result.effectiveEquipmentImpairment =
        ie + (95.0 - ie) * ppl / (ppl / burst + input.lossRobustness);
    result.rFactor = kDefaultR - result.delayImpairment - result.effectiveEquipmentImpairment;
    result.mos = mosFromR(result.rFactor);
    return result;
}

} // namespace onionvoice::media
