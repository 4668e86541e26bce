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

// LeakSanitizer inspects the process through ptrace at exit, which a process that is not dumpable
// refuses: a sanitizer build keeps only the zero core size.
#if defined(__SANITIZE_ADDRESS__)
#define ONIONVOICE_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONIONVOICE_ADDRESS_SANITIZER 1
#endif
#endif

namespace onionvoice::app {

inline void disableCoreDumps() {
#ifdef Q_OS_UNIX
    const rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
#endif
#if defined(Q_OS_LINUX) && !defined(ONIONVOICE_ADDRESS_SANITIZER)
    ::prctl(PR_SET_DUMPABLE, 0);
#endif
}

} // namespace onionvoice::app
