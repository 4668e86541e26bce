// Keeps access keys out of the process list. Both programs take onionvoice: links on their
// command line (`onionvoice LINK`, which the desktop opens, `onionvoice-cli call LINK`), and a
// link may carry a contact's client-authorization key (`auth=`). On Linux every local user reads
// any process's arguments (/proc/PID/cmdline, `ps`) for as long as it runs, and the threat model
// names other users of the same machine.
#pragma once

#include <cstring>

namespace onionvoice::app {

// Overwrites every `auth=` value in the process's own argument strings with '*', where the
// process list reads them. Call it only after the arguments were copied (QCoreApplication's
// arguments() reads argv again on Unix).
inline void hideAccessKeysFromProcessList(int argc, char** argv) {
    static constexpr char kKey[] = "auth=";
    for (int i = 1; i < argc; ++i) {
        for (char* at = std::strstr(argv[i], kKey); at; at = std::strstr(at, kKey)) {
            at += sizeof kKey - 1;
            for (; *at && *at != '&' && *at != '#'; ++at)
                *at = '*';
        }
    }
}

} // namespace onionvoice::app
