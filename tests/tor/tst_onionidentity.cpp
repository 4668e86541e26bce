// Unit tests of OnionIdentity and onion address validation, with a test vector taken from tor.
#include "tor/OnionAddress.h"
#include "tor/OnionIdentity.h"
#include "tor/PrivateFile.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <array>
#include <latch>
#include <sodium.h>
#include <sys/stat.h>
#include <thread>
#include <vector>

using namespace onionvoice::tor;

namespace {

// Seed 00 01 02 ... 1f. Address and expanded key as answered by tor 0.4.9.11 to
// "ADD_ONION ED25519-V3:<key> Flags=DiscardPK Port=80,127.0.0.1:1" under DisableNetwork 1.
const QString kVectorAddress =
    QStringLiteral("aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53sdgiesvgg4bqead");
const QByteArray kVectorKeyBlob =
    QByteArrayLiteral("ED25519-V3:OJTupJxYCu+BaTV2K+BJVZ1tFEDe3hLmoSXxhB//"
                      "jm+p1xhio+V0a1cb49GHsAQQRvUuvYUMfL1f3o7jhHO2SQ==");

OnionIdentity vectorIdentity() {
    std::array<std::uint8_t, 32> seed{};
    for (std::size_t i = 0; i < seed.size(); ++i)
        seed[i] = std::uint8_t(i);
    return OnionIdentity::fromSeed(seed);
}

// Replaces character i of a valid address by another base32 character.
QString withCharacterChanged(QString address, int i) {
    address[i] = address[i] == QLatin1Char('a') ? QLatin1Char('b') : QLatin1Char('a');
    return address;
}

// An address of another version, with the checksum that version would have (rend-spec-v3).
QString addressOfVersion(std::uint8_t version) {
    const QByteArray key(32, '\x11');
    QCryptographicHash hash(QCryptographicHash::Sha3_256);
    hash.addData(QByteArrayView(".onion checksum"));
    hash.addData(key);
    hash.addData(QByteArray(1, char(version)));
    return onionvoice::tor::base32Encode(key + hash.result().left(2) +
                                         QByteArray(1, char(version)));
}

} // namespace

class TestOnionIdentity : public QObject {
    Q_OBJECT
private slots:
    void fixedVectorMatchesTor() {
        const OnionIdentity identity = vectorIdentity();
        QCOMPARE(identity.address(), kVectorAddress);
        QByteArray blob;
        identity.appendAddOnionKeyBlob(blob);
        QCOMPARE(blob, kVectorKeyBlob);
    }

    void freshIdentitiesDiffer() {
        const OnionIdentity a = OnionIdentity::generate();
        const OnionIdentity b = OnionIdentity::generate();
        QVERIFY(a.address() != b.address());
        QCOMPARE(a.address().size(), kOnionAddressLength);
        QVERIFY(checkOnionAddress(a.address()).isValid());
        QCOMPARE(checkOnionAddress(a.address()).publicKey,
                 std::to_array(*reinterpret_cast<const std::uint8_t(*)[32]>(a.publicKey().data())));
    }

    void signaturesVerifyOnlyForTheSignedMessageAndKey() {
        const OnionIdentity identity = OnionIdentity::generate();
        const QByteArray text("caller proves its onion address");
        const std::span<const std::uint8_t> message(
            reinterpret_cast<const std::uint8_t*>(text.constData()), std::size_t(text.size()));
        const std::array<std::uint8_t, 64> signature = identity.sign(message);
        QVERIFY(OnionIdentity::verify(identity.publicKey(), message, signature));
        QVERIFY(!OnionIdentity::verify(identity.publicKey(), message.first(message.size() - 1),
                                       signature));
        QVERIFY(!OnionIdentity::verify(OnionIdentity::generate().publicKey(), message, signature));
        std::array<std::uint8_t, 64> forged = signature;
        forged[10] ^= 1;
        QVERIFY(!OnionIdentity::verify(identity.publicKey(), message, forged));
    }

