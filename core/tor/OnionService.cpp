// ADD_ONION publishing, republishing after tor restarts, and client authorization on the dialing
// side.
#include "OnionService.h"

#include "ClientAuthKey.h"
#include "SecretBytes.h"
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
    state_ = notInTorState();
    connect(launcher_, &TorLauncher::stateChanged, this, [this](TorLauncher::State state) {
        if (state == TorLauncher::State::Ready)
            publish();
        else if (state != TorLauncher::State::Bootstrapping) {
            inTor_ = InTor::Nothing; // a new tor process holds no services
            setState(notInTorState());
        }
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

bool OnionService::withheld() const {
    return config_.access == Access::ClientAuthOnly && config_.clientAuthPublicKeys.isEmpty();
}

void OnionService::setClientAuthPublicKeys(const QList<QByteArray>& keys) {
    if (keys == config_.clientAuthPublicKeys)
        return;
    config_.clientAuthPublicKeys = keys;
    if (launcher_->state() == TorLauncher::State::Ready ||
        (state_ != State::Unpublished && state_ != State::Withheld))
        publish();
    else
        setState(notInTorState()); // the first key, or the last one gone, before tor is up
}

void OnionService::publish() {
    uploads_.reset();
    const int generation = ++generation_;
    TorController* controller = launcher_->controller();
    // Tor keeps the old client keys until the service is removed, and refuses a second ADD_ONION
    // for it; withheld, the old keys must not stay live either.
    removeFromTor(controller);
    if (withheld()) {
        failureReason_ = QStringLiteral(
            "Contacts-only: no contact holds an access key yet, so the service is not published "
            "(it would be open to everyone).");
        qCInfo(lcTor) << "contacts-only service withheld: no client keys";
        setState(State::Withheld);
        return;
    }
    failureReason_.clear();
    setState(State::Publishing);
    // The command carries the secret key: built in one buffer reserved up front (no reallocation
    // leaves copies behind) and wiped after it was handed to the socket. The copy in the socket's
    // write buffer (Qt buffers every TCP write, and shares a large one instead) is not ours to
    // wipe.
    QByteArray command;
    command.reserve(4096 + 64 * config_.clientAuthPublicKeys.size());
    command.append("ADD_ONION ");
    identity_.appendAddOnionKeyBlob(command);
    command.append(" Flags=DiscardPK,MaxStreamsCloseCircuit");
    if (!config_.clientAuthPublicKeys.isEmpty())
        command.append(",V3Auth");
    command.append(" MaxStreams=").append(QByteArray::number(config_.maxStreamsPerCircuit));
    if (proofOfWork_)
        command.append(" PoWDefensesEnabled=1");
    command.append(" Port=")
        .append(QByteArray::number(config_.virtualPort))
        .append(',')
        .append(config_.target);
    for (const QByteArray& key : config_.clientAuthPublicKeys)
        command.append(" ClientAuthV3=").append(key);
    inTor_ = InTor::AddSent;
    // The reply may come after this service is gone (the controller outlives it).
    controller->send(command, [this, generation,
                               alive = QPointer<OnionService>(this)](const TorReply& reply) {
        if (!alive || generation != generation_)
            return;
        if (!reply.isOk()) {
            // A lost connection means tor is restarting; the launcher's Ready publishes again.
            if (reply.kind() == TorReply::Kind::ConnectionLost) {
                inTor_ = InTor::Nothing; // tor exits with its owning control connection
                setState(State::Unpublished);
                return;
            }
            if (proofOfWork_ && reply.code() == 512) {
                qCInfo(lcTor) << "this tor has no proof-of-work defence; publishing without";
                proofOfWork_ = false;
                publish();
                return;
            }
            failureReason_ =
                QStringLiteral("tor refused the onion service: %1").arg(reply.errorMessage());
            setState(State::Failed);
            return;
        }
        if (QString::fromLatin1(reply.value("ServiceID")) != identity_.address()) {
            failureReason_ = QStringLiteral("tor published another address than the identity's");
            setState(State::Failed);
            return;
        }
        ++publishCount_;
        qCInfo(lcTor) << "onion service published";
        if (state_ == State::Publishing)
            setState(State::Published);
    });
    wipe(command);
}

void OnionService::removeFromTor(TorController* controller) {
    if (inTor_ == InTor::Nothing)
        return;
    controller->send(QByteArrayLiteral("DEL_ONION ") + identity_.address().toLatin1());
    inTor_ = InTor::Nothing;
}

void addClientAuthorization(TorController* controller, const QString& onionAddress,
                            const ClientAuthKey& key, TorController::ReplyHandler handler) {
    QByteArray command;
    command.reserve(256);
    command.append("ONION_CLIENT_AUTH_ADD ").append(onionAddress.toLatin1()).append(' ');
    key.appendPrivateKeyArgument(command);
    controller->send(command, std::move(handler));
    wipe(command);
}

} // namespace onionvoice::tor
