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

QByteArray ClientAuthKey::publicKeyBase32() const {
    return base32Encode(QByteArray(reinterpret_cast<const char*>(publicKey_.data()), 32))
        .toUpper()
        .toLatin1();
}

QByteArray ClientAuthKey::privateKeyArgument() const {
    QByteArray raw(reinterpret_cast<const char*>(privateKey_.data()), 32);
    QByteArray argument = QByteArrayLiteral("x25519:") + raw.toBase64();
    sodium_memzero(raw.data(), size_t(raw.size()));
    return argument;
}

} // namespace onionvoice::tor
