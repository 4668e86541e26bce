// The file-creation mask both programs (onionvoice, onionvoice-cli) set first thing in main():
// owner only.
#pragma once

#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

namespace onionvoice::app {

// Everything the program creates is private from its first moment. QSaveFile creates its
// temporary file with 0666 & ~umask and narrows it to 0600 only afterwards; with the usual umask
// 022, in a data directory that is not private (`--data-dir` naming an existing 0755 directory),
// another local user could open the temporary identity file in that moment and read the key once
// it is written. The same mask covers what is written without any chmod (settings.ini, lock
// files, recordings and reports) and the child processes (tor).
inline void restrictFileCreationMask() {
#ifdef Q_OS_UNIX
    ::umask(S_IRWXG | S_IRWXO);
#endif
}

} // namespace onionvoice::app
