// Network models of the audio-loop tool (see LoopNetwork.h).
#include "LoopNetwork.h"

#include "multipath/SchedulingPolicy.h"
#ifdef ONIONVOICE_HAVE_SIM
#include "sim/CallSimulation.h"
#endif

#include <cmath>
#include <exception>
#include <variant>

namespace onionvoice::cli {

RandomLossNetwork::RandomLossNetwork(std::unique_ptr<LoopNetwork> inner, double lossPercent,
                                     std::uint64_t seed)
    : m_inner(std::move(inner))
    , m_loss(std::clamp(lossPercent, 0.0, 100.0) / 100.0)
    , m_rng(seed) {}

std::optional<Time> RandomLossNetwork::arrival(std::uint32_t sequence, Time sent) {
    if (m_loss(m_rng))
        return std::nullopt;
    return m_inner->arrival(sequence, sent);
}

TraceNetwork::TraceNetwork(std::vector<std::optional<Time>> delays)
    : m_delays(std::move(delays)) {}

std::optional<Time> TraceNetwork::arrival(std::uint32_t sequence, Time sent) {
    if (sequence >= m_delays.size() || !m_delays[sequence])
        return std::nullopt;
    return sent + *m_delays[sequence];
}

std::optional<Time> TraceNetwork::fastestPath() const {
    std::optional<Time> fastest;
    for (const auto& d : m_delays)
        if (d && (!fastest || *d < *fastest))
            fastest = d;
    return fastest;
}

QStringList TraceNetwork::policies() {
    QStringList names;
    for (const auto name : multipath::policyNames())
        names.append(QString::fromLatin1(name.data(), qsizetype(name.size())));
    names.append(QStringLiteral("oracle"));
    return names;
}

std::unique_ptr<TraceNetwork> TraceNetwork::create(const QString& tracePath, const QString& policy,
                                                   int packetMs, int bitrate, QString* error) {
#ifdef ONIONVOICE_HAVE_SIM
    auto trace = sim::readLinkTraceFile(tracePath.toStdString());
    if (const auto* failure = std::get_if<sim::TraceError>(&trace)) {
        *error = QString::fromStdString(failure->toString());
        return nullptr;
    }
    if (!policies().contains(policy)) {
        *error = QStringLiteral("unknown policy %1").arg(policy);
        return nullptr;
    }
    const bool oracle = policy == QLatin1String("oracle");
    sim::CallConfig config;
    config.policy = policy.toStdString();
    config.packetMs = packetMs;
    config.bitrate = bitrate;
    sim::CallResult result;
    try {
        const auto& linkTrace = std::get<sim::LinkTrace>(trace);
        result = oracle ? sim::oracleCall(linkTrace, config) : sim::simulateCall(linkTrace, config);
    } catch (const std::exception& e) {
        *error = QStringLiteral("simulation with policy %1 failed: %2")
                     .arg(policy, QString::fromUtf8(e.what()));
        return nullptr;
    }
    std::vector<std::optional<Time>> delays;
    delays.reserve(result.ab.frameDelayMs.size());
    for (double ms : result.ab.frameDelayMs) {
        if (std::isfinite(ms))
            delays.emplace_back(Time(static_cast<long long>(std::llround(ms * 1000.0))));
        else
            delays.emplace_back(std::nullopt);
    }
    return std::unique_ptr<TraceNetwork>(new TraceNetwork(std::move(delays)));
#else
    Q_UNUSED(tracePath);
    Q_UNUSED(policy);
    Q_UNUSED(packetMs);
    Q_UNUSED(bitrate);
    *error = QStringLiteral("this build has no network simulator (core/sim)");
    return nullptr;
#endif
}

} // namespace onionvoice::cli
