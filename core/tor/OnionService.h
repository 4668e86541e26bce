// Publishes the identity as an ephemeral onion service (ADD_ONION) on the launcher's tor,
// republishes after every tor restart, and reports "reachable" once a descriptor is uploaded.
#pragma once

#include "DescriptorUploads.h"
#include "OnionIdentity.h"
#include "TorLauncher.h"

#include <QObject>

namespace onionvoice::tor {

class OnionService : public QObject {
    Q_OBJECT
public:
    enum class State { Unpublished, Publishing, Published, Reachable, Failed };
    Q_ENUM(State)

    struct Config {
        quint16 virtualPort = 0;                // port in the onion address
        quint16 targetPort = 0;                 // local QTcpServer on 127.0.0.1
        QList<QByteArray> clientAuthPublicKeys; // ClientAuthKey::publicKeyBase32(); empty = open
    };

    // Publishes each time the launcher becomes Ready.
    OnionService(TorLauncher* launcher, OnionIdentity identity, Config config,
                 QObject* parent = nullptr);

    // Sends ADD_ONION now (also usable before bootstrap: tor answers the ServiceID offline).
    void publish();

    State state() const { return state_; }
    QString failureReason() const { return failureReason_; }
    const QString& address() const { return identity_.address(); }
    int publishCount() const { return publishCount_; }
    const DescriptorUploads& uploads() const { return uploads_; }

signals:
    void stateChanged(onionvoice::tor::OnionService::State state);

private:
    void setState(State state);

    TorLauncher* launcher_;
    OnionIdentity identity_;
    Config config_;
    DescriptorUploads uploads_;
    State state_ = State::Unpublished;
    QString failureReason_;
    int publishCount_ = 0;
};

// Lets this tor reach a service that requires client authorization.
void addClientAuthorization(TorController* controller, const QString& onionAddress,
                            const class ClientAuthKey& key, TorController::ReplyHandler handler);

} // namespace onionvoice::tor
