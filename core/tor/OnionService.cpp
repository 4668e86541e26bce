// ADD_ONION publishing, republishing after tor restarts, and client authorization on the dialing
// side.
#include "OnionService.h"

#include "ClientAuthKey.h"
#include "TorLog.h"

#include <QPointer>
#include <sodium.h>

namespace onionvoice::tor {

OnionService::OnionService(TorLauncher* launcher, OnionIdentity identity, Config config,
                           QObject* parent)
    : QObject(parent)
    , launcher_(launcher)
    , identity_(std::move(identity))
    , config_(std::move(config))
    , uploads_(launcher->controller(), identity_.address()) {
    connect(launcher_, &TorLauncher::stateChanged, this, [this](TorLauncher::State state) {
        if (state == TorLauncher::State::Ready)
            publish();
        else if (state != TorLauncher::State::Bootstrapping)
            setState(State::Unpublished);
    });
    connect(&uploads_, &DescriptorUploads::firstUploaded, this, [this] {
        if (state_ == State::Published || state_ == State::Publishing)
            setState(State::Reachable);
    });
    if (launcher_->state() == TorLauncher::State::Ready)
        publish();
}

void OnionService::setState(State state) {
    if (state_ == state)
        return;
    state_ = state;
    emit stateChanged(state);
}

void OnionService::publish() {
    uploads_.reset();
    setState(State::Publishing);
    QByteArray secretKey = identity_.addOnionKeyBlob();
    QByteArray command;
    command.reserve(1024); // no reallocation leaves copies of the key behind
    command += QByteArrayLiteral("ADD_ONION ") + secretKey + QByteArrayLiteral(" Flags=DiscardPK");
    sodium_memzero(secretKey.data(), size_t(secretKey.size()));
    if (!config_.clientAuthPublicKeys.isEmpty())
        command += QByteArrayLiteral(",V3Auth");
    command += QByteArrayLiteral(" Port=%1,127.0.0.1:%2")
                   .replace("%1", QByteArray::number(config_.virtualPort))
                   .replace("%2", QByteArray::number(config_.targetPort));
    for (const QByteArray& key : config_.clientAuthPublicKeys)
        command += QByteArrayLiteral(" ClientAuthV3=") + key;
    // The reply may come after this service is gone (the controller outlives it).
    launcher_->controller()->send(
        command, [this, alive = QPointer<OnionService>(this)](const TorReply& reply) {
            if (!alive)
                return;
            if (!reply.isOk()) {
                // A lost connection means tor is restarting; the launcher's Ready publishes again.
                if (reply.kind() == TorReply::Kind::ConnectionLost) {
                    setState(State::Unpublished);
                    return;
                }
                failureReason_ =
                    QStringLiteral("tor refused the onion service: %1").arg(reply.errorMessage());
                setState(State::Failed);
                return;
            }
            const QString serviceId = QString::fromLatin1(reply.value("ServiceID"));
            if (serviceId != identity_.address()) {
                failureReason_ = QStringLiteral("tor published %1, not the identity's address %2")
                                     .arg(serviceId, identity_.address());
                setState(State::Failed);
                return;
            }
            ++publishCount_;
            qCInfo(lcTor).noquote() << "onion service published:" << serviceId;
            if (state_ == State::Publishing)
                setState(State::Published);
        });
    sodium_memzero(command.data(), size_t(command.size()));
}

void addClientAuthorization(TorController* controller, const QString& onionAddress,
                            const ClientAuthKey& key, TorController::ReplyHandler handler) {
    QByteArray command = QByteArrayLiteral("ONION_CLIENT_AUTH_ADD ") + onionAddress.toLatin1() +
                         ' ' + key.privateKeyArgument();
    controller->send(command, std::move(handler));
    sodium_memzero(command.data(), size_t(command.size()));
}

} // namespace onionvoice::tor
