// Valid onion addresses for contact tests, derived from fixed public keys.
#pragma once

#include "tor/OnionAddress.h"

#include <array>

inline QString testAddress(std::uint8_t n) {
    std::array<std::uint8_t, 32> key{};
    key.fill(n);
    return onionvoice::tor::onionAddressFromPublicKey(key);
}
