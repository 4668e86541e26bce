// Keeps access keys out of the process list. Both programs take onionvoice: links on their
// command line (`onionvoice LINK`, which the desktop opens, `onionvoice-cli call LINK`), and a
// link may carry a contact's client-authorization key (`auth=`). On Linux every local user reads
// any process's arguments (/proc/PID/cmdline, `ps`) for as long as it runs, and the threat model
// names other users of the same machine.
#pragma once

#include <cstddef>

namespace onionvoice::app {

namespace detail {

inline int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Whether [key, end) names the access key as the link parser reads it: QUrlQuery decodes the
// percent escapes of unreserved characters, so "a%75th" is "auth" to it.
inline bool namesAccessKey(const char* key, const char* end) {
    static constexpr char kAuth[] = "auth";
    std::size_t matched = 0;
    for (const char* at = key; at < end; ++at, ++matched) {
        char c = *at;
        if (c == '%' && end - at >= 3 && hexValue(at[1]) >= 0 && hexValue(at[2]) >= 0) {
            c = char(hexValue(at[1]) * 16 + hexValue(at[2]));
            at += 2;
        }
        if (matched >= sizeof kAuth - 1 || c != kAuth[matched])
            return false;
    }
    return matched == sizeof kAuth - 1;
}

} // namespace detail

// Overwrites the value of every query item that names the access key (`auth=`, escaped or not)
// in the process's own argument strings with '*', where the process list reads them. Call it only
// after the arguments were copied (QCoreApplication's arguments() reads argv again on Unix).
inline void hideAccessKeysFromProcessList(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        for (char* at = argv[i]; *at; ++at) {
            if (*at != '?' && *at != '&')
                continue;
            char* const key = at + 1;
            char* equals = key;
            while (*equals && *equals != '=' && *equals != '&' && *equals != '#')
                ++equals;
            if (*equals != '=' || !detail::namesAccessKey(key, equals))
                continue;
            for (at = equals + 1; *at && *at != '&' && *at != '#'; ++at)
                *at = '*';
            if (!*at)
                break;
            --at; // the '&' or '#' that ended the value is looked at next
        }
    }
}

} // namespace onionvoice::app
