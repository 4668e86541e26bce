// What makes us reachable: the identity key, the tor process, the listener behind the onion
// service and the published service itself (open, or restricted to contacts' client-auth keys).
#pragma once

#include "net/LinkListener.h"
#include "tor/OnionIdentity.h"
#include "tor/OnionService.h"
#include "tor/TorLauncher.h"

#include <QObject>
#include <memory>
#include <optional>

namespace onionvoice::call {

struct ServiceHostConfig {
    QString dataDirectory;
    QString torExecutable;
    QStringList extraTorrcLines;
    quint16 servicePort = 0;
    QList<QByteArray> clientAuthPublicKeys; // empty: the service is open
};

class ServiceHost : public QObject {
    Q_OBJECT
public:
    explicit ServiceHost(QObject* parent = nullptr);
    ~ServiceHost() override;

    // Loads identity.key from the data directory, or creates it.
    bool loadIdentity(const QString& dataDirectory, QString* error);
    // Listens, starts tor and publishes the service once tor is ready.
    bool start(const ServiceHostConfig& config, QString* error);
    void stop();

    const tor::OnionIdentity* identity() const { return identity_ ? &*identity_ : nullptr; }
    QString address() const { return identity_ ? identity_->address() : QString(); }
    tor::TorLauncher* launcher() { return launcher_.get(); }
    tor::OnionService* service() { return service_.get(); }

signals:
    void torStateChanged(onionvoice::tor::TorLauncher::State state, int bootstrapPercent,
                         const QString& summary);
    void serviceStateChanged(onionvoice::tor::OnionService::State state);
    // A stream tor delivered for the service; not yet proven to belong to anything.
    void linkAccepted(onionvoice::net::OnionLink* link);

private:
    std::optional<tor::OnionIdentity> identity_;
    std::unique_ptr<tor::TorLauncher> launcher_;
    std::unique_ptr<net::LinkListener> listener_;
    std::unique_ptr<tor::OnionService> service_;
};

} // namespace onionvoice::call
