// Onion v3 addresses: derivation from an ed25519 public key and validation of user input.
#pragma once

#include <QString>
#include <array>
#include <cstdint>
#include <span>

namespace onionvoice::tor {

inline constexpr int kOnionAddressLength = 56;

// RFC 4648 base32, lower case, without padding (the alphabet of onion addresses).
QString base32Encode(const QByteArray& raw);

// Lower-case v3 address (56 characters, no ".onion") of an ed25519 public key.
QString onionAddressFromPublicKey(std::span<const std::uint8_t, 32> publicKey);

struct AddressCheck {
    enum class Verdict { Valid, Empty, BadLength, BadAlphabet, BadVersion, BadChecksum, BadKey };
    Verdict verdict = Verdict::Empty;
    QString address; // normalised (lower case, no prefix or suffix) when Valid
    QString reason;  // sentence for a person when not Valid
    std::array<std::uint8_t, 32> publicKey{};

    bool isValid() const { return verdict == Verdict::Valid; }
};

// Accepts what people paste: surrounding blanks, an "onionvoice:" prefix, a ".onion" suffix and
// an all-upper-case address are normalised; anything else that is not a v3 address is refused.
AddressCheck checkOnionAddress(const QString& input);

} // namespace onionvoice::tor
