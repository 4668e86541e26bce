// Soak of a long call in the simulator (issue 12): replays each trace (e.g. 90 minutes of a
// profile made by `onionvoice-sim generate --profile P --minutes 90`) through the call simulation
// (both multipath endpoints, the real engine code) while a thread samples the process's resident
// memory, then plays each direction's frame arrivals through the jitter buffer of real calls and
// prints, minute by minute, its playout target, late frames and memory. A summary per trace says
// whether memory stayed flat and the playout target did not drift.
//
//   sim_soak --traces DIR_OR_FILE [--policy adaptive] [--packet-ms 40]
#include "media/JitterBuffer.h"
#include "sim/CallSimulation.h"
#include "sim/LinkTrace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

constexpr double kNoDelay = 1e12;

double residentMegabytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// Samples resident memory every few milliseconds while it lives.
class MemorySampler {
public:
    MemorySampler()
        : thread_([this] {
            while (!stop_) {
                samples_.push_back(residentMegabytes());
                std::this_thread::sleep_for(5ms);
            }
        }) {}
    ~MemorySampler() { finish(); }
    const std::vector<double>& finish() {
        stop_ = true;
        if (thread_.joinable())
            thread_.join();
        return samples_;
    }

private:
    std::atomic<bool> stop_{false};
    std::vector<double> samples_;
    std::thread thread_;
};

// One minute of playout. Only aggregates: the soak must not grow memory of its own.
struct Minute {
    double targetMinMs = 1e9, targetMaxMs = 0, targetSumMs = 0;
    int late = 0, lost = 0, pulls = 0;
    double rssMb = 0;
    double targetMeanMs() const { return pulls ? targetSumMs / pulls : 0; }
};

// Plays one direction's arrivals through a jitter buffer: pushes each frame at its arrival time,
// pulls once per packet period, and collects the target and the outcome per minute.
std::vector<Minute> playout(const std::vector<double>& delays, int packetMs) {
    media::JitterBufferSettings settings;
    settings.packetPeriod = std::chrono::milliseconds(packetMs);
    media::JitterBuffer buffer(settings);
    std::multimap<double, std::uint32_t> arrivals;
    for (std::size_t seq = 0; seq < delays.size(); ++seq)
        if (std::isfinite(delays[seq]))
            arrivals.emplace(double(seq) * packetMs + delays[seq], std::uint32_t(seq));
    // The buffer checks only the Opus table-of-contents byte (one SILK wideband frame of the
    // packet period: configurations 9, 10, 11 for 20, 40, 60 ms); the rest is never decoded here.
    std::vector<std::uint8_t> packet(100, 0x55);
    packet[0] = std::uint8_t((8 + packetMs / 20) << 3);
    std::vector<Minute> minutes(std::size_t(double(delays.size()) * packetMs / 60000.0) + 1);
    auto next = arrivals.begin();
    media::JitterBufferStats before{};
    const double endMs = double(delays.size()) * packetMs + 2000;
    for (double now = 0; now < endMs; now += packetMs) {
        for (; next != arrivals.end() && next->first <= now; ++next)
            buffer.push(next->second, media::JitterBuffer::Time(std::int64_t(next->first * 1000)),
                        packet);
        buffer.pull(media::JitterBuffer::Time(std::int64_t(now * 1000)));
        Minute& m = minutes[std::min(minutes.size() - 1, std::size_t(now / 60000.0))];
        const media::JitterBufferStats s = buffer.stats();
        const double target = double(s.targetDelay.count()) / 1000.0;
        m.targetMinMs = std::min(m.targetMinMs, target);
        m.targetMaxMs = std::max(m.targetMaxMs, target);
        m.targetSumMs += target;
        m.late += int(s.late - before.late);
        m.lost += int(s.lost - before.lost);
        ++m.pulls;
        m.rssMb = residentMegabytes();
        before = s;
    }
    return minutes;
}

// Per minute of sending: the 95th percentile of the frames' delay above the call's fastest frame,
// the network's own jitter that the playout target has to cover (lost frames left out).
std::vector<double> networkJitterP95(const std::vector<double>& delays, int packetMs) {
    const std::size_t perMinute = std::size_t(60000 / packetMs);
    double fastest = kNoDelay;
    for (double d : delays)
        if (std::isfinite(d))
            fastest = std::min(fastest, d);
    std::vector<double> result;
    for (std::size_t from = 0; from < delays.size(); from += perMinute) {
        std::vector<double> minute;
        for (std::size_t i = from; i < std::min(delays.size(), from + perMinute); ++i)
            if (std::isfinite(delays[i]))
                minute.push_back(delays[i] - fastest);
        if (minute.empty()) {
            result.push_back(0);
            continue;
        }
        const auto k = minute.begin() + long(0.95 * double(minute.size() - 1));
        std::nth_element(minute.begin(), k, minute.end());
        result.push_back(*k);
    }
    return result;
}

