// libFuzzer target: what tor's control port sends. The input is cut into chunks at arbitrary
// points (a length byte before each); parsing never crashes, never grows beyond its limits, and
// every line of every reply goes through the argument and quoted-string decoders.
#include "tor/ControlReplyParser.h"

#include <cstdlib>

using namespace onionvoice::tor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr qsizetype kMaxLine = 4096, kMaxReply = 64 * 1024;
    ControlReplyParser parser(kMaxLine, kMaxReply);
    QList<ControlReplyParser::Item> items;
    std::size_t i = 0;
    while (i < size && parser.error() == ControlReplyParser::Error::None) {
        const std::size_t chunk = std::min<std::size_t>(1 + data[i] % 64, size - i - 1);
        ++i;
        parser.feed(QByteArray(reinterpret_cast<const char*>(data + i), qsizetype(chunk)), items);
        i += chunk;
    }
    qsizetype total = 0;
    for (const auto& item : items) {
        const auto& lines = std::holds_alternative<TorEvent>(item)
                                ? std::get<TorEvent>(item).lines
                                : std::get<ControlReplyParser::Reply>(item).lines;
        for (const TorReplyLine& line : lines) {
            total += line.text.size() + line.data.size();
            if (line.text.size() > kMaxLine)
                std::abort();
            (void)parseTorArguments(line.text);
            qsizetype pos = line.text.indexOf('"');
            if (pos >= 0)
                (void)decodeQuotedString(line.text, &pos);
        }
    }
    if (total > qsizetype(size))
        std::abort(); // nothing is invented
    return 0;
}
