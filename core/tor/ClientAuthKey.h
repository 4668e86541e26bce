// x25519 key pair for onion-service client authorization (ClientAuthV3), the mechanism behind
// the contacts-only mode: the service lists its contacts' public keys, each contact's tor holds
// its private key.
#pragma once

#include "SecretBytes.h"

#include <QByteArray>
#include <array>
#include <cstdint>
#include <span>

namespace onionvoice::tor {

class ClientAuthKey {
public:
    static ClientAuthKey generate();
    // The pair of a private key a contact gave us (the public half is derived from it).
    static ClientAuthKey fromPrivateKey(std::span<const std::uint8_t, 32> privateKey);
    // ClientAuthV3= form of any public key (base32, as tor writes it).
    static QByteArray encodePublicKey(std::span<const std::uint8_t, 32> publicKey);

    std::span<const std::uint8_t, 32> publicKey() const { return publicKey_; }
    // Secret: only for handing to the contact (contact link) or to tor.
    std::span<const std::uint8_t, 32> privateKey() const { return privateKey_.view(); }

    // Argument of ADD_ONION's ClientAuthV3= (base32 of the public key).
    QByteArray publicKeyBase32() const;
    // Appends the last argument of ONION_CLIENT_AUTH_ADD ("x25519:" + base64 of the private
    // key) to a command buffer (reserved up front; the caller wipes it after use).
    void appendPrivateKeyArgument(QByteArray& command) const;

private:
    ClientAuthKey() = default;

    std::array<std::uint8_t, 32> publicKey_{};
    SecretBytes<32> privateKey_;
};

} // namespace onionvoice::tor