    void saveAndLoadRoundTrip() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("identity/seed"));
        const OnionIdentity identity = OnionIdentity::generate();
        QString error;
        QVERIFY2(identity.save(path, &error) == OnionIdentity::SaveResult::Saved,
                 qPrintable(error));
        QCOMPARE(QFile::permissions(path), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                               QFileDevice::ReadUser | QFileDevice::WriteUser);
        const std::optional<OnionIdentity> loaded = OnionIdentity::load(path, &error);
        QVERIFY2(loaded.has_value(), qPrintable(error));
        QCOMPARE(loaded->address(), identity.address());
        QByteArray loadedBlob, savedBlob;
        loaded->appendAddOnionKeyBlob(loadedBlob);
        identity.appendAddOnionKeyBlob(savedBlob);
        QCOMPARE(loadedBlob, savedBlob);
        // The file holds the seed only (a QFile never opened reads nothing: open it).
        QFile stored(path);
        QVERIFY2(stored.open(QIODevice::ReadOnly), qPrintable(stored.errorString()));
        const QByteArray content = stored.readAll();
        QVERIFY(content.startsWith("== onionvoice ed25519 seed v1 ==\n"));
        QCOMPARE(content.size(), qsizetype(33 + OnionIdentity::kSeedSize));
        QVERIFY(!content.contains(identity.address().toLatin1()));
    }

    // Fault: two programs create the first identity at once (the app's first start and
    // `onionvoice-cli id`, both having found no file). Each wrote its own over the other's, and
    // one went on publishing and handing out an address the disk no longer held: from its next
    // start on, no contact that had been given that address could reach the user.
    void aSecondIdentityNeverReplacesTheFirst() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("identity.key"));
        const OnionIdentity first = OnionIdentity::generate();
        const OnionIdentity second = OnionIdentity::generate();
        QString error;
        QCOMPARE(first.save(path, &error), OnionIdentity::SaveResult::Saved);
        QCOMPARE(second.save(path, &error), OnionIdentity::SaveResult::Exists);
        QVERIFY2(error.contains(QStringLiteral("left untouched")), qPrintable(error));
        QCOMPARE(OnionIdentity::load(path, &error)->address(), first.address());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("identity.key")}); // nothing staged is left behind

        // Programs racing for a fresh directory all end with the identity on disk.
        for (int round = 0; round < 20; ++round) {
            QTemporaryDir fresh;
            std::array<QString, 6> addresses;
            std::vector<std::thread> racers;
            std::latch start(std::ptrdiff_t(addresses.size()));
            for (std::size_t i = 0; i < addresses.size(); ++i)
                racers.emplace_back([&, i] {
                    start.arrive_and_wait();
                    QString raceError;
                    if (const auto stored = loadOrCreateIdentity(fresh.path(), &raceError))
                        addresses[i] = stored->identity.address();
                });
            for (std::thread& racer : racers)
                racer.join();
            const auto onDisk =
                OnionIdentity::load(fresh.filePath(QStringLiteral("identity.key")), &error);
            QVERIFY2(onDisk, qPrintable(error));
            for (const QString& address : addresses)
                QCOMPARE(address, onDisk->address());
        }
    }

    // A creator that died between writing its staging file and renaming it left a seed behind:
    // the next creation removes it once it is a minute old, and leaves a live creator's alone.
    void aDeadCreatorsStagedSeedIsRemoved() {
        QTemporaryDir dir;
        const QString dead = dir.filePath(QStringLiteral("identity.key.new-dead"));
        const QString live = dir.filePath(QStringLiteral("identity.key.new-live"));
        for (const QString& staged : {dead, live}) {
            QFile file(staged);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("== onionvoice ed25519 seed v1 ==\n");
        }
        QFile deadFile(dead);
        QVERIFY(deadFile.open(QIODevice::ReadWrite));
        QVERIFY(deadFile.setFileTime(QDateTime::currentDateTime().addSecs(-120),
                                     QFileDevice::FileModificationTime));
        deadFile.close();
        QString error;
        const auto stored = loadOrCreateIdentity(dir.path(), &error);
        QVERIFY2(stored, qPrintable(error));
        QCOMPARE(stored->origin, IdentityOrigin::Created);
        QVERIFY(!QFile::exists(dead));
        QVERIFY(QFile::exists(live));
    }

    // The data directory: made 0700 from the start, our own loose one tightened; a key file that
    // other users can read is refused (before the fix nothing was checked: a 0644 key was used).
    void dataDirectoryIsPrivate() {
        QTemporaryDir dir;
        const auto mode = [](const QString& path) {
            struct stat st {};
            return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode & 0777 : 0u;
        };
        QString error;
        const QString fresh = dir.filePath(QStringLiteral("a/b/data"));
        QVERIFY2(ensurePrivateDirectory(fresh, QStringLiteral("identity.key"), &error),
                 qPrintable(error));
        QCOMPARE(mode(fresh), 0700u);
        const QString loose = dir.filePath(QStringLiteral("loose"));
        QVERIFY(QDir().mkpath(loose));
        QVERIFY(QFile::setPermissions(loose, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                 QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                                 QFileDevice::ExeOther));
        QVERIFY2(ensurePrivateDirectory(loose, {}, &error), qPrintable(error));
        QCOMPARE(mode(loose), 0700u);
        QCOMPARE(OnionIdentity::generate().save(fresh + QStringLiteral("/identity.key"), &error),
                 OnionIdentity::SaveResult::Saved);
        QVERIFY(ensurePrivateDirectory(fresh, QStringLiteral("identity.key"), &error));
        QVERIFY(QFile::setPermissions(fresh + QStringLiteral("/identity.key"),
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ReadOther));
        QVERIFY(!ensurePrivateDirectory(fresh, QStringLiteral("identity.key"), &error));
        QVERIFY2(error.contains(QStringLiteral("accessible to other users")), qPrintable(error));
    }

    // Fault: the directory was lstat()ed, so a data directory that is a symbolic link to a 0700
    // directory read as the link's mode 0777 and was refused with "chmod go-rwx", which cannot
    // change a link. The target is judged now, and a loose one is refused with its own mode and
    // path (not tightened behind the user's back); a key file that is a link stays refused.
    void aLinkedDataDirectoryIsJudgedByItsTarget() {
        QTemporaryDir dir;
        const auto mode = [](const QString& path) {
            struct stat st {};
            return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode & 0777 : 0u;
        };
        const QString target = dir.filePath(QStringLiteral("target"));
        const QString link = dir.filePath(QStringLiteral("link"));
        const QString key = link + QStringLiteral("/identity.key");
        QVERIFY(QDir().mkdir(target));
        QVERIFY(QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                  QFileDevice::ExeOwner));
        QVERIFY(QFile::link(target, link));
        QString error;
        QVERIFY2(ensurePrivateDirectory(link, QStringLiteral("identity.key"), &error),
                 qPrintable(error));
        QCOMPARE(OnionIdentity::generate().save(key, &error), OnionIdentity::SaveResult::Saved);
        QVERIFY2(ensurePrivateDirectory(link, QStringLiteral("identity.key"), &error),
                 qPrintable(error));

        QVERIFY(QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                  QFileDevice::ExeOwner | QFileDevice::ReadGroup |
                                                  QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                                  QFileDevice::ExeOther));
        QVERIFY(!ensurePrivateDirectory(link, QStringLiteral("identity.key"), &error));
        const QString real = QFileInfo(target).canonicalFilePath();
        QVERIFY2(error.contains(QStringLiteral("mode 0755")) &&
                     error.contains(QStringLiteral("chmod go-rwx ") + real),
                 qPrintable(error));
        QCOMPARE(mode(target), 0755u);

        QVERIFY(QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                  QFileDevice::ExeOwner));
        const QString elsewhere = dir.filePath(QStringLiteral("elsewhere.key"));
        QVERIFY(QFile::rename(key, elsewhere));
        QVERIFY(QFile::link(elsewhere, key));
        QVERIFY(!ensurePrivateDirectory(link, QStringLiteral("identity.key"), &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
    }

    void loadRefusesForeignFileAndKeepsIt() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("seed"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a seed");
        file.close();
        QString error;
        QVERIFY(!OnionIdentity::load(path, &error).has_value());
        QVERIFY(error.contains(QStringLiteral("not an OnionVoice identity")));
        QVERIFY(QFile::exists(path));
        QVERIFY(!OnionIdentity::load(dir.filePath(QStringLiteral("missing")), &error));
        QVERIFY(error.contains(QStringLiteral("Cannot read")));
    }

    void addressCheck_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("verdict");
        QTest::addColumn<QString>("normalised");
        using V = AddressCheck::Verdict;
        const QString a = kVectorAddress;
        QTest::newRow("plain") << a << int(V::Valid) << a;
        QTest::newRow("blanks") << (QStringLiteral("  ") + a + QStringLiteral("\n"))
                                << int(V::Valid) << a;
        QTest::newRow(".onion suffix") << a + QStringLiteral(".onion") << int(V::Valid) << a;
        QTest::newRow("onionvoice: prefix")
            << QStringLiteral("onionvoice:") + a << int(V::Valid) << a;
        QTest::newRow("both") << QStringLiteral("onionvoice:") + a + QStringLiteral(".onion")
                              << int(V::Valid) << a;
        QTest::newRow("all upper case") << a.toUpper() << int(V::Valid) << a;
        // What people paste (a review found them refused as "Character 5 (":")..."): an address
        // from Tor Browser's address bar, a trailing slash, a link written with slashes.
        QTest::newRow("http:// and a slash")
            << QStringLiteral("http://%1.onion/").arg(a) << int(V::Valid) << a;
        QTest::newRow("https://") << QStringLiteral("https://%1.onion").arg(a) << int(V::Valid)
                                  << a;
        QTest::newRow("a slash") << a + QStringLiteral(".onion/") << int(V::Valid) << a;
        QTest::newRow("onionvoice://") << QStringLiteral("onionvoice://") + a << int(V::Valid) << a;
        QTest::newRow("a path") << QStringLiteral("http://%1.onion/call").arg(a)
                                << int(V::BadAlphabet) << QString();
        QTest::newRow("upper case mixed with junk")
            << a.left(20).toUpper() + QStringLiteral("!") + a.mid(21) << int(V::BadAlphabet)
            << QString();
        QTest::newRow("mixed case")
            << a.left(10).toUpper() + a.mid(10) << int(V::BadAlphabet) << QString();
        QTest::newRow("digit 1") << a.left(5) + QStringLiteral("1") + a.mid(6)
                                 << int(V::BadAlphabet) << QString();
        QTest::newRow("too short") << a.left(55) << int(V::BadLength) << QString();
        QTest::newRow("too long") << a + QStringLiteral("a") << int(V::BadLength) << QString();
        QTest::newRow("v2 length") << a.left(16) << int(V::BadLength) << QString();
        QTest::newRow("empty") << QStringLiteral(" ") << int(V::Empty) << QString();
        QTest::newRow("only suffix") << QStringLiteral(".onion") << int(V::Empty) << QString();
        QTest::newRow("wrong checksum")
            << withCharacterChanged(a, 10) << int(V::BadChecksum) << QString();
        QTest::newRow("checksum byte changed")
            << withCharacterChanged(a, 52) << int(V::BadChecksum) << QString();
        // The last character carries the version byte (0x03 -> 'd' with the checksum's low bits):
        // changed, it is a typo, since the checksum covers the version; another version is an
        // address whose checksum matches it.
        QTest::newRow("last character changed")
            << a.left(55) + QStringLiteral("e") << int(V::BadChecksum) << QString();
        QTest::newRow("version 4") << addressOfVersion(4) << int(V::BadVersion) << QString();
        // Attack: a key with a small-order part added (here the point of order 2) passed: tor
        // refuses it, and its holder signs as the key without it, so blocking one address of
        // the eight left the others ringing. The neutral point is no key either.
        std::array<std::uint8_t, 32> orderTwo{};
        orderTwo.fill(0xff);
        orderTwo[0] = 0xec;
        orderTwo[31] = 0x7f;
        const AddressCheck vector = checkOnionAddress(a);
        std::array<std::uint8_t, 32> twisted{};
        QCOMPARE(crypto_core_ed25519_add(twisted.data(), vector.publicKey.data(), orderTwo.data()),
                 0);
        QTest::newRow("small-order part added")
            << onionAddressFromPublicKey(twisted) << int(V::BadKey) << QString();
        std::array<std::uint8_t, 32> neutral{};
        neutral[0] = 1;
        QTest::newRow("neutral point")
            << onionAddressFromPublicKey(neutral) << int(V::BadKey) << QString();
    }

    void addressCheck() {
        QFETCH(QString, input);
        QFETCH(int, verdict);
        QFETCH(QString, normalised);
        const AddressCheck check = checkOnionAddress(input);
        QCOMPARE(int(check.verdict), verdict);
        QCOMPARE(check.address, normalised);
        QCOMPARE(check.reason.isEmpty(), check.isValid());
    }

    void reasonsAreReadable() {
        const QString a = kVectorAddress;
        QVERIFY(checkOnionAddress(a.left(40)).reason.contains(QStringLiteral("56 characters")));
        QVERIFY(checkOnionAddress(a.left(3) + QStringLiteral("#") + a.mid(4))
                    .reason.contains(QStringLiteral("Character 4")));
        QVERIFY(
            checkOnionAddress(withCharacterChanged(a, 3)).reason.contains(QStringLiteral("typo")));
        QVERIFY(checkOnionAddress(a.left(55) + QStringLiteral("e"))
                    .reason.contains(QStringLiteral("typo")));
        QVERIFY(
            checkOnionAddress(addressOfVersion(4)).reason.contains(QStringLiteral("version 4")));
    }
};

QTEST_GUILESS_MAIN(TestOnionIdentity)
#include "tst_onionidentity.moc"
