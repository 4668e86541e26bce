// Why the app did not start, told where the user looks: on stderr for a start from a terminal,
// and in a message box, since a start from the desktop (the .desktop entry has Terminal=false)
// has no terminal and otherwise did nothing visible at all.
#pragma once

#include <QString>
#include <cstdio>

namespace onionvoice::gui {

// Whether anyone sees this platform's windows: not offscreen or minimal, where a message box
// would wait for a click forever.
bool windowsAreSeen();

// Writes "onionvoice: <reason>" to `err`; with `showMessageBox`, also shows the reason in a
// critical message box and returns when it is closed.
void reportStartFailure(const QString& reason, bool showMessageBox, std::FILE* err = stderr);

} // namespace onionvoice::gui
