// Text colours that carry a meaning (an error, a warning, a call rating), readable on the light
// and the dark colour schemes: fixed dark reds and browns were hard to read on a dark theme.
#pragma once

#include <QColor>
#include <QString>

class QLabel;
class QWidget;

namespace onionvoice::ui {

enum class Tone { Error, Warning, Good, Fair, Muted };

// `tone`'s colour for text on `background`: the dark shade on a light background, a light one on
// a dark background; either has a WCAG contrast of at least 4.5 there.
QColor toneColour(Tone tone, const QColor& background);

// `tone`'s colour for text on `widget`'s window background.
QColor toneColour(Tone tone, const QWidget* widget);

// Shows `label`'s text in `tone`'s colour on its window background (a style sheet, as before).
void setTone(QLabel* label, Tone tone);
// Back to the palette's text colour.
void clearTone(QLabel* label);

// Dark text for the light tints the app paints itself (link rows, the ID card), whatever the
// colour scheme: the scheme's own text colour is near-white in a dark theme.
inline QColor textOnTint() {
    return QColor(0x1b, 0x1b, 0x1b);
}

} // namespace onionvoice::ui
