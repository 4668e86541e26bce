// The user's identity: a 32-byte ed25519 seed, the key tor needs for ADD_ONION, the v3 address,
// and the seed file on disk.
#pragma once

#include "SecretBytes.h"

#include <QByteArray>
#include <QString>
#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace onionvoice::tor {

class OnionIdentity {
public:
    static constexpr std::size_t kSeedSize = 32;

    static OnionIdentity generate();
    static OnionIdentity fromSeed(std::span<const std::uint8_t, kSeedSize> seed);

    // Reads a seed file written by save(); on failure returns nullopt and sets *error.
    static std::optional<OnionIdentity> load(const QString& path, QString* error);
    enum class SaveResult {
        Saved,
        Exists, // a file is at `path` already: left untouched, nothing written
        Failed, // see *error
    };
    // Writes the seed to a new file at `path`, whole or not at all, mode 0600 (the directory
    // created with mode 0700), and never over a file already there: an identity replaced is an
    // address lost for good.
    SaveResult save(const QString& path, QString* error) const;

    // 56 lower-case characters, without ".onion".
    const QString& address() const { return address_; }
    std::span<const std::uint8_t, 32> publicKey() const { return publicKey_; }
    // Appends "ED25519-V3:<base64 of the expanded secret key>", the key argument of ADD_ONION,
    // to a command buffer (reserved up front; the caller wipes it after use).
    void appendAddOnionKeyBlob(QByteArray& command) const;
    // The 64-byte expanded secret key (SHA-512 of the seed, clamped), as tor stores it.
    SecretBytes<64> expandedSecretKey() const;

    // Ed25519 signature by the key behind the onion address (proves the address to a peer).
    std::array<std::uint8_t, 64> sign(std::span<const std::uint8_t> message) const;
    static bool verify(std::span<const std::uint8_t, 32> publicKey,
                       std::span<const std::uint8_t> message,
                       std::span<const std::uint8_t, 64> signature);

private:
    OnionIdentity() = default;

    SecretBytes<kSeedSize> seed_;
    std::array<std::uint8_t, 32> publicKey_{};
    QString address_;
};

enum class IdentityOrigin { Loaded, Created };

struct StoredIdentity {
    OnionIdentity identity;
    IdentityOrigin origin;
};

// The identity of a data directory (its identity.key), once the directory has passed its privacy
// check (ensurePrivateDirectory): loaded, or created when there is none. The app's first start and
// `onionvoice-cli id` may create it in the same moment: the file written first counts for both.
std::optional<StoredIdentity> loadOrCreateIdentity(const QString& dataDirectory, QString* error);

} // namespace onionvoice::tor
