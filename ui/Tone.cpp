// Text colours with a meaning.
#include "Tone.h"

#include <QLabel>

namespace onionvoice::ui {

QColor toneColour(Tone tone, const QColor& background) {
    // The dark shades are the app's old colours; the light ones keep contrast ≥ 4.5 on the
    // greys of dark themes (#2a2a2a to #404040).
    const bool dark = background.lightnessF() < 0.5;
    switch (tone) {
    case Tone::Error:
        return dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb0, 0x00, 0x20);
    case Tone::Warning:
        return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0x8a, 0x4b, 0x00);
    case Tone::Good:
        return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x1b, 0x7a, 0x1b);
    case Tone::Fair:
        return dark ? QColor(0xff, 0xd5, 0x4f) : QColor(0x8a, 0x6d, 0x00);
    case Tone::Muted:
        return dark ? QColor(0xbd, 0xbd, 0xbd) : QColor(0x55, 0x55, 0x55);
    }
    return {};
}

QColor toneColour(Tone tone, const QWidget* widget) {
    return toneColour(tone, widget->palette().color(QPalette::Window));
}

void setTone(QLabel* label, Tone tone) {
    label->setStyleSheet(QStringLiteral("color: %1;").arg(toneColour(tone, label).name()));
}

void clearTone(QLabel* label) {
    label->setStyleSheet(QString());
}

} // namespace onionvoice::ui
