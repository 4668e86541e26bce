// `onionvoice-cli id`: creates the identity on first use and prints its contact link, optionally
// as a QR code drawn with Unicode half blocks (libqrencode).
#include "CallReport.h"
#include "Commands.h"
#include "CommonOptions.h"
#include "contacts/ContactName.h"
#include "contacts/ContactUri.h"
#include "tor/OnionIdentity.h"

#include <QCommandLineParser>
#include <memory>
#include <qrencode.h>

namespace onionvoice::cli {
namespace {

struct QrCodeFree {
    void operator()(QRcode* code) const { QRcode_free(code); }
};

// Two modules per character (upper and lower half block), with the quiet zone the standard asks.
QString renderQr(const QByteArray& text) {
    const std::unique_ptr<QRcode, QrCodeFree> code(
        QRcode_encodeString8bit(text.constData(), 0, QR_ECLEVEL_M));
    if (!code)
        return {};
    constexpr int kQuiet = 2;
    const int width = code->width;
    const auto dark = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= width || y >= width)
            return false;
        return (code->data[y * width + x] & 1) != 0;
    };
    QString out;
    for (int y = -kQuiet; y < width + kQuiet; y += 2) {
        for (int x = -kQuiet; x < width + kQuiet; ++x) {
            // Light modules are drawn (dark-on-light terminals invert poorly otherwise).
            const bool top = !dark(x, y), bottom = !dark(x, y + 1);
            out += top && bottom ? QChar(0x2588)
                   : top         ? QChar(0x2580)
                   : bottom      ? QChar(0x2584)
                                 : QChar(' ');
        }
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace

int runId(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Create the identity on first use, or show it: prints the onionvoice: contact link.\n\n" +
        exitCodeHelp());
    parser.addHelpOption();
    const QCommandLineOption dataDir =
        CommonOptions::dataDirectoryOption("Where the identity lives.");
    const QCommandLineOption name("name", "Name to put in the contact link.", "NAME");
    const QCommandLineOption qr("qr", "Also print the link as a QR code.");
    const QCommandLineOption json = CommonOptions::jsonOption();
    parser.addOptions({dataDir, name, qr, json});
    if (const auto exit = parseOrExit(parser, arguments))
        return *exit;
    if (!parser.positionalArguments().isEmpty())
        return fail(ExitCode::Usage,
                    "id takes no arguments: " + parser.positionalArguments().join(' '));
    // A name the link could not carry would print a link that every reader refuses.
    if (const auto bad = contacts::checkDisplayName(parser.value(name)))
        return fail(ExitCode::Usage, "--name: " + *bad);
    const QString directory = CommonOptions::dataDirectory(parser, dataDir);
    QString error;
    const auto stored = tor::loadOrCreateIdentity(directory, &error);
    if (!stored)
        return fail(ExitCode::FileError, error);
    const QString uri =
        contacts::ContactUri{stored->identity.address(), parser.value(name), {}}.toString();
    const bool created = stored->origin == tor::IdentityOrigin::Created;
    if (parser.isSet(json)) {
        printJsonLine({{"address", stored->identity.address()},
                       {"uri", uri},
                       {"created", created},
                       {"data_dir", directory}});
    } else {
        if (created)
            printLine("created a new identity in " + directory);
        printLine(uri);
    }
    if (parser.isSet(qr))
        printLine(renderQr(uri.toUtf8()));
    return 0;
}

} // namespace onionvoice::cli
