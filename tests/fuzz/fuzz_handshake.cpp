// libFuzzer target: handshake messages from a peer. Decoding never crashes; an accepted message
// encodes back to the same bytes; verifying a decoded Hello or Join never crashes.
#include "call/Handshake.h"

#include <algorithm>
#include <cstdlib>

using namespace onionvoice::call;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const HandshakeDecode decoded = decodeHandshake({data, size});
    if (!decoded.message)
        return 0;
    const SealedRecord again = encodeHandshake(*decoded.message);
    if (!std::equal(again.begin(), again.end(), data, data + size))
        std::abort();
    if (const auto* hello = std::get_if<Hello>(&*decoded.message))
        (void)verifyHello(*hello, hello->callee, std::chrono::milliseconds(1'790'000'000'000),
                          std::chrono::minutes(10));
    if (const auto* join = std::get_if<Join>(&*decoded.message))
        (void)verifyJoin(CallKeys{}, *join);
    return 0;
}
