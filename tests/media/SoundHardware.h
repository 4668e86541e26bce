// Whether this machine has sound hardware of its own (ALSA PCM device nodes). Tests that run
// with no sound server to reach expect no sound devices: they may skip where hardware explains
// devices, never merely because the code under test reported some, which is the fault they catch.
#pragma once

#include <QDir>
#include <QStringList>

namespace onionvoice::test {

inline bool machineHasSoundHardware() {
    return !QDir(QStringLiteral("/dev/snd"))
                .entryList({QStringLiteral("pcm*")}, QDir::System)
                .isEmpty();
}

} // namespace onionvoice::test
