// Creating and starting the link pool of an outgoing call.
#include "OutgoingDial.h"

#include "CallSession.h"
#include "multipath/Record.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionService.h"

#include <QPointer>

namespace onionvoice::call {

net::LinkPool* createOutgoingPool(const OutgoingDialConfig& config, QObject* parent) {
    net::LinkPoolConfig poolConfig;
    poolConfig.socks.port = config.socksPort;
    poolConfig.onionAddress = config.peer;
    poolConfig.port = config.servicePort;
    poolConfig.links = config.links;
    poolConfig.recordSize = multipath::kRecordSize;
    for (const quint16 port : config.slotSocksPorts)
        poolConfig.slotSocks.push_back({QHostAddress(QHostAddress::LocalHost), port});
    return new net::LinkPool(poolConfig, parent);
}

void dialHandshakeLink(net::LinkPool* pool, tor::TorController* controller, const QString& peer,
                       const QByteArray& outboundAuthPrivateKey) {
    if (outboundAuthPrivateKey.size() != 32) {
        // One link does the handshake; the others follow once there are keys to prove them with,
        // since the callee closes links that cannot prove they belong to a call.
        pool->start(1);
        return;
    }
    // The peer's service is contacts-only: our tor needs its key before the first link.
    const auto key = tor::ClientAuthKey::fromPrivateKey(
        std::span<const std::uint8_t, 32>(bytesOf(outboundAuthPrivateKey).first<32>()));
    QPointer<net::LinkPool> guarded = pool;
    tor::addClientAuthorization(controller, peer, key, [guarded](const tor::TorReply&) {
        if (guarded)
            guarded->start(1);
    });
}

} // namespace onionvoice::call
