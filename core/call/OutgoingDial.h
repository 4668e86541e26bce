// The links of an outgoing call: a LinkPool to the peer's onion service through our tor's SOCKS
// port. Only the handshake link is dialled first; the others follow once the call has keys.
#pragma once

#include "net/LinkPool.h"
#include "tor/TorController.h"
#include "tor/TorLauncher.h"

#include <QSet>
#include <chrono>
#include <functional>

namespace onionvoice::call {

// Where the launcher's tor takes SOCKS connections now: its unix socket, or on Windows its port
// on 127.0.0.1; not set while no live tor has reported its listener.
inline net::SocksEndpoint torSocksEndpoint(const tor::TorLauncher& launcher) {
    return {launcher.socksSocketPath(), launcher.socksPort()};
}

struct OutgoingDialConfig {
    // Asked at every attempt: tor's SOCKS endpoint is unknown while tor restarts during a call,
    // and on Windows its port changes.
    std::function<net::SocksEndpoint()> socks;
    QString peer; // onion address, 56 characters
    quint16 servicePort = 0;
    int links = 0;
    std::vector<quint16> slotSocksPorts; // per-slot SOCKS relay on 127.0.0.1 (tests), if any
    // What each attempt of a slot sends with its SOCKS request (net::LinkPoolConfig::firstRecord).
    std::function<QByteArray(std::uint8_t slot)> firstRecord;
};

// The pool for the call (not started: connect its signals, then dialHandshakeLink).
net::LinkPool* createOutgoingPool(const OutgoingDialConfig& config, QObject* parent);

// Dials the handshake link. With a client-auth key for the peer (its service is contacts-only)
// our tor gets the key first.
void dialHandshakeLink(net::LinkPool* pool, tor::TorController* controller, const QString& peer,
                       const QByteArray& outboundAuthPrivateKey);

// Gives tor the peer's client-auth key again (a tor started after a crash has none; a key given
// twice replaces the first): without it every new link to a contacts-only peer fails.
void restorePeerAuthorization(tor::TorController* controller, const QString& peer,
                              const QByteArray& outboundAuthPrivateKey);

// Purges tor's client-side onion-service state (SIGNAL NEWNYM: cached descriptors, introduction
// points marked failed; open circuits and streams stay) when replacement links keep failing
// (RelinkRescue), and gives tor the peer's client-auth key again, which NEWNYM drops too.
void resetPeerState(tor::TorController* controller, const QString& peer,
                    const QByteArray& outboundAuthPrivateKey);

// Closes the rendezvous circuits our tor built for the given SOCKS usernames (the isolation keys of
// an ended call's link attempts) that carry no stream any more. Each link has a rendezvous circuit
// of its own that no later stream may use (IsolateSOCKSAuth, a fresh key per attempt), yet tor
// keeps it open until it expires (MaxCircuitDirtiness, 10 minutes by default), and the peer's tor
// keeps its end too: a dozen idle circuits on each side per call, for every call of a desktop app.
// Only circuits without streams are closed (IfUnused): a link still flushing its last record to
// tor keeps its circuit, which then expires as before.
void closeCircuitsOf(tor::TorController* controller, const QList<QByteArray>& isolationKeys);

// Of tor's circuit-status, the joined rendezvous circuits of the given SOCKS usernames: their
// IDs. Circuits of an attempt still under way are not among them: closing an introduction circuit
// before its introduction was acknowledged makes tor count a failure against that introduction
// point, and after a few calls that ended while links were still being set up, tor refused every
// new connection to the peer ("introduction failed") for minutes.
QList<QByteArray> joinedRendezvousCircuits(const QByteArray& circuitStatus,
                                           const QSet<QByteArray>& isolationKeys);

// Whether tor's circuit-status shows the attempt with this SOCKS username introduced and waiting
// for the peer's rendezvous: its introduction point acknowledged the introduction and the peer's
// tor never came to the rendezvous point (HSCR_ESTABLISHED_WAITING). A live peer comes within
// seconds. An introduction point that acknowledges for a tor that never answers holds a circuit
// of the peer's old tor: frozen (a suspended laptop), or one that the point still believes alive
// after the tor died. Tor marks no introduction point as failed for it and keeps the cached
// descriptor that lists those points, so every attempt waits the same way until the peer's new
// descriptor is fetched (tests/call/tst_handshaketwins, tst_manycalls).
bool introducedWithoutRendezvous(const QByteArray& circuitStatus, const QByteArray& isolationKey);

// Asks tor for its circuit-status, and runs `then` if it shows the attempt with this SOCKS
// username introduced and waiting (introducedWithoutRendezvous), and again after `grace`, still
// waiting. Nothing runs once the controller is gone.
void whenLeftWaitingForRendezvous(tor::TorController* controller, const QByteArray& isolationKey,
                                  std::chrono::milliseconds grace, std::function<void()> then);

} // namespace onionvoice::call
