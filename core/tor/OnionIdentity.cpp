// Derivation of the onion identity from a libsodium seed and its private storage.
#include "OnionIdentity.h"

#include "OnionAddress.h"
#include "PrivateFile.h"
#include "SecretBytes.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <sodium.h>
#include <stdexcept>

namespace onionvoice::tor {
namespace {

const QByteArray kFileMagic = QByteArrayLiteral("== onionvoice ed25519 seed v1 ==\n");

constexpr QLatin1String kStagingInfix(".new-");

// A creator that died between writing its staging file and renaming it left a seed there; a live
// creator's staging file lasts milliseconds, so one a minute old is such a leftover.
void removeStaleStaging(const QString& path) {
    const QFileInfo identity(path);
    const QDateTime old = QDateTime::currentDateTime().addSecs(-60);
    const QFileInfoList staged = identity.absoluteDir().entryInfoList(
        {identity.fileName() + kStagingInfix + u'*'}, QDir::Files | QDir::Hidden | QDir::System);
    for (const QFileInfo& leftover : staged)
        if (leftover.lastModified() < old)
            QFile::remove(leftover.absoluteFilePath());
}

void ensureSodium() {
    if (sodium_init() < 0)
        throw std::runtime_error("libsodium could not be initialised");
}

} // namespace

OnionIdentity OnionIdentity::generate() {
    ensureSodium();
    SecretBytes<kSeedSize> seed;
    randombytes_buf(seed.data(), seed.size());
    return fromSeed(seed.view());
}

OnionIdentity OnionIdentity::fromSeed(std::span<const std::uint8_t, kSeedSize> seed) {
    ensureSodium();
    OnionIdentity identity;
    std::copy(seed.begin(), seed.end(), identity.seed_.data());
    SecretBytes<crypto_sign_SECRETKEYBYTES> signingKey;
    crypto_sign_seed_keypair(identity.publicKey_.data(), signingKey.data(), identity.seed_.data());
    identity.address_ = onionAddressFromPublicKey(identity.publicKey_);
    return identity;
}

SecretBytes<64> OnionIdentity::expandedSecretKey() const {
    SecretBytes<64> expanded;
    crypto_hash_sha512(expanded.data(), seed_.data(), seed_.size());
    expanded.data()[0] &= 248;
    expanded.data()[31] &= 127;
    expanded.data()[31] |= 64;
    return expanded;
}

std::array<std::uint8_t, 64> OnionIdentity::sign(std::span<const std::uint8_t> message) const {
    std::array<std::uint8_t, 32> publicKey{};
    SecretBytes<crypto_sign_SECRETKEYBYTES> signingKey;
    crypto_sign_seed_keypair(publicKey.data(), signingKey.data(), seed_.data());
    std::array<std::uint8_t, 64> signature{};
    crypto_sign_detached(signature.data(), nullptr, message.data(), message.size(),
                         signingKey.data());
    return signature;
}

bool OnionIdentity::verify(std::span<const std::uint8_t, 32> publicKey,
                           std::span<const std::uint8_t> message,
                           std::span<const std::uint8_t, 64> signature) {
    ensureSodium();
    return crypto_sign_verify_detached(signature.data(), message.data(), message.size(),
                                       publicKey.data()) == 0;
}

void OnionIdentity::appendAddOnionKeyBlob(QByteArray& command) const {
    command.append("ED25519-V3:");
    appendSecretBase64(command, expandedSecretKey().view());
}

std::optional<OnionIdentity> OnionIdentity::load(const QString& path, QString* error) {
    QFile file(path);
    // Unbuffered: a buffered read leaves the seed in QFile's own buffer, freed without a wipe.
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        *error =
            QCoreApplication::translate("OnionIdentity", "Cannot read the identity file %1: %2")
                .arg(path, file.errorString());
        return std::nullopt;
    }
    QByteArray content = file.read(kFileMagic.size() + kSeedSize + 1);
    std::optional<OnionIdentity> identity;
    if (content.size() != kFileMagic.size() + qsizetype(kSeedSize) ||
        !content.startsWith(kFileMagic)) {
        *error = QCoreApplication::translate(
                     "OnionIdentity",
                     "The identity file %1 is not an OnionVoice identity (wrong size or "
                     "header); it was left untouched.")
                     .arg(path);
    } else {
        const auto* seed =
            reinterpret_cast<const std::uint8_t*>(content.constData()) + kFileMagic.size();
        identity = fromSeed(std::span<const std::uint8_t, kSeedSize>(seed, kSeedSize));
    }
    wipe(content);
    return identity;
}

OnionIdentity::SaveResult OnionIdentity::save(const QString& path, QString* error) const {
    const auto failed = [&](const QString& reason) {
        *error =
            QCoreApplication::translate("OnionIdentity", "Cannot write the identity file %1: %2")
                .arg(path, reason);
        return SaveResult::Failed;
    };
    const QFileInfo info(path);
    QDir dir = info.absoluteDir();
    if (!dir.exists()) {
        if (!dir.mkpath(QStringLiteral("."))) {
            *error = QCoreApplication::translate("OnionIdentity", "Cannot create the directory %1")
                         .arg(dir.path());
            return SaveResult::Failed;
        }
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                              QFileDevice::ExeOwner);
    }
    // Written whole under a name of its own, then given the identity's name only if that is still
    // free: two programs creating the first identity at once (the app's first start and
    // `onionvoice-cli id`) each wrote theirs over the other's, and one of them went on with an
    // address the disk no longer held.
    removeStaleStaging(path);
    ensureSodium();
    const QString staging = path + kStagingInfix + QString::number(randombytes_random(), 16);
    QSaveFile file(staging);
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return failed(file.errorString());
    file.write(kFileMagic);
    file.write(reinterpret_cast<const char*>(seed_.data()), qint64(seed_.size()));
    if (!file.commit())
        return failed(file.errorString());
    QString reason;
    const NameClaim claim = renameWithoutReplacing(staging, path, &reason);
    if (claim == NameClaim::Claimed) {
        syncDirectoryEntry(path);
        return SaveResult::Saved;
    }
    QFile::remove(staging);
    if (claim == NameClaim::Failed)
        return failed(reason);
    *error = QCoreApplication::translate("OnionIdentity",
                                         "The identity file %1 exists already; it was left "
                                         "untouched.")
                 .arg(path);
    return SaveResult::Exists;
}

std::optional<StoredIdentity> loadOrCreateIdentity(const QString& dataDirectory, QString* error) {
    if (!ensurePrivateDirectory(dataDirectory, QStringLiteral("identity.key"), error))
        return std::nullopt;
    const QString path = QDir(dataDirectory).filePath(QStringLiteral("identity.key"));
    if (!QFile::exists(path)) {
        OnionIdentity created = OnionIdentity::generate();
        switch (created.save(path, error)) {
        case OnionIdentity::SaveResult::Saved:
            return StoredIdentity{std::move(created), IdentityOrigin::Created};
        case OnionIdentity::SaveResult::Failed:
            return std::nullopt;
        case OnionIdentity::SaveResult::Exists:
            break; // another program's, written first: it is the identity
        }
    }
    auto loaded = OnionIdentity::load(path, error);
    if (!loaded)
        return std::nullopt;
    return StoredIdentity{std::move(*loaded), IdentityOrigin::Loaded};
}

} // namespace onionvoice::tor
