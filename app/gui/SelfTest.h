// `onionvoice --self-test`: checks what the program needs on this machine (the Qt platform
// plugin, a tor it can run, the audio devices, the main window) and prints one JSON object.
#pragma once

#include <QJsonObject>

namespace onionvoice::gui {

// Runs every check; "ok" in the result is true when the program can work here.
QJsonObject runSelfTest();

} // namespace onionvoice::gui