void soak(const std::string& path, const sim::CallConfig& config) {
    auto read = sim::readLinkTraceFile(path);
    if (auto* error = std::get_if<sim::TraceError>(&read)) {
        std::cerr << error->toString() << "\n";
        std::exit(2);
    }
    const auto& trace = std::get<sim::LinkTrace>(read);
    const double loadedMb = residentMegabytes();
    MemorySampler sampler;
    const sim::CallResult result = sim::simulateCall(trace, config);
    const std::vector<double> rss = sampler.finish();
    const std::string name = std::filesystem::path(path).filename().string();

    const auto ab = playout(result.ab.frameDelayMs, config.packetMs);
    const auto ba = playout(result.ba.frameDelayMs, config.packetMs);
    const auto abNet = networkJitterP95(result.ab.frameDelayMs, config.packetMs);
    const auto baNet = networkJitterP95(result.ba.frameDelayMs, config.packetMs);
    const auto net = [](const std::vector<double>& v, std::size_t i) {
        return i < v.size() ? v[i] : 0.0;
    };
    for (std::size_t i = 0; i < ab.size() && i < ba.size(); ++i)
        std::cout << "{\"trace\":\"" << name << "\",\"minute\":" << i
                  << ",\"ab_target_ms\":" << ab[i].targetMeanMs()
                  << ",\"ab_target_max_ms\":" << ab[i].targetMaxMs
                  << ",\"ab_network_jitter_p95_ms\":" << net(abNet, i)
                  << ",\"ba_target_ms\":" << ba[i].targetMeanMs()
                  << ",\"ba_target_max_ms\":" << ba[i].targetMaxMs
                  << ",\"ba_network_jitter_p95_ms\":" << net(baNet, i)
                  << ",\"ab_late_or_lost\":" << ab[i].late + ab[i].lost
                  << ",\"ba_late_or_lost\":" << ba[i].late + ba[i].lost
                  << ",\"playout_rss_mb\":" << ab[i].rssMb << "}\n";

    // Memory of the simulation: from a tenth of the way in (windows and histories filled) to the
    // end. What remains is the per-frame result the simulation returns (16 bytes per frame).
    const auto at = [&](double fraction) {
        return rss.empty() ? 0.0
                           : rss[std::min(rss.size() - 1, std::size_t(fraction * rss.size()))];
    };
    const double peak = rss.empty() ? 0.0 : *std::max_element(rss.begin(), rss.end());
    // Mean playout target over a range of minutes.
    const auto targets = [](const std::vector<Minute>& minutes, std::size_t from, std::size_t to) {
        double sum = 0;
        int pulls = 0;
        for (std::size_t i = from; i < std::min(to, minutes.size()); ++i) {
            sum += minutes[i].targetSumMs;
            pulls += minutes[i].pulls;
        }
        return pulls ? sum / pulls : 0.0;
    };
    // How far the target sits above what the network needed, early and late: drift would show as
    // a growing (or shrinking) margin while the network stays the same kind of network.
    const auto margin = [&](const std::vector<Minute>& minutes, const std::vector<double>& network,
                            std::size_t from, std::size_t to) {
        double sum = 0;
        int count = 0;
        for (std::size_t i = from; i < std::min({to, minutes.size(), network.size()}); ++i, ++count)
            sum += minutes[i].targetMeanMs() - network[i];
        return count ? sum / count : 0.0;
    };
    const std::size_t n = std::min(ab.size(), ba.size());
    const std::size_t early = std::min<std::size_t>(5, n), tail = n > 10 ? n - 10 : 0;
    std::cout << "{\"summary\":true,\"trace\":\"" << name << "\",\"policy\":\"" << config.policy
              << "\",\"minutes\":" << result.durationMs / 60000.0
              << ",\"frames_per_direction\":" << result.ab.frameDelayMs.size()
              << ",\"rss_after_load_mb\":" << loadedMb << ",\"rss_sim_at_10pct_mb\":" << at(0.1)
              << ",\"rss_sim_end_mb\":" << at(1.0) << ",\"rss_sim_peak_mb\":" << peak
              << ",\"rss_sim_growth_after_10pct_mb\":" << at(1.0) - at(0.1)
              << ",\"rss_samples\":" << rss.size()
              << ",\"playout_rss_first_minute_mb\":" << (ab.empty() ? 0 : ab.front().rssMb)
              << ",\"playout_rss_last_minute_mb\":" << (ab.empty() ? 0 : ab.back().rssMb)
              << ",\"ab_target_minutes_5_15_ms\":" << targets(ab, early, early + 10)
              << ",\"ab_target_last_10_minutes_ms\":" << targets(ab, tail, n)
              << ",\"ba_target_minutes_5_15_ms\":" << targets(ba, early, early + 10)
              << ",\"ba_target_last_10_minutes_ms\":" << targets(ba, tail, n)
              << ",\"ab_margin_minutes_5_15_ms\":" << margin(ab, abNet, early, early + 10)
              << ",\"ab_margin_last_10_minutes_ms\":" << margin(ab, abNet, tail, n)
              << ",\"ba_margin_minutes_5_15_ms\":" << margin(ba, baNet, early, early + 10)
              << ",\"ba_margin_last_10_minutes_ms\":" << margin(ba, baNet, tail, n) << "}\n";
}

} // namespace

int main(int argc, char** argv) {
    std::string traces;
    sim::CallConfig config;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--traces")
            traces = value;
        else if (flag == "--policy")
            config.policy = value;
        else if (flag == "--packet-ms" && (value == "20" || value == "40" || value == "60"))
            config.packetMs = std::stoi(value);
        else {
            std::cerr << "sim_soak: unknown option " << flag << "\n";
            return 2;
        }
    }
    if (traces.empty()) {
        std::cerr << "usage: sim_soak --traces DIR_OR_FILE [--policy NAME] [--packet-ms 40]\n";
        return 2;
    }
    std::vector<std::string> files;
    if (std::filesystem::is_directory(traces)) {
        for (const auto& entry : std::filesystem::directory_iterator(traces))
            if (entry.path().extension() == ".csv")
                files.push_back(entry.path().string());
        std::sort(files.begin(), files.end());
    } else {
        files.push_back(traces);
    }
    for (const auto& file : files)
        soak(file, config);
    return 0;
}
