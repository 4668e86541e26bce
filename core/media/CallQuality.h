// Call-quality estimate: the mouth-to-ear delay budget of a call and the ITU-T G.107 E-model
// (R-factor and MOS) computed from that delay and the packet loss.
//
// Source: ITU-T Recommendation G.107 (06/2015), "The E-model: a computational model for use in
// transmission planning". All parameters keep their G.107 default values (Table 2) except the
// absolute delay Ta, the packet-loss probability Ppl and the codec's Ie / Bpl, so the
// basic signal-to-noise ratio minus the simultaneous impairments is the default 93.2 and
//
//   R   = 93.2 - Idd(Ta) - Ie,eff                                          (G.107 eq. 7-1)
//   Idd = 0                                                  for Ta <= 100 ms
//   Idd = 25 * ((1 + X^6)^(1/6) - 3 (1 + (X/3)^6)^(1/6) + 2)   for Ta > 100 ms,
//         X = log10(Ta / 100) / log10(2)                                   (G.107 eq. 7-28)
//   Ie,eff = Ie + (95 - Ie) * Ppl / (Ppl / BurstR + Bpl)                   (G.107 eq. 7-29)
//   MOS = 1                                                  for R < 0
//   MOS = 1 + 0.035 R + R (R - 60) (100 - R) * 7e-6          for 0 <= R <= 100
//   MOS = 4.5                                                for R > 100   (G.107 Annex B, B-4)
//
// Talker and listener echo (Idte, Idle) stay at their default contribution because the call
// runs echo cancellation. Opus has no entry in ITU-T G.113 Appendix I; the defaults use the
// entry for G.711 with packet loss concealment (Ie = 0, Bpl = 25.1), a conservative stand-in
// for a wideband codec with in-band FEC. Ppl is in percent, BurstR = 1 means random loss.
#pragma once

#include <chrono>

namespace onionvoice::media {

struct EModelInput {
    std::chrono::milliseconds mouthToEar{0}; // Ta
    double packetLossPercent = 0.0;          // Ppl
    double burstRatio = 1.0;                 // BurstR
    double equipmentImpairment = 0.0;        // Ie
    double lossRobustness = 25.1;            // Bpl
};

struct EModelResult {
    double delayImpairment = 0.0;              // Idd
    double effectiveEquipmentImpairment = 0.0; // Ie,eff
    double rFactor = 0.0;
    double mos = 0.0;
};

EModelResult computeEModel(const EModelInput& input);
double mosFromR(double r);

// What a frame spends between the talker's mouth and the listener's ear.
struct MouthToEarBudget {
    std::chrono::microseconds captureLatency{0};    // input device latency
    std::chrono::microseconds packetPeriod{40000};  // waiting for the packet to fill
    std::chrono::microseconds codecLookahead{6500}; // Opus VOIP mode: 2.5 ms + 4 ms
    std::chrono::microseconds network{0};           // one-way network delay
    std::chrono::microseconds jitterBuffer{0};      // jitter buffer target
    std::chrono::microseconds playbackLatency{0};   // output device latency

    std::chrono::microseconds total() const {
        return captureLatency + packetPeriod + codecLookahead + network + jitterBuffer +
               playbackLatency;
    }
};

} // namespace onionvoice::media
