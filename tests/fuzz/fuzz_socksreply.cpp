// libFuzzer target: what tor's SOCKS port answers to our handshake, cut into chunks at arbitrary
// points. Never a crash; the handshake ends open only after a success reply (or unsure only after
// one of tor's extended codes), consumes no more than it was given, and leaves the rest of the
// stream in the buffer.
#include "net/SocksHandshake.h"

#include <cstdlib>

using namespace onionvoice::net;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    SocksHandshake socks(
        QByteArrayLiteral("abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwx.onion"), 7700,
        QByteArrayLiteral("isolation"));
    QByteArray in, out;
    SocksHandshake::Outcome outcome = SocksHandshake::Outcome::NeedMore;
    std::size_t i = 0, fed = 0;
    while (i < size && outcome == SocksHandshake::Outcome::NeedMore) {
        const std::size_t chunk = std::min<std::size_t>(1 + data[i] % 16, size - i - 1);
        ++i;
        in.append(reinterpret_cast<const char*>(data + i), qsizetype(chunk));
        fed += chunk;
        i += chunk;
        outcome = socks.consume(in, out);
    }
    if (in.size() > qsizetype(fed))
        std::abort();
    if (outcome == SocksHandshake::Outcome::Failed &&
        (socks.failure() == SocksHandshake::Failure::None || socks.failureText().isEmpty()))
        std::abort();
    if (outcome == SocksHandshake::Outcome::Open &&
        socks.failure() != SocksHandshake::Failure::None)
        std::abort();
    // Only tor's own codes may stand for a success (a stale code on a stream that connected).
    if (outcome == SocksHandshake::Outcome::ExtendedReply &&
        (socks.failure() != SocksHandshake::Failure::Reply || socks.replyCode() < 0xF0 ||
         socks.replyCode() > 0xF7))
        std::abort();
    (void)describeSocksReply(socks.replyCode());
    return 0;
}
