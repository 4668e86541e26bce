// onionvoice-sim: generates Tor-like link traces and replays calls over them with each scheduling
// policy. The sub-commands and their options are a contract read by other tools (README).
//   onionvoice-sim generate --out DIR --calls N --minutes M --seed S [--links 12]
//                           [--profile calm|default|congested|hostile|measured]
//   onionvoice-sim run --traces DIR_OR_FILE --policy NAME [--packet-ms 40] [--links 12]
//                      [--bitrate 32000] [--reduced-copies yes] --json
//   onionvoice-sim compare --traces DIR_OR_FILE [--packet-ms 40] [--links 12] [--bitrate 32000]
//                          [--reduced-copies yes]
//   onionvoice-sim demo    (generates 8 five-minute calls in a temporary directory and compares)
// --reduced-copies no: the sender makes no reduced copies of frames, as in real calls.
#include "SimJson.h"
#include "multipath/Record.h"
#include "multipath/SchedulingPolicy.h"
#include "sim/CallSimulation.h"
#include "sim/TraceGenerator.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace onionvoice;

namespace {

constexpr int kUsageError = 2;
// 24 hours: longer than any call measured, and the trace reader's limit is above it.
constexpr double kMaxMinutes = 1440;

const char* kUsage =
    "usage:\n"
    "  onionvoice-sim generate --out DIR --calls N --minutes M --seed S [--links 12]"
    " [--profile default]\n"
    "  onionvoice-sim run --traces DIR_OR_FILE --policy NAME [--packet-ms 40] [--links 12]"
    " [--bitrate 32000] [--reduced-copies yes] --json\n"
    "  onionvoice-sim compare --traces DIR_OR_FILE [--packet-ms 40] [--links 12]"
    " [--bitrate 32000] [--reduced-copies yes]\n"
    "  onionvoice-sim demo\n"
    "policies: simple torfone alternate double-send adaptive oracle\n"
    "trace profiles: calm default congested hostile measured\n";

struct UsageError {
    std::string message;
};

class Options {
public:
    Options(int argc, char** argv, int first, const std::vector<std::string>& flags) {
        for (int i = first; i < argc; ++i) {
            std::string key = argv[i];
            if (std::find(flags.begin(), flags.end(), key) != flags.end()) {
                values_[key] = "";
                continue;
            }
            if (key.rfind("--", 0) != 0 || i + 1 >= argc)
                throw UsageError{"unexpected argument " + key};
            values_[key] = argv[++i];
        }
    }
    bool has(const std::string& key) const { return values_.count(key) > 0; }
    std::string text(const std::string& key) const {
        if (!has(key))
            throw UsageError{"missing " + key};
        return values_.at(key);
    }
    // At least `minimum`: counts are positive, a seed may be 0 (as audio-loop's --seed).
    long number(const std::string& key, std::optional<long> fallback = std::nullopt,
                long minimum = 1) const {
        if (!has(key)) {
            if (fallback)
                return *fallback;
            throw UsageError{"missing " + key};
        }
        const std::string& v = values_.at(key);
        char* end = nullptr;
        errno = 0;
        const long n = std::strtol(v.c_str(), &end, 10);
        // Every count the simulator takes fits an int; larger ones are typing mistakes.
        if (v.empty() || *end != '\0' || n < minimum || errno == ERANGE || n > 1'000'000'000)
            throw UsageError{key +
                             (minimum > 0 ? " needs a positive whole number, not \""
                                          : " needs a non-negative whole number, not \"") +
                             v + "\""};
        return n;
    }
    // A decimal number (digits, optionally a point and more digits: no hexadecimal, exponent,
    // inf or nan, all of which strtod took) in (0, max]. Before, "inf" and "1e30" minutes were
    // taken and the generator allocated until it ran out of memory.
    double decimal(const std::string& key, double max) const {
        const std::string v = text(key);
        double d = 0;
        const char* end = v.data() + v.size();
        const auto [ptr, ec] = std::from_chars(v.data(), end, d, std::chars_format::fixed);
        const bool plain = !v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) {
            return std::isdigit(c) || c == '.';
        });
        if (!plain || ec != std::errc() || ptr != end || !(d > 0) || d > max) {
            std::ostringstream range;
            range << max;
            throw UsageError{key + " needs a decimal number above 0 and at most " + range.str() +
                             ", not \"" + v + "\""};
        }
        return d;
    }
    void allowOnly(const std::vector<std::string>& known) const {
        for (const auto& [k, v] : values_)
            if (std::find(known.begin(), known.end(), k) == known.end())
                throw UsageError{"unknown option " + k};
    }

private:
    std::map<std::string, std::string> values_;
};

std::vector<fs::path> traceFiles(const std::string& where) {
    std::vector<fs::path> files;
    if (fs::is_directory(where)) {
        for (const auto& entry : fs::directory_iterator(where))
            if (entry.is_regular_file() && entry.path().extension() == ".csv")
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
    } else if (fs::is_regular_file(where)) {
        files.push_back(where);
    }
    if (files.empty())
        throw UsageError{"no trace files (*.csv) at " + where};
    return files;
}

