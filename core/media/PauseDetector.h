// Tells pauses in speech from the sizes of Opus packets, for the jitter buffer, which moves its
// playout only there, never in the middle of a word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace onionvoice::media {

class PauseDetector {
public:
    enum class Quietness {
        Speech,
        Pause,           // few bytes: the encoder heard (almost) nothing
        QuietUnderNoise, // among the smallest while no packet has been a Pause for long
    };

    // A packet arrived (each once, copies not).
    void note(std::size_t bytes);
    Quietness classify(std::size_t bytes) const;

private:
    double averageBytes_ = 0.0;
    std::uint64_t noted_ = 0;
    std::deque<std::size_t> recent_;
    std::vector<std::size_t> scratch_;
    std::size_t smallestTenth_ = 0; // the size at the 10th percentile of the recent packets
    std::size_t sinceQuiet_ = 0;    // packets noted since the last Pause
};

} // namespace onionvoice::media
