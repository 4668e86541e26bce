// Fixed-size secret byte buffer in memory from sodium_malloc: guard pages around it, locked
// against swapping where the system allows, and wiped when it goes away.
#pragma once

#include <QByteArray>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <sodium.h>
#include <span>

namespace onionvoice::tor {

template <std::size_t N> class SecretBytes {
public:
    SecretBytes() {
        if (sodium_init() < 0)
            throw std::bad_alloc();
        bytes_ = static_cast<std::uint8_t*>(sodium_malloc(N));
        if (!bytes_)
            throw std::bad_alloc();
        sodium_memzero(bytes_, N);
    }
    SecretBytes(const SecretBytes& other)
        : SecretBytes() {
        std::memcpy(bytes_, other.bytes_, N);
    }
    SecretBytes& operator=(const SecretBytes& other) {
        std::memcpy(bytes_, other.bytes_, N);
        return *this;
    }
    ~SecretBytes() { sodium_free(bytes_); } // sodium_free wipes the bytes

    std::uint8_t* data() { return bytes_; }
    const std::uint8_t* data() const { return bytes_; }
    static constexpr std::size_t size() { return N; }
    std::span<const std::uint8_t, N> view() const {
        return std::span<const std::uint8_t, N>(bytes_, N);
    }

private:
    std::uint8_t* bytes_ = nullptr;
};

// Wipes a secret held in ordinary memory (a command line with a key, a cookie) before it is freed.
inline void wipe(QByteArray& secret) {
    sodium_memzero(secret.data(), std::size_t(secret.size()));
}

// Appends the base64 of a secret to `out` without a temporary copy outside locked memory. `out`
// should have its capacity reserved, so the append does not leave a reallocated copy behind.
inline void appendSecretBase64(QByteArray& out, std::span<const std::uint8_t> secret) {
    SecretBytes<256> encoded;
    if (sodium_base64_ENCODED_LEN(secret.size(), sodium_base64_VARIANT_ORIGINAL) > encoded.size())
        throw std::bad_alloc();
    sodium_bin2base64(reinterpret_cast<char*>(encoded.data()), encoded.size(), secret.data(),
                      secret.size(), sodium_base64_VARIANT_ORIGINAL);
    out.append(reinterpret_cast<const char*>(encoded.data()));
}

} // namespace onionvoice::tor
