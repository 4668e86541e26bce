// A stand-in for tor in tests that need an engine started but no network: it passes the version
// check, then opens no control port and waits until the process that started it (the engine's,
// the test's) ends. The engine keeps starting meanwhile, with its identity and contact book.
#pragma once

#include <QFile>
#include <QTemporaryDir>

// Writes the script into `dir` and returns its path (empty if it could not be written).
inline QString waitingTor(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("waiting-tor"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n"
               "if [ \"$1\" = --version ]; then echo 'Tor version 0.4.9.11.'; exit 0; fi\n"
               "while kill -0 $PPID 2>/dev/null; do sleep 0.2; done\n");
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}
