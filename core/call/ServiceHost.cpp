// Identity, tor and the published onion service of the engine.
#include "ServiceHost.h"

#include "multipath/Record.h"
#include "tor/PrivateFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>

namespace onionvoice::call {

namespace {
const QString kSocketName = QStringLiteral("/links.sock");
}

ServiceHost::ServiceHost(QObject* parent)
    : QObject(parent) {}

ServiceHost::~ServiceHost() {
    stop();
}

std::optional<tor::IdentityOrigin> ServiceHost::loadIdentity(const QString& dataDirectory,
                                                             QString* error) {
    auto stored = tor::loadOrCreateIdentity(dataDirectory, error);
    if (!stored)
        return std::nullopt;
    identity_ = std::move(stored->identity);
    return stored->origin;
}

// Tor delivers the service's streams to a unix socket in its own 0700 directory: only our user
// can connect there, so nobody on this machine can skip tor and client authorization by
// connecting to the target directly (a TCP port on 127.0.0.1 is open to every local user). A
// data directory whose path cannot name a socket gets a private temporary directory (0700) for
// it. Windows keeps 127.0.0.1: tor has no unix-socket service targets there.
bool ServiceHost::listen(const QString& dataDirectory, QString* error) {
    listener_ = std::make_unique<net::LinkListener>(multipath::kRecordSize);
#ifdef Q_OS_WIN
    if (!listener_->listen()) {
        *error = QCoreApplication::translate("ServiceHost", "Cannot listen on 127.0.0.1: %1")
                     .arg(listener_->errorString());
        return false;
    }
    return true;
#else
    QString socketDirectory = QDir(dataDirectory).filePath(QStringLiteral("tor"));
    if (!net::LinkListener::usableSocketPath(socketDirectory + kSocketName)) {
        socketFallback_ = std::make_unique<QTemporaryDir>();
        socketDirectory = socketFallback_->path();
    }
    if (!tor::ensurePrivateDirectory(socketDirectory, {}, error))
        return false;
    if (!listener_->listenLocal(socketDirectory + kSocketName)) {
        *error = QCoreApplication::translate("ServiceHost", "Cannot listen for tor: %1")
                     .arg(listener_->errorString());
        return false;
    }
    return true;
#endif
}

bool ServiceHost::start(const ServiceHostConfig& config, QString* error) {
    if (!listen(config.dataDirectory, error))
        return false;
    connect(listener_.get(), &net::LinkListener::linkAccepted, this, &ServiceHost::linkAccepted);

    tor::TorLaunchConfig torConfig;
    torConfig.dataDirectory = config.dataDirectory;
    torConfig.torExecutableSetting = config.torExecutable;
    torConfig.extraTorrcLines = config.extraTorrcLines + tor::clientTorrcLines(config.preset);
    launcher_ = std::make_unique<tor::TorLauncher>(torConfig);
    connect(launcher_.get(), &tor::TorLauncher::stateChanged, this, [this](auto state) {
        emit torStateChanged(state, launcher_->bootstrap().percent, launcher_->bootstrap().summary);
    });
    connect(launcher_.get(), &tor::TorLauncher::controlReady, this, &ServiceHost::torControlReady);
    connect(launcher_.get(), &tor::TorLauncher::bootstrapChanged, this, [this](const auto& b) {
        emit torStateChanged(launcher_->state(), b.percent, b.summary);
    });

    publish(config);
    launcher_->start();
    return true;
}

// An ephemeral ADD_ONION service on our tor, or, for the one-way hotline, a single-hop service on
// a second tor of its own (tor never makes an ADD_ONION service single-hop); the hotline's states
// are reported as the service's.
void ServiceHost::publish(const ServiceHostConfig& config) {
    const QString hotlineDirectory = QDir(config.dataDirectory).filePath(QStringLiteral("hotline"));
    if (config.preset != tor::SecurityPreset::OneWayHotline) {
        // What a hotline that did not stop (a crash, an earlier version) left of the identity's
        // key.
        tor::HotlineService::removeServiceKeys(
            tor::HotlineService::serviceDirectoryIn(hotlineDirectory));
        tor::OnionService::Config serviceConfig;
        serviceConfig.virtualPort = config.servicePort;
        serviceConfig.target = listener_->torTarget();
        serviceConfig.clientAuthPublicKeys = config.clientAuthPublicKeys;
        serviceConfig.access = config.access;
        service_ = std::make_unique<tor::OnionService>(launcher_.get(), *identity_, serviceConfig);
        connect(service_.get(), &tor::OnionService::stateChanged, this,
                &ServiceHost::serviceStateChanged);
        // Its first state, which it had before anyone listened: Withheld lasts until a contact
        // holds a key, and the app says so meanwhile.
        emit serviceStateChanged(service_->state());
        return;
    }
    tor::HotlineService::Config hotline;
    hotline.dataDirectory = hotlineDirectory;
    hotline.torExecutableSetting = config.torExecutable;
    hotline.virtualPort = config.servicePort;
    hotline.target = listener_->torTarget();
    hotline.extraTorrcLines = config.extraTorrcLines;
    hotline_ = std::make_unique<tor::HotlineService>(*identity_, hotline);
    connect(hotline_.get(), &tor::HotlineService::stateChanged, this, [this](auto state) {
        using H = tor::HotlineService::State;
        using S = tor::OnionService::State;
        emit serviceStateChanged(state == H::Reachable  ? S::Reachable
                                 : state == H::Failed   ? S::Failed
                                 : state == H::Running  ? S::Published
                                 : state == H::Starting ? S::Publishing
                                                        : S::Unpublished);
    });
    hotline_->start();
}

void ServiceHost::stop() {
    service_.reset();
    if (hotline_)
        hotline_->stop();
    hotline_.reset();
    if (launcher_)
        launcher_->stop();
    launcher_.reset();
    listener_.reset();
    socketFallback_.reset();
}

} // namespace onionvoice::call
