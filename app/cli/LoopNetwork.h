// The network between the two ends of the audio-loop tool: a fixed delay, random packet loss on
// top of another network, or (with core/sim) a multipath call replayed over a link trace.
#pragma once

#include <QString>
#include <QStringList>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace onionvoice::cli {

using Time = std::chrono::microseconds;

class LoopNetwork {
public:
    virtual ~LoopNetwork() = default;
    // When packet `sequence`, sent at `sent`, reaches the receiver; nullopt if it never does.
    virtual std::optional<Time> arrival(std::uint32_t sequence, Time sent) = 0;
    // The one-way delay of the fastest packet, if the model knows it (the jitter buffer's E-model
    // needs it; in a call it comes from the round trip).
    virtual std::optional<Time> fastestPath() const = 0;
};

class FixedDelayNetwork : public LoopNetwork {
public:
    explicit FixedDelayNetwork(Time delay)
        : m_delay(delay) {}
    std::optional<Time> arrival(std::uint32_t, Time sent) override { return sent + m_delay; }
    std::optional<Time> fastestPath() const override { return m_delay; }

private:
    Time m_delay;
};

// Drops each packet independently with the given probability (seeded, so runs repeat).
class RandomLossNetwork : public LoopNetwork {
public:
    RandomLossNetwork(std::unique_ptr<LoopNetwork> inner, double lossPercent, std::uint64_t seed);
    std::optional<Time> arrival(std::uint32_t sequence, Time sent) override;
    std::optional<Time> fastestPath() const override { return m_inner->fastestPath(); }

private:
    std::unique_ptr<LoopNetwork> m_inner;
    std::bernoulli_distribution m_loss;
    std::mt19937_64 m_rng;
};

// One direction of a multipath call simulated by core/sim over a link trace with a scheduling
// policy: packet i arrives after the delay its first copy took.
class TraceNetwork : public LoopNetwork {
public:
    // Returns nullptr with *error if the trace cannot be read, the policy is unknown, or this
    // build has no simulator.
    static std::unique_ptr<TraceNetwork> create(const QString& tracePath, const QString& policy,
                                                int packetMs, int bitrate, QString* error);
    // The policies a trace can be replayed with: the engine's, and the simulator's oracle.
    static QStringList policies();
    std::optional<Time> arrival(std::uint32_t sequence, Time sent) override;
    std::optional<Time> fastestPath() const override;
    std::size_t packets() const { return m_delays.size(); }

private:
    explicit TraceNetwork(std::vector<std::optional<Time>> delays);
    std::vector<std::optional<Time>> m_delays;
};

} // namespace onionvoice::cli