std::string jsonNumber(double v) {
    return simjson::number(v);
}

std::string jsonString(const std::string& s) {
    return simjson::string(s);
}

std::string statsFields(const sim::DirectionStats& s) {
    std::ostringstream o;
    o << "\"frames\": " << s.frames << ", \"p50_ms\": " << jsonNumber(s.p50Ms)
      << ", \"p95_ms\": " << jsonNumber(s.p95Ms) << ", \"p99_ms\": " << jsonNumber(s.p99Ms)
      << ", \"late_pct\": " << jsonNumber(s.latePct) << ", \"lost_pct\": " << jsonNumber(s.lostPct)
      << ", \"dropped\": " << (s.dropped ? "true" : "false")
      << ", \"acceptable\": " << (s.acceptable ? "true" : "false")
      << ", \"cells_per_s\": " << jsonNumber(s.cellsPerSecond);
    return o.str();
}

struct Summary {
    std::string policy;
    int calls = 0;
    int acceptableCalls = 0;
    std::vector<double> p99s;
    double cellsSum = 0;

    double acceptablePct() const { return calls ? 100.0 * acceptableCalls / calls : 0; }
    double medianP99() const {
        if (p99s.empty())
            return 0;
        auto v = p99s;
        std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
        return v[v.size() / 2];
    }
    double cellsPerSecond() const { return calls ? cellsSum / calls : 0; }
};

struct CallOutcome {
    sim::DirectionStats ab, ba;
};

// Replays every trace with one policy; `perCall` sees each call's result as it is made.
template <typename PerCall>
Summary runPolicy(const std::vector<fs::path>& files, const sim::CallConfig& config,
                  PerCall perCall) {
    Summary summary;
    summary.policy = config.policy;
    for (const fs::path& file : files) {
        auto parsed = sim::readLinkTraceFile(file.string());
        if (auto* error = std::get_if<sim::TraceError>(&parsed))
            throw *error;
        const auto& trace = std::get<sim::LinkTrace>(parsed);
        const sim::CallResult result = config.policy == "oracle" ? sim::oracleCall(trace, config)
                                                                 : sim::simulateCall(trace, config);
        CallOutcome outcome{sim::directionStats(result.ab, config.packetMs, result.durationMs),
                            sim::directionStats(result.ba, config.packetMs, result.durationMs)};
        ++summary.calls;
        // A call is acceptable when both of its directions are; p99 and cells are per direction.
        summary.acceptableCalls += outcome.ab.acceptable && outcome.ba.acceptable ? 1 : 0;
        summary.p99s.push_back(outcome.ab.p99Ms);
        summary.p99s.push_back(outcome.ba.p99Ms);
        summary.cellsSum += (outcome.ab.cellsPerSecond + outcome.ba.cellsPerSecond) / 2;
        perCall(file, outcome);
    }
    return summary;
}

sim::CallConfig callConfig(const Options& o, std::string policy) {
    sim::CallConfig c;
    c.policy = std::move(policy);
    c.packetMs = int(o.number("--packet-ms", 40));
    c.links = int(o.number("--links", 12));
    c.bitrate = int(o.number("--bitrate", 32000));
    const std::string reduced = o.has("--reduced-copies") ? o.text("--reduced-copies") : "yes";
    if (reduced != "yes" && reduced != "no")
        throw UsageError{"--reduced-copies is yes or no, not \"" + reduced + "\""};
    c.reducedCopies = reduced == "yes" ? sim::ReducedCopies::Made : sim::ReducedCopies::None;
    if (c.packetMs % 20 != 0 || c.packetMs > 120)
        throw UsageError{"--packet-ms must be a multiple of 20 ms up to 120"};
    if (c.links > int(multipath::kMaxLinks))
        throw UsageError{"--links is at most " + std::to_string(multipath::kMaxLinks)};
    const long audioBytes = long(c.bitrate) * c.packetMs / 8000;
    if (audioBytes + long(multipath::kFrameEntryOverhead) > long(multipath::frameSpace(0)))
        throw UsageError{"--bitrate × --packet-ms gives " + std::to_string(audioBytes) +
                         " bytes of audio per packet, more than one record carries"};
    return c;
}

bool knownPolicy(const std::string& name) {
    const auto names = multipath::policyNames();
    return name == "oracle" || std::find(names.begin(), names.end(), name) != names.end();
}

