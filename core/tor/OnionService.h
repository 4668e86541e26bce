// Publishes the identity as an ephemeral onion service (ADD_ONION) on the launcher's tor,
// republishes after every tor restart, and reports "reachable" once a descriptor is uploaded.
// A contacts-only service is never published without client keys (it would be open to all), and
// is published again (DEL_ONION + ADD_ONION) whenever its set of client keys changes, or only
// removed when no key is left. Every rendezvous circuit may carry a few streams only (a call uses
// one per circuit), and tor's proof-of-work defence against introduction floods is on.
#pragma once

#include "DescriptorUploads.h"
#include "OnionIdentity.h"
#include "TorLauncher.h"

#include <QObject>

namespace onionvoice::tor {

class OnionService : public QObject {
    Q_OBJECT
public:
    // Withheld: contacts-only without any client key, so not published whatever tor does (it
    // would be open to everyone); told apart from Unpublished so that the app can say why nobody
    // reaches the user, for as long as it lasts.
    enum class State { Unpublished, Publishing, Published, Reachable, Failed, Withheld };
    Q_ENUM(State)

    enum class Access { Open, ClientAuthOnly };
    struct Config {
        quint16 virtualPort = 0; // port in the onion address
        // Where tor delivers streams: "unix:<path>" or "127.0.0.1:<port>" (LinkListener::torTarget)
        QByteArray target;
        QList<QByteArray> clientAuthPublicKeys; // ClientAuthKey::publicKeyBase32(); empty = open
        // ClientAuthOnly: without keys the service is not published at all.
        Access access = Access::Open;
        int maxStreamsPerCircuit = 4;
    };

    // Publishes each time the launcher becomes Ready.
    OnionService(TorLauncher* launcher, OnionIdentity identity, Config config,
                 QObject* parent = nullptr);

    // Sends ADD_ONION now (also usable before bootstrap: tor answers the ServiceID offline).
    void publish();
    // A new set of client keys: the service is published again with exactly these.
    void setClientAuthPublicKeys(const QList<QByteArray>& keys);

    State state() const { return state_; }
    QString failureReason() const { return failureReason_; }
    const QString& address() const { return identity_.address(); }
    int publishCount() const { return publishCount_; }
    const DescriptorUploads& uploads() const { return uploads_; }

signals:
    void stateChanged(onionvoice::tor::OnionService::State state);

private:
    void setState(State state);
    bool withheld() const;
    // What it is while not in tor: Withheld or Unpublished.
    State notInTorState() const { return withheld() ? State::Withheld : State::Unpublished; }
    // Sends DEL_ONION if an ADD_ONION may have reached this tor since the last one.
    void removeFromTor(TorController* controller);

    TorLauncher* launcher_;
    OnionIdentity identity_;
    Config config_;
    DescriptorUploads uploads_;
    State state_ = State::Unpublished;
    QString failureReason_;
    int publishCount_ = 0;
    int generation_ = 0; // of ADD_ONION commands; replies to older ones are ignored
    // What tor holds once it has run every command sent so far. Commands run in order on the one
    // control connection, so this follows what was sent, not the replies: the reply to an
    // ADD_ONION that a newer publish() made stale is ignored, yet the service it added is live
    // until a DEL_ONION reaches tor. A DEL_ONION that finds nothing (552) is harmless.
    enum class InTor {
        Nothing, // this tor process got no ADD_ONION since the last DEL_ONION
        AddSent, // our service, once (and if) tor accepts the ADD_ONION sent last
    };
    InTor inTor_ = InTor::Nothing;
    bool proofOfWork_ = true; // off when this tor does not know PoWDefensesEnabled
};

// Lets this tor reach a service that requires client authorization.
void addClientAuthorization(TorController* controller, const QString& onionAddress,
                            const class ClientAuthKey& key, TorController::ReplyHandler handler);

} // namespace onionvoice::tor
