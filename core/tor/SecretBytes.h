// Fixed-size secret byte buffer that is wiped with sodium_memzero when it goes away.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <sodium.h>
#include <span>

namespace onionvoice::tor {

template <std::size_t N> class SecretBytes {
public:
    SecretBytes() { bytes_.fill(0); }
    SecretBytes(const SecretBytes& other)
        : bytes_(other.bytes_) {}
    SecretBytes& operator=(const SecretBytes& other) {
        bytes_ = other.bytes_;
        return *this;
    }
    ~SecretBytes() { sodium_memzero(bytes_.data(), bytes_.size()); }

    std::uint8_t* data() { return bytes_.data(); }
    const std::uint8_t* data() const { return bytes_.data(); }
    static constexpr std::size_t size() { return N; }
    std::span<const std::uint8_t, N> view() const { return bytes_; }

private:
    std::array<std::uint8_t, N> bytes_;
};

} // namespace onionvoice::tor
