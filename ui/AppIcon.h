// The application's icon (packaging/icons/onionvoice.svg), for the windows, the taskbar and the
// tray. PNG renderings are embedded: not every build has Qt's SVG plugins.
#pragma once

#include <QIcon>

namespace onionvoice::ui {

QIcon appIcon();

} // namespace onionvoice::ui
