// Keeps both programs' memory (onionvoice, onionvoice-cli) out of core dumps, set first thing in
// main(). Contacts' access keys, bridge lines and the copy of a key command in Qt's socket buffer
// live in ordinary memory; a crash anywhere (a sound driver's too) wrote them into a core file,
// which systemd-coredump keeps for days. As KeePassXC does: no core file size, and on Linux not
// dumpable at all, which also keeps other processes of the same user from attaching a debugger.
#pragma once

#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <sys/resource.h>
#endif
#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace onionvoice::app {

inline void disableCoreDumps() {
#ifdef Q_OS_UNIX
    const rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
#endif
#ifdef Q_OS_LINUX
    // LeakSanitizer's check at exit makes the process dumpable again for its own ptrace.
    ::prctl(PR_SET_DUMPABLE, 0);
#endif
}

} // namespace onionvoice::app
