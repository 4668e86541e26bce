// ChaCha20-Poly1305 sealing of records with a sliding replay window.
#include "RecordSealer.h"

#include <algorithm>
#include <sodium.h>
#include <stdexcept>

namespace onionvoice::call {
namespace {

constexpr std::size_t kCounterSize = 8;
static_assert(kCounterSize + multipath::kPlainRecordSize +
                  crypto_aead_chacha20poly1305_IETF_ABYTES ==
              multipath::kRecordSize);

std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES>
nonceFor(const std::uint8_t* counter) {
    std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES> nonce{};
    std::copy_n(counter, kCounterSize, nonce.begin() + (nonce.size() - kCounterSize));
    return nonce;
}

} // namespace

RecordSealer::RecordSealer(const SessionKey& key)
    : key_(key) {
    if (sodium_init() < 0)
        throw std::runtime_error("libsodium could not be initialised");
}

SealedRecord RecordSealer::seal(std::span<const std::uint8_t, multipath::kPlainRecordSize> plain) {
    SealedRecord out{};
    const std::uint64_t counter = counter_++;
    for (std::size_t i = 0; i < kCounterSize; ++i)
        out[i] = std::uint8_t(counter >> (8 * (kCounterSize - 1 - i)));
    const auto nonce = nonceFor(out.data());
    unsigned long long written = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt(out.data() + kCounterSize, &written, plain.data(),
                                              plain.size(), out.data(), kCounterSize, nullptr,
                                              nonce.data(), key_.data());
    return out;
}

RecordOpener::RecordOpener(const SessionKey& key)
    : key_(key) {
    if (sodium_init() < 0)
        throw std::runtime_error("libsodium could not be initialised");
}

RecordOpener::Outcome
RecordOpener::open(std::span<const std::uint8_t, multipath::kRecordSize> sealed,
                   multipath::RecordBytes& plain) {
    std::uint64_t counter = 0;
    for (std::size_t i = 0; i < kCounterSize; ++i)
        counter = counter << 8 | sealed[i];
    if (newest_ && counter + kWindow <= *newest_)
        return Outcome::TooOld;
    if (newest_ && counter <= *newest_ && seen_.test(counter % kWindow))
        return Outcome::Replayed;
    const auto nonce = nonceFor(sealed.data());
    unsigned long long length = 0;
    // The counter is authenticated as associated data: it cannot be changed to dodge the window.
    if (crypto_aead_chacha20poly1305_ietf_decrypt(plain.data(), &length, nullptr,
                                                  sealed.data() + kCounterSize,
                                                  sealed.size() - kCounterSize, sealed.data(),
                                                  kCounterSize, nonce.data(), key_.data()) != 0 ||
        length != plain.size())
        return Outcome::Forged;
    if (!newest_ || counter > *newest_) {
        const std::uint64_t advance = newest_ ? counter - *newest_ : kWindow;
        if (advance >= kWindow) {
            seen_.reset();
        } else {
            for (std::uint64_t c = *newest_ + 1; c < counter; ++c)
                seen_.reset(c % kWindow);
        }
        newest_ = counter;
    }
    seen_.set(counter % kWindow);
    return Outcome::Opened;
}

} // namespace onionvoice::call
