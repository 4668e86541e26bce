// Valid onion addresses for contact tests, derived from fixed seeds (real ed25519 keys: an
// address is checked to name a point of the curve's prime-order subgroup, which arbitrary bytes
// are not).
#pragma once

#include "tor/OnionAddress.h"

#include <array>
#include <sodium.h>

inline QString testAddressFromSeed(const std::array<std::uint8_t, crypto_sign_SEEDBYTES>& seed) {
    std::array<std::uint8_t, crypto_sign_PUBLICKEYBYTES> publicKey{};
    std::array<std::uint8_t, crypto_sign_SECRETKEYBYTES> secretKey{};
    if (sodium_init() < 0)
        return {};
    crypto_sign_seed_keypair(publicKey.data(), secretKey.data(), seed.data());
    return onionvoice::tor::onionAddressFromPublicKey(publicKey);
}

inline QString testAddress(std::uint8_t n) {
    std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed{};
    seed.fill(n);
    return testAddressFromSeed(seed);
}
