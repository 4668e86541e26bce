// Creating and starting the link pool of an outgoing call.
#include "OutgoingDial.h"

#include "CallSession.h"
#include "multipath/Record.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionService.h"

#include <QPointer>
#include <QSet>
#include <QTimer>

namespace onionvoice::call {

net::LinkPool* createOutgoingPool(const OutgoingDialConfig& config, QObject* parent) {
    net::LinkPoolConfig poolConfig;
    poolConfig.socksFor = [socks = config.socks](std::uint8_t) {
        return socks();
    };
    poolConfig.firstRecord = config.firstRecord;
    poolConfig.onionAddress = config.peer;
    poolConfig.port = config.servicePort;
    poolConfig.links = config.links;
    poolConfig.recordSize = multipath::kRecordSize;
    for (const quint16 port : config.slotSocksPorts)
        poolConfig.slotSocks.push_back(net::SocksEndpoint::loopbackPort(port));
    return new net::LinkPool(poolConfig, parent);
}

namespace {

// Gives tor the key for the peer's contacts-only service, then runs `done` (at once without a key).
void authorize(tor::TorController* controller, const QString& peer,
               const QByteArray& outboundAuthPrivateKey, std::function<void()> done) {
    if (outboundAuthPrivateKey.size() != 32) {
        done();
        return;
    }
    const auto key = tor::ClientAuthKey::fromPrivateKey(
        std::span<const std::uint8_t, 32>(bytesOf(outboundAuthPrivateKey).first<32>()));
    tor::addClientAuthorization(controller, peer, key,
                                [done = std::move(done)](const tor::TorReply&) { done(); });
}

} // namespace

void dialHandshakeLink(net::LinkPool* pool, tor::TorController* controller, const QString& peer,
                       const QByteArray& outboundAuthPrivateKey) {
    // One link does the handshake; the others follow once there are keys to prove them with,
    // since the callee closes links that cannot prove they belong to a call.
    QPointer<net::LinkPool> guarded = pool;
    authorize(controller, peer, outboundAuthPrivateKey, [guarded] {
        if (guarded)
            guarded->start(1);
    });
}

void restorePeerAuthorization(tor::TorController* controller, const QString& peer,
                              const QByteArray& outboundAuthPrivateKey) {
    authorize(controller, peer, outboundAuthPrivateKey, [] {});
}

void resetPeerState(tor::TorController* controller, const QString& peer,
                    const QByteArray& outboundAuthPrivateKey) {
    controller->send("SIGNAL NEWNYM");
    restorePeerAuthorization(controller, peer, outboundAuthPrivateKey);
}

void closeCircuitsOf(tor::TorController* controller, const QList<QByteArray>& isolationKeys) {
    if (isolationKeys.isEmpty())
        return;
    const QSet<QByteArray> keys(isolationKeys.begin(), isolationKeys.end());
    // The handler runs while the controller lives (a destroyed controller drops its handlers).
    controller->send("GETINFO circuit-status", [controller, keys](const tor::TorReply& reply) {
        if (!reply.isOk())
            return;
        for (const QByteArray& id : joinedRendezvousCircuits(reply.value("circuit-status"), keys))
            controller->send("CLOSECIRCUIT " + id + " IfUnused");
    });
}

namespace {

// Of tor's circuit-status, the rendezvous circuits in `state` of the given SOCKS usernames.
QList<QByteArray> rendezvousCircuits(const QByteArray& circuitStatus, const QByteArray& state,
                                     const QSet<QByteArray>& isolationKeys) {
    QList<QByteArray> ids;
    for (const QByteArray& line : circuitStatus.split('\n')) {
        const tor::TorArguments circuit = tor::parseTorArguments(line);
        if (!circuit.positional.isEmpty() && circuit.keyed.value("PURPOSE") == "HS_CLIENT_REND" &&
            circuit.keyed.value("HS_STATE") == state &&
            isolationKeys.contains(circuit.keyed.value("SOCKS_USERNAME")))
            ids.append(circuit.positional.first());
    }
    return ids;
}

} // namespace

QList<QByteArray> joinedRendezvousCircuits(const QByteArray& circuitStatus,
                                           const QSet<QByteArray>& isolationKeys) {
    return rendezvousCircuits(circuitStatus, "HSCR_JOINED", isolationKeys);
}

bool introducedWithoutRendezvous(const QByteArray& circuitStatus, const QByteArray& isolationKey) {
    return !isolationKey.isEmpty() &&
           !rendezvousCircuits(circuitStatus, "HSCR_ESTABLISHED_WAITING", {isolationKey}).isEmpty();
}

void whenLeftWaitingForRendezvous(tor::TorController* controller, const QByteArray& isolationKey,
                                  std::chrono::milliseconds grace, std::function<void()> then) {
    const auto ask = [isolationKey](tor::TorController* to, std::function<void()> ifWaiting) {
        to->send("GETINFO circuit-status",
                 [isolationKey, ifWaiting = std::move(ifWaiting)](const tor::TorReply& reply) {
                     if (reply.isOk() &&
                         introducedWithoutRendezvous(reply.value("circuit-status"), isolationKey))
                         ifWaiting();
                 });
    };
    const QPointer<tor::TorController> guarded = controller;
    ask(controller, [ask, guarded, grace, then = std::move(then)] {
        QTimer::singleShot(grace, guarded, [ask, guarded, then] {
            if (guarded)
                ask(guarded, then);
        });
    });
}

} // namespace onionvoice::call
