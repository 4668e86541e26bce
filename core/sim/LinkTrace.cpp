// Reader and writer of `onionvoice-link-trace v1` files. The reader refuses anything malformed
// with the file name and line number.
#include "LinkTrace.h"

#include "multipath/Types.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace onionvoice::sim {
namespace {

constexpr int kMaxSlots = int(multipath::kMaxLinks); // the engine drives no more links

std::string trim(std::string s) {
    const auto notSpace = [](unsigned char c) {
        return !std::isspace(c);
    };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
    s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
    return s;
}

std::optional<double> parseNumber(const std::string& field) {
    double v = 0;
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::string whole(double limit) {
    return std::to_string(static_cast<long long>(limit));
}

std::vector<std::string> splitFields(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ','))
        fields.push_back(trim(field));
    if (!line.empty() && line.back() == ',')
        fields.emplace_back();
    return fields;
}

} // namespace

double LinkLife::delayAt(Direction direction, double tMs) const {
    const auto pick = [direction](const TraceSample& s) {
        return direction == Direction::AtoB ? s.abMs : s.baMs;
    };
    const auto after = std::upper_bound(samples.begin(), samples.end(), tMs,
                                        [](double t, const TraceSample& s) { return t < s.tMs; });
    if (after == samples.begin())
        return pick(samples.front());
    if (after == samples.end())
        return pick(samples.back());
    const TraceSample& a = *(after - 1);
    const TraceSample& b = *after;
    const double f = (tMs - a.tMs) / (b.tMs - a.tMs);
    return pick(a) + f * (pick(b) - pick(a));
}

std::string TraceError::toString() const {
    return file + ":" + std::to_string(line) + ": " + message;
}

std::variant<LinkTrace, TraceError> readLinkTrace(std::istream& in, const std::string& name) {
    LinkTrace trace;
    std::vector<double> lastTime;
    std::vector<bool> live;
    std::string line;
    int lineNo = 0;
    bool sawMagic = false, sawColumns = false;
    auto error = [&](const std::string& message) {
        return TraceError{name, lineNo, message};
    };

    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!sawMagic) {
            if (trim(line) != kTraceMagic)
                return error(std::string("first line must be \"") + kTraceMagic + "\"");
            sawMagic = true;
            continue;
        }
        if (trim(line).empty() || line.front() == '#')
            continue;
        if (!sawColumns) {
            if (trim(line) != kTraceColumns)
                return error(std::string("expected the column header \"") + kTraceColumns + "\"");
            sawColumns = true;
            continue;
        }
        const auto fields = splitFields(line);
        if (fields.size() != 4)
            return error("expected 4 fields (slot,t_ms,ab_ms,ba_ms), found " +
                         std::to_string(fields.size()));
        const auto slotValue = parseNumber(fields[0]);
        if (!slotValue || *slotValue < 0 || *slotValue >= kMaxSlots ||
            *slotValue != std::floor(*slotValue))
            return error("slot must be an integer from 0 to " + std::to_string(kMaxSlots - 1));
        const auto slot = std::size_t(*slotValue);
        const auto t = parseNumber(fields[1]);
        if (!t || *t < 0 || *t > kMaxTraceTimeMs)
            return error("t_ms must be a number from 0 to " + whole(kMaxTraceTimeMs) +
                         " (48 hours)");
        if (slot >= trace.bySlot.size()) {
            trace.bySlot.resize(slot + 1);
            lastTime.resize(slot + 1, -1);
            live.resize(slot + 1, false);
        }
        if (*t < lastTime[slot])
            return error("t_ms goes back in time for slot " + std::to_string(slot));
        lastTime[slot] = *t;
        trace.durationMs = std::max(trace.durationMs, *t);

        if (fields[2] == "down" || fields[3] == "down") {
            if (fields[2] != fields[3])
                return error("a broken link is written down,down");
            if (!live[slot])
                return error("down for slot " + std::to_string(slot) + " which has no live link");
            trace.bySlot[slot].back().downMs = *t;
            live[slot] = false;
            continue;
        }
        const auto ab = parseNumber(fields[2]);
        const auto ba = parseNumber(fields[3]);
        if (!ab || !ba || *ab < 0 || *ba < 0 || *ab > kMaxTraceDelayMs || *ba > kMaxTraceDelayMs)
            return error("ab_ms and ba_ms must be delays from 0 to " + whole(kMaxTraceDelayMs) +
                         " (an hour) or down,down");
        if (!live[slot]) {
            trace.bySlot[slot].emplace_back();
            live[slot] = true;
        }
        auto& samples = trace.bySlot[slot].back().samples;
        if (!samples.empty() && samples.back().tMs == *t)
            return error("two samples at the same t_ms for slot " + std::to_string(slot));
        samples.push_back({*t, *ab, *ba});
    }
    if (!sawMagic)
        return TraceError{name, 1, "empty file; not a link trace"};
    if (!sawColumns)
        return TraceError{name, lineNo, "no column header"};
    if (trace.bySlot.empty())
        return TraceError{name, lineNo, "no samples"};
    for (std::size_t s = 0; s < trace.bySlot.size(); ++s)
        if (trace.bySlot[s].empty())
            return TraceError{name, lineNo, "slot " + std::to_string(s) + " has no samples"};
    return trace;
}

std::variant<LinkTrace, TraceError> readLinkTraceFile(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        return TraceError{path, 0, "cannot open file"};
    return readLinkTrace(in, path);
}

void writeLinkTrace(std::ostream& out, const LinkTrace& trace) {
    out << kTraceMagic << '\n' << kTraceColumns << '\n' << std::fixed << std::setprecision(1);
    for (std::size_t slot = 0; slot < trace.bySlot.size(); ++slot) {
        for (const LinkLife& life : trace.bySlot[slot]) {
            for (const TraceSample& s : life.samples)
                out << slot << ',' << s.tMs << ',' << s.abMs << ',' << s.baMs << '\n';
            if (life.downMs)
                out << slot << ',' << *life.downMs << ",down,down\n";
        }
    }
}

} // namespace onionvoice::sim
