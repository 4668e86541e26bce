// Identity, tor and the published onion service of the engine.
#include "ServiceHost.h"

#include "multipath/Record.h"

#include <QDir>

namespace onionvoice::call {

ServiceHost::ServiceHost(QObject* parent)
    : QObject(parent) {}

ServiceHost::~ServiceHost() {
    stop();
}

bool ServiceHost::loadIdentity(const QString& dataDirectory, QString* error) {
    QDir().mkpath(dataDirectory);
    const QString identityPath = QDir(dataDirectory).filePath(QStringLiteral("identity.key"));
    if (QFile::exists(identityPath)) {
        identity_ = tor::OnionIdentity::load(identityPath, error);
        return identity_.has_value();
    }
    identity_ = tor::OnionIdentity::generate();
    return identity_->save(identityPath, error);
}

bool ServiceHost::start(const ServiceHostConfig& config, QString* error) {
    listener_ = std::make_unique<net::LinkListener>(multipath::kRecordSize);
    if (!listener_->listen()) {
        *error = QStringLiteral("Cannot listen on 127.0.0.1: %1").arg(listener_->errorString());
        return false;
    }
    connect(listener_.get(), &net::LinkListener::linkAccepted, this, &ServiceHost::linkAccepted);

    tor::TorLaunchConfig torConfig;
    torConfig.dataDirectory = config.dataDirectory;
    torConfig.torExecutableSetting = config.torExecutable;
    torConfig.extraTorrcLines = config.extraTorrcLines;
    launcher_ = std::make_unique<tor::TorLauncher>(torConfig);
    connect(launcher_.get(), &tor::TorLauncher::stateChanged, this, [this](auto state) {
        emit torStateChanged(state, launcher_->bootstrap().percent, launcher_->bootstrap().summary);
    });
    connect(launcher_.get(), &tor::TorLauncher::bootstrapChanged, this, [this](const auto& b) {
        emit torStateChanged(launcher_->state(), b.percent, b.summary);
    });

    tor::OnionService::Config serviceConfig;
    serviceConfig.virtualPort = config.servicePort;
    serviceConfig.targetPort = listener_->port();
    serviceConfig.clientAuthPublicKeys = config.clientAuthPublicKeys;
    service_ = std::make_unique<tor::OnionService>(launcher_.get(), *identity_, serviceConfig);
    connect(service_.get(), &tor::OnionService::stateChanged, this,
            &ServiceHost::serviceStateChanged);
    launcher_->start();
    return true;
}

void ServiceHost::stop() {
    service_.reset();
    if (launcher_)
        launcher_->stop();
    launcher_.reset();
    listener_.reset();
}

} // namespace onionvoice::call
