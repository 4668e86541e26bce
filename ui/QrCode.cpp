// QR encoding (libqrencode) and decoding (zbar), each C handle owned by a unique_ptr.
#include "QrCode.h"

#include <QCoreApplication>
#include <memory>
#include <qrencode.h>
#include <vector>
#include <zbar.h>

// zbar.h puts its C API in namespace zbar when compiled as C++.
using namespace zbar;

namespace onionvoice::ui {
namespace {

constexpr int kQuietZone = 4;

struct QrFree {
    void operator()(QRcode* code) const { QRcode_free(code); }
};
struct ScannerFree {
    void operator()(zbar_image_scanner_t* s) const { zbar_image_scanner_destroy(s); }
};
struct ImageFree {
    void operator()(zbar_image_t* i) const { zbar_image_destroy(i); }
};

} // namespace

QImage encodeQrCode(const QString& text, int moduleSize) {
    const QByteArray utf8 = text.toUtf8();
    const std::unique_ptr<QRcode, QrFree> code(
        QRcode_encodeString8bit(utf8.constData(), 0, QR_ECLEVEL_M));
    if (!code)
        return {};
    const int side = (code->width + 2 * kQuietZone) * moduleSize;
    QImage image(side, side, QImage::Format_Grayscale8);
    image.fill(Qt::white);
    for (int y = 0; y < code->width; ++y) {
        for (int x = 0; x < code->width; ++x) {
            if (!(code->data[y * code->width + x] & 1))
                continue;
            for (int dy = 0; dy < moduleSize; ++dy) {
                uchar* line = image.scanLine((y + kQuietZone) * moduleSize + dy);
                std::fill_n(line + (x + kQuietZone) * moduleSize, moduleSize, uchar(0));
            }
        }
    }
    return image;
}

QrDecode decodeQrCode(const QImage& input) {
    if (input.isNull())
        return {std::nullopt, QCoreApplication::translate(
                                  "QrCode", "The file is not an image OnionVoice can read.")};
    const QImage gray = input.convertToFormat(QImage::Format_Grayscale8);
    const int width = gray.width(), height = gray.height();
    // zbar wants the Y800 rows without QImage's scan-line padding.
    std::vector<uchar> pixels(std::size_t(width) * std::size_t(height));
    for (int y = 0; y < height; ++y)
        std::copy_n(gray.constScanLine(y), width, pixels.begin() + std::ptrdiff_t(y) * width);

    const std::unique_ptr<zbar_image_scanner_t, ScannerFree> scanner(zbar_image_scanner_create());
    zbar_image_scanner_set_config(scanner.get(), ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    zbar_image_scanner_set_config(scanner.get(), ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    const std::unique_ptr<zbar_image_t, ImageFree> image(zbar_image_create());
    zbar_image_set_format(image.get(), zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(image.get(), unsigned(width), unsigned(height));
    zbar_image_set_data(image.get(), pixels.data(), pixels.size(), nullptr);
    if (zbar_scan_image(scanner.get(), image.get()) <= 0)
        return {std::nullopt,
                QCoreApplication::translate("QrCode", "No QR code was found in the image.")};
    for (const zbar_symbol_t* s = zbar_image_first_symbol(image.get()); s;
         s = zbar_symbol_next(s)) {
        if (zbar_symbol_get_type(s) == ZBAR_QRCODE)
            return {QString::fromUtf8(zbar_symbol_get_data(s), int(zbar_symbol_get_data_length(s))),
                    {}};
    }
    return {std::nullopt,
            QCoreApplication::translate("QrCode", "No QR code was found in the image.")};
}

} // namespace onionvoice::ui
