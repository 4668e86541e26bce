// Key files of a HiddenServiceDir and the life cycle of the hotline's tor instance.
#include "HotlineService.h"

#include "PrivateFile.h"
#include "SecretBytes.h"

#include <QDir>
#include <QFile>
#include <sodium.h>
#include <unistd.h>

namespace onionvoice::tor {
namespace {

// tor's key file header: a 29-character tag padded with NULs to 32 bytes.
QByteArray keyFileHeader(const char* tag) {
    QByteArray header(tag);
    header.append(QByteArray(32 - header.size(), '\0'));
    return header;
}

} // namespace

HotlineService::HotlineService(OnionIdentity identity, Config config, QObject* parent)
    : QObject(parent)
    , identity_(std::move(identity))
    , config_(std::move(config)) {}

QString HotlineService::serviceDirectoryIn(const QString& hotlineDataDirectory) {
    return hotlineDataDirectory + QStringLiteral("/hotline-service");
}

QString HotlineService::serviceDirectory() const {
    return serviceDirectoryIn(config_.dataDirectory);
}

// The secret key was a copy of the identity's that stayed for good: after the user left the
// hotline, and after identity.key itself was deleted for a fresh identity.
void HotlineService::removeServiceKeys(const QString& dir) {
    const QString secret = dir + QStringLiteral("/hs_ed25519_secret_key");
    if (QFile file(secret); file.exists() && file.open(QIODevice::ReadWrite)) {
        file.write(QByteArray(int(file.size()), '\0'));
        file.flush();
        ::fsync(file.handle());
    }
    for (const char* name : {"hs_ed25519_secret_key", "hs_ed25519_public_key", "hostname"})
        QFile::remove(dir + QLatin1Char('/') + QLatin1String(name));
}

bool HotlineService::writeServiceDirectory(const QString& dir, const OnionIdentity& identity,
                                           QString* error) {
    if (!QDir().mkpath(dir) ||
        !QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                        QFileDevice::ExeOwner)) {
        *error = QStringLiteral("cannot create %1").arg(dir);
        return false;
    }
    const SecretBytes<64> expanded = identity.expandedSecretKey();
    QByteArray secret = keyFileHeader("== ed25519v1-secret: type0 ==");
    secret.append(reinterpret_cast<const char*>(expanded.data()), int(expanded.size()));
    const bool ok = writePrivateFile(dir + QStringLiteral("/hs_ed25519_secret_key"), secret, error);
    wipe(secret);
    if (!ok)
        return false;
    QByteArray publicKey = keyFileHeader("== ed25519v1-public: type0 ==");
    publicKey.append(reinterpret_cast<const char*>(identity.publicKey().data()), 32);
    return writePrivateFile(dir + QStringLiteral("/hs_ed25519_public_key"), publicKey, error) &&
           writePrivateFile(dir + QStringLiteral("/hostname"),
                            identity.address().toLatin1() + ".onion\n", error);
}

QStringList HotlineService::torrcLines(const QString& serviceDir, quint16 virtualPort,
                                       const QByteArray& target) {
    return {QStringLiteral("HiddenServiceSingleHopMode 1"),
            QStringLiteral("HiddenServiceNonAnonymousMode 1"),
            QStringLiteral("HiddenServiceDir %1").arg(serviceDir),
            QStringLiteral("HiddenServicePort %1 %2")
                .arg(virtualPort)
                .arg(QString::fromLocal8Bit(target))};
}

void HotlineService::setState(State state) {
    if (state_ == state)
        return;
    state_ = state;
    emit stateChanged(state);
}

void HotlineService::start() {
    if (state_ != State::Stopped && state_ != State::Failed)
        return;
    QString error;
    if (!writeServiceDirectory(serviceDirectory(), identity_, &error)) {
        failureReason_ = error;
        setState(State::Failed);
        return;
    }
    TorLaunchConfig launch;
    launch.dataDirectory = config_.dataDirectory;
    launch.torExecutableSetting = config_.torExecutableSetting;
    launch.socksMode = TorLaunchConfig::SocksMode::Disabled; // required by single-hop mode
    launch.extraTorrcLines = config_.extraTorrcLines +
                             torrcLines(serviceDirectory(), config_.virtualPort, config_.target);
    launcher_ = std::make_unique<TorLauncher>(launch);
    connect(launcher_.get(), &TorLauncher::stateChanged, this, [this](TorLauncher::State s) {
        switch (s) {
        case TorLauncher::State::Starting:
            uploads_->reset(); // a restarted tor uploads again
            setState(State::Starting);
            break;
        case TorLauncher::State::Ready:
            if (state_ != State::Reachable)
                setState(State::Running);
            break;
        case TorLauncher::State::Failed:
            failureReason_ = launcher_->failureReason();
            setState(State::Failed);
            break;
        case TorLauncher::State::NotStarted:
            setState(State::Stopped);
            break;
        default:
            setState(State::Starting);
        }
    });
    uploads_ = std::make_unique<DescriptorUploads>(launcher_->controller(), identity_.address());
    connect(uploads_.get(), &DescriptorUploads::firstUploaded, this, [this] {
        if (state_ == State::Starting || state_ == State::Running)
            setState(State::Reachable);
    });
    setState(State::Starting);
    launcher_->start();
}

void HotlineService::stop() {
    if (launcher_)
        launcher_->stop();
    uploads_.reset();
    launcher_.reset();
    removeServiceKeys(serviceDirectory());
    setState(State::Stopped);
}

} // namespace onionvoice::tor