int generate(const Options& o) {
    o.allowOnly({"--out", "--calls", "--minutes", "--seed", "--links", "--profile"});
    const fs::path out = o.text("--out");
    const long calls = o.number("--calls");
    const double minutes = o.decimal("--minutes", kMaxMinutes);
    const long seed = o.number("--seed", std::nullopt, 0);
    const long links = o.number("--links", 12);
    if (links > long(multipath::kMaxLinks))
        throw UsageError{"--links is at most " + std::to_string(multipath::kMaxLinks)};
    const std::string profileName = o.has("--profile") ? o.text("--profile") : "default";
    const auto profile = sim::traceProfileFromName(profileName);
    if (!profile)
        throw UsageError{"unknown trace profile " + profileName};
    fs::create_directories(out);
    for (long i = 0; i < calls; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "call-%03ld.csv", i);
        const auto trace = sim::generateTrace(
            {int(links), minutes, std::uint64_t(seed) * 100003u + std::uint64_t(i), *profile});
        const fs::path path = out / name;
        const fs::path partial = out / (std::string(name) + ".part");
        {
            std::ofstream file(partial);
            sim::writeLinkTrace(file, trace);
            if (!file)
                throw std::runtime_error("cannot write " + partial.string());
        }
        fs::rename(partial, path);
    }
    std::cout << "wrote " << calls << " traces of " << minutes << " minutes to " << out.string()
              << " (profile " << profileName << ")\n";
    return 0;
}

int run(const Options& o) {
    o.allowOnly({"--traces", "--policy", "--packet-ms", "--links", "--bitrate", "--reduced-copies",
                 "--json"});
    const std::string policy = o.text("--policy");
    if (!knownPolicy(policy))
        throw UsageError{"unknown policy " + policy};
    const auto config = callConfig(o, policy);
    const bool json = o.has("--json");
    const Summary s = runPolicy(
        traceFiles(o.text("--traces")), config, [&](const fs::path& file, const CallOutcome& c) {
            if (json)
                std::cout << "{\"trace\": " << jsonString(file.filename().string())
                          << ", \"policy\": " << jsonString(policy)
                          << ", \"packet_ms\": " << config.packetMs << ", " << statsFields(c.ab)
                          << ", \"ba\": {" << statsFields(c.ba) << "}}\n";
            else
                std::cout << file.filename().string() << ": p99 " << jsonNumber(c.ab.p99Ms) << " / "
                          << jsonNumber(c.ba.p99Ms) << " ms, late " << jsonNumber(c.ab.latePct)
                          << " / " << jsonNumber(c.ba.latePct) << " %\n";
            std::cout.flush();
        });
    if (json)
        std::cout << "{\"summary\": true, \"policy\": " << jsonString(policy)
                  << ", \"calls\": " << s.calls
                  << ", \"acceptable_pct\": " << jsonNumber(s.acceptablePct())
                  << ", \"median_p99_ms\": " << jsonNumber(s.medianP99())
                  << ", \"cells_per_s\": " << jsonNumber(s.cellsPerSecond()) << "}\n";
    else
        std::cout << policy << ": " << s.calls << " calls, " << jsonNumber(s.acceptablePct())
                  << " % acceptable, median p99 " << jsonNumber(s.medianP99()) << " ms, "
                  << jsonNumber(s.cellsPerSecond()) << " cells/s\n";
    return 0;
}

int compare(const Options& o) {
    o.allowOnly({"--traces", "--packet-ms", "--links", "--bitrate", "--reduced-copies"});
    const auto files = traceFiles(o.text("--traces"));
    std::printf(
        "| policy | calls | acceptable calls %% | median p99 (ms) | cells/s per direction |\n"
        "|---|---|---|---|---|\n");
    std::vector<std::string> policies;
    for (auto name : multipath::policyNames())
        policies.emplace_back(name);
    policies.emplace_back("oracle");
    for (const auto& policy : policies) {
        const Summary s = runPolicy(files, callConfig(o, policy), [](auto&&...) {});
        std::printf("| %s | %d | %.1f | %s | %.1f |\n", policy.c_str(), s.calls, s.acceptablePct(),
                    jsonNumber(s.medianP99()).c_str(), s.cellsPerSecond());
        std::fflush(stdout);
    }
    return 0;
}

int demo() {
    const fs::path dir = fs::temp_directory_path() / "onionvoice-sim-demo";
    const char* genArgs[] = {"",  "",          "--out", nullptr,  "--calls",
                             "8", "--minutes", "5",     "--seed", "7"};
    const std::string dirText = dir.string();
    genArgs[3] = dirText.c_str();
    generate(Options(10, const_cast<char**>(genArgs), 2, {}));
    const char* cmpArgs[] = {"", "", "--traces", dirText.c_str()};
    return compare(Options(4, const_cast<char**>(cmpArgs), 2, {}));
}

} // namespace

int main(int argc, char** argv) {
    try {
        const std::string command = argc > 1 ? argv[1] : "";
        if (command == "generate")
            return generate(Options(argc, argv, 2, {}));
        if (command == "run")
            return run(Options(argc, argv, 2, {"--json"}));
        if (command == "compare")
            return compare(Options(argc, argv, 2, {}));
        if (command == "demo")
            return demo();
        throw UsageError{command.empty() ? "missing command" : "unknown command " + command};
    } catch (const UsageError& e) {
        std::cerr << "onionvoice-sim: " << e.message << "\n" << kUsage;
        return kUsageError;
    } catch (const sim::TraceError& e) {
        std::cerr << "onionvoice-sim: " << e.toString() << "\n";
        return kUsageError;
    } catch (const std::exception& e) {
        std::cerr << "onionvoice-sim: " << e.what() << "\n";
        return 1;
    }
}
