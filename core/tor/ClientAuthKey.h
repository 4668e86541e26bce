// x25519 key pair for onion-service client authorization (ClientAuthV3), the mechanism behind
// the contacts-only mode: the service lists its contacts' public keys, each contact's tor holds
// its private key.
#pragma once

#include "SecretBytes.h"

#include <QByteArray>
#include <array>
#include <cstdint>

namespace onionvoice::tor {

class ClientAuthKey {
public:
    static ClientAuthKey generate();

    // Argument of ADD_ONION's ClientAuthV3= (base32 of the public key).
    QByteArray publicKeyBase32() const;
    // Last argument of ONION_CLIENT_AUTH_ADD ("x25519:" + base64 of the private key). Secret.
    QByteArray privateKeyArgument() const;

private:
    ClientAuthKey() = default;

    std::array<std::uint8_t, 32> publicKey_{};
    SecretBytes<32> privateKey_;
};

} // namespace onionvoice::tor
