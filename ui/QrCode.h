// QR codes of contact links: drawn with libqrencode, read back from an image file with zbar.
#pragma once

#include <QImage>
#include <QString>
#include <optional>

namespace onionvoice::ui {

// A black-on-white QR code of `text` (error correction M), `moduleSize` pixels per module, with
// the 4-module quiet zone the standard asks for. A null image if the text does not fit.
QImage encodeQrCode(const QString& text, int moduleSize);

struct QrDecode {
    std::optional<QString> text; // the first QR code found
    QString error;               // for a person, when there is none
};

QrDecode decodeQrCode(const QImage& image);

} // namespace onionvoice::ui
