// JSON text of onionvoice-sim's output (`run --json`, README): numbers with one decimal, `null`
// for an infinite one, and escaped strings. A header of its own so that tst_simcli can check the
// formatting of values no valid trace produces.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace onionvoice::simjson {

inline std::string number(double v) {
    if (!std::isfinite(v))
        return "null"; // a percentile reached by lost frames is infinitely late
    // "%.1f" writes every digit of the integer part: a fixed buffer cut large values short, and
    // the truncated digits read as another number. Ask for the length first.
    const int length = std::snprintf(nullptr, 0, "%.1f", v);
    std::string text(std::size_t(length), '\0');
    std::snprintf(text.data(), text.size() + 1, "%.1f", v);
    return text;
}

inline std::string string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

} // namespace onionvoice::simjson
