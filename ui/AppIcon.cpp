// The application's icon, from the PNGs under :/icons (ui/icons, made by
// packaging/icons/make-platform-icons.py).
#include "AppIcon.h"

namespace onionvoice::ui {

QIcon appIcon() {
    QIcon icon;
    for (int size : {16, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/onionvoice-%1.png").arg(size), QSize(size, size));
    return icon;
}

} // namespace onionvoice::ui
