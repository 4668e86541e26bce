// Generation and tor encodings of ClientAuthV3 keys.
#include "ClientAuthKey.h"

#include "OnionAddress.h"

#include <sodium.h>
#include <stdexcept>

namespace onionvoice::tor {

ClientAuthKey ClientAuthKey::generate() {
    if (sodium_init() < 0)
        throw std::runtime_error("libsodium could not be initialised");
    ClientAuthKey key;
    crypto_box_keypair(key.publicKey_.data(), key.privateKey_.data());
    return key;
}

ClientAuthKey ClientAuthKey::fromPrivateKey(std::span<const std::uint8_t, 32> privateKey) {
    if (sodium_init() < 0)
        throw std::runtime_error("libsodium could not be initialised");
    ClientAuthKey key;
    std::copy(privateKey.begin(), privateKey.end(), key.privateKey_.data());
    crypto_scalarmult_base(key.publicKey_.data(), key.privateKey_.data());
    return key;
}

QByteArray ClientAuthKey::encodePublicKey(std::span<const std::uint8_t, 32> publicKey) {
    return base32Encode(QByteArray(reinterpret_cast<const char*>(publicKey.data()), 32))
        .toUpper()
        .toLatin1();
}

QByteArray ClientAuthKey::publicKeyBase32() const {
    return encodePublicKey(publicKey_);
}

void ClientAuthKey::appendPrivateKeyArgument(QByteArray& command) const {
    command.append("x25519:");
    appendSecretBase64(command, privateKey_.view());
}

} // namespace onionvoice::tor
