// What makes us reachable: the identity key, the tor process, the listener behind the onion
// service and the published service itself (open, or restricted to contacts' client-auth keys).
#pragma once

#include "net/LinkListener.h"
#include "tor/HotlineService.h"
#include "tor/OnionIdentity.h"
#include "tor/OnionService.h"
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"

#include <QObject>
#include <QTemporaryDir>
#include <memory>
#include <optional>

namespace onionvoice::call {

struct ServiceHostConfig {
    QString dataDirectory;
    QString torExecutable;
    QStringList extraTorrcLines;
    quint16 servicePort = 0;
    QList<QByteArray> clientAuthPublicKeys; // (always none for the hotline)
    // ClientAuthOnly with no keys: not published at all (never open by accident).
    tor::OnionService::Access access = tor::OnionService::Access::Open;
    tor::SecurityPreset preset = tor::SecurityPreset::Standard;
};

class ServiceHost : public QObject {
    Q_OBJECT
public:
    explicit ServiceHost(QObject* parent = nullptr);
    ~ServiceHost() override;

    // Loads identity.key from the data directory, or creates it.
    // The data directory's identity, made if there is none (nullopt and *error when neither).
    std::optional<tor::IdentityOrigin> loadIdentity(const QString& dataDirectory, QString* error);
    // Listens, starts tor and publishes the service once tor is ready.
    bool start(const ServiceHostConfig& config, QString* error);
    void stop();

    const tor::OnionIdentity* identity() const { return identity_ ? &*identity_ : nullptr; }
    QString address() const { return identity_ ? identity_->address() : QString(); }
    tor::TorLauncher* launcher() { return launcher_.get(); }
    tor::OnionService* service() { return service_.get(); } // nullptr for the hotline
    tor::HotlineService* hotline() { return hotline_.get(); }
    // Where tor delivers the service's streams (LinkListener::torTarget); empty before start().
    QByteArray serviceTarget() const { return listener_ ? listener_->torTarget() : QByteArray(); }

signals:
    void torStateChanged(onionvoice::tor::TorLauncher::State state, int bootstrapPercent,
                         const QString& summary);
    void serviceStateChanged(onionvoice::tor::OnionService::State state);
    // A tor (the first, or one started after a crash) takes commands (TorLauncher::controlReady).
    void torControlReady();
    // A stream tor delivered for the service; not yet proven to belong to anything.
    void linkAccepted(onionvoice::net::OnionLink* link);

private:
    bool listen(const QString& dataDirectory, QString* error);
    void publish(const ServiceHostConfig& config);

    std::optional<tor::OnionIdentity> identity_;
    std::unique_ptr<tor::TorLauncher> launcher_;
    std::unique_ptr<net::LinkListener> listener_;
    std::unique_ptr<QTemporaryDir> socketFallback_; // only when the data directory's path is unfit
    std::unique_ptr<tor::OnionService> service_;
    std::unique_ptr<tor::HotlineService> hotline_; // the one-way hotline preset's service
};

} // namespace onionvoice::call
