// The call engine's outgoing side: dialling, the handshake link and its hedges, the links of the
// pool as they come up or fail (and when that calls for purging tor's state for the peer), and
// the callee's answer.
#include "CallEngine.h"
#include "CallLog.h"
#include "OutgoingDial.h"
#include "tor/OnionAddress.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>
#include <algorithm>

namespace onionvoice::call {

using namespace std::chrono_literals;

namespace {

// After tor acknowledged an introduction, how long a live peer may take to come to the rendezvous
// before the introduction counts as unanswered: its tor builds one circuit to the rendezvous
// point, and builds it again if that fails.
constexpr auto kRendezvousGrace = 5s;

// How long a caller told that our calls crossed waits for the callee's call: its Hello left about
// when ours did, and a link to us opened in seconds on the way over.
constexpr std::chrono::milliseconds kCrossingCallWait = 30s;

} // namespace

void CallEngine::dial(const QString& address) {
    const tor::AddressCheck check = tor::checkOnionAddress(address);
    if (!check.isValid()) {
        emit errorOccurred(check.reason);
        return;
    }
    // Our own service would take it for a stranger's ring while we are busy: 30 s of "Ringing",
    // then "no answer" (a review found it, through onionvoice-cli).
    if (check.address == this->address()) {
        emit errorOccurred(QCoreApplication::translate(
            "CallEngine", "This is your own ID: you cannot call yourself."));
        return;
    }
    if (call_) {
        emit errorOccurred(
            QCoreApplication::translate("CallEngine", "A call is already under way."));
        return;
    }
    // Before the peer's phone rings: audio that cannot start would end the call the moment they
    // answer, and they would hear nothing but a hang-up.
    if (const QString missing = missingAudio(); !missing.isEmpty()) {
        emit errorOccurred(
            QCoreApplication::translate("CallEngine", "Cannot call: %1").arg(missing));
        return;
    }
    tor::TorLauncher* launcher = host_.launcher();
    if (!launcher || !torSocksEndpoint(*launcher).isSet()) {
        emit errorOccurred(QCoreApplication::translate("CallEngine", "Tor is not ready yet."));
        return;
    }
    call_ = std::make_unique<CallSession>(CallDirection::Outgoing, check.address);
    call_->frameObserver = config_.frameObserver;
    call_->ephemeral = std::make_unique<EphemeralKey>();
    if (!setCallState(CallState::Dialing))
        return;
    armTimeout(config_.dialTimeout, EndReason::Unreachable);

    const QPointer<tor::TorLauncher> tor = launcher;
    call_->pool = createOutgoingPool(
        {[tor] { return tor ? torSocksEndpoint(*tor) : net::SocksEndpoint{}; }, check.address,
         config_.servicePort, config_.parameters.links, config_.slotSocksPorts,
         [this, session = call_.get()](std::uint8_t slot) {
             return firstRecordFor(session, slot);
         }},
        this);
    connect(call_->pool, &net::LinkPool::linkUp, this, &CallEngine::onPoolLinkUp);
    connect(call_->pool, &net::LinkPool::linkDown, this, &CallEngine::onPoolLinkDown);
    connect(
        call_->pool, &net::LinkPool::recordReceived, this,
        [this](std::uint8_t slot, const QByteArray& record) { onRecord(slot, record, nullptr); });
    connect(call_->pool, &net::LinkPool::attemptSlow, this, &CallEngine::onPoolAttemptSlow);
    relinkRescue_.startCall();
    const auto contact = contacts_.find(check.address);
    dialHandshakeLink(call_->pool, launcher->controller(), check.address,
                      contact ? contact->outboundAuthPrivateKey : QByteArray());
}

// Each link proves itself with the first record it sends, and sends it with its SOCKS request:
// tor carries it right behind the stream's BEGIN, so the callee reads it as soon as it takes the
// stream. Sent once the link was open, it arrived a circuit round trip later, and a callee
// flooded with silent streams closed the link for its silence first (it closes the longest
// silent one when too many wait): an attacker cycling streams on a few circuits kept every
// caller out (tests/security/tst_streamcycling). Before the answer only the handshake link is
// dialled, and each of its attempts carries a Hello of its own (the one of the attempt that
// opens is the call's); once there are keys every attempt carries its slot's Join.
// An ended call's pool lingers with it a moment and may still dial (a replacement for a link the
// peer closed): a record of the call now under way must never go there.
QByteArray CallEngine::firstRecordFor(const CallSession* session, std::uint8_t slot) {
    if (call_.get() != session)
        return {};
    SealedRecord record;
    if (call_->keys) {
        record = encodeHandshake(makeJoin(*call_->keys, slot));
    } else {
        if (call_->state != CallState::Dialing)
            return {};
        call_->controlSlot = slot;
        call_->hello = makeHello(*host_.identity(), call_->peer, *call_->ephemeral,
                                 config_.parameters, slot, unixNow());
        call_->hellosSent.push_back(call_->hello);
        record = encodeHandshake(call_->hello);
    }
    return QByteArray(reinterpret_cast<const char*>(record.data()), qsizetype(record.size()));
}

void CallEngine::onPoolLinkUp(std::uint8_t slot) {
    if (!call_)
        return;
    ++call_->counters[slot].sent; // its Hello or Join (firstRecordFor)
    if (!call_->keys) {
        if (slot == call_->controlSlot)
            call_->slotStates[slot] = CallSession::SlotState::Joining; // its Hello is out
        return; // other links join once the call has keys
    }
    relinkRescue_.linkUp(slot);
    call_->slotUp(slot);
}

void CallEngine::onPoolLinkDown(std::uint8_t slot) {
    // Waiting for the callee's crossing call, which its engine closes our attempts for.
    if (!call_ || call_->crossing == CallSession::Crossing::TheirsGoesOn)
        return;
    const auto state = call_->slotStates[slot];
    // The handshake link broke before the answer (an attempt that never opened is retried).
    const bool handshakeLost =
        !call_->keys && slot == call_->controlSlot && state == CallSession::SlotState::Joining;
    // A slot that was not up lost an attempt to open its link, not a working link; before the
    // answer, the handshake slot's attempt.
    const bool attemptFailed = call_->keys ? state != CallSession::SlotState::Up : !handshakeLost;
    call_->slotLost(slot);
    const net::OnionLink* attempt = call_->pool ? call_->pool->link(slot) : nullptr;
    const auto failure = attempt
                             ? RelinkRescue::classify(attempt->failure(), attempt->socksReplyCode())
                             : RelinkRescue::Failure::Other;
    const auto now = RelinkRescue::Clock::now();
    if (attemptFailed && call_->keys) {
        if (relinkRescue_.attemptFailed(slot, now, failure, callLinks()))
            purgeIfCallStillWorks();
    } else if (attemptFailed && relinkRescue_.dialAttemptFailed(call_->peer, slot, now, failure)) {
        qCInfo(lcCall) << "link attempts keep failing: purging tor's onion-service client state";
        purgeTorStateForPeer();
    }
    if (handshakeLost)
        end(EndReason::NetworkFailure);
}

// Working: one is up and the peer was heard within a second, as SilentLinkWatch counts it alive.
// When the peer's app died its links closed one by one: in tests/faults peer_kill the first
// replacement was answered "introduction failed" while two of them were still up.
RelinkRescue::CallLinks CallEngine::callLinks() const {
    const bool working = std::ranges::find(call_->slotStates, CallSession::SlotState::Up) !=
                             call_->slotStates.end() &&
                         !call_->peerSilentFor(1s);
    return working ? RelinkRescue::CallLinks::Working : RelinkRescue::CallLinks::NoneWorking;
}

// The call's links may be those of a peer whose tor is dying (RelinkRescue::kConfirmDelay): the
// purge waits to see the call still working.
void CallEngine::purgeIfCallStillWorks() {
    QTimer::singleShot(RelinkRescue::kConfirmDelay, this,
                       [this, pool = QPointer<net::LinkPool>(call_->pool)] {
                           if (!pool || !call_ || call_->pool != pool ||
                               callLinks() != RelinkRescue::CallLinks::Working) {
                               qCInfo(lcCall) << "the call stopped working: no purge";
                               relinkRescue_.purgeWithdrawn();
                               return;
                           }
                           qCInfo(lcCall) << "link attempts keep failing: purging tor's"
                                          << "onion-service client state";
                           purgeTorStateForPeer();
                       });
}

// The handshake link's attempt has not opened within the hedge delay. When tor introduced it and
// the peer still has not come to the rendezvous a grace period later, tor's cached descriptor for
// the peer lists introduction points of a tor that no longer answers (introducedWithoutRendezvous),
// and the hedge's attempt beside it waits the same way: for a peer we were in a call with lately
// (RelinkRescue) tor's state is purged, and the slot dialled afresh, so that tor fetches the
// peer's new descriptor. Before, the dial waited so until it timed out, although the peer was back
// and reachable. The second look spares a live peer whose introduction was merely acknowledged
// late (after a slow descriptor fetch) and whose rendezvous is on its way: a purge replaces tor's
// layer-2 relays, and may be spent once per 10 minutes only.
void CallEngine::onPoolAttemptSlow(std::uint8_t slot, const QByteArray& isolationKey) {
    if (!call_ || call_->keys || slot != call_->controlSlot)
        return;
    tor::TorLauncher* launcher = host_.launcher();
    if (!launcher)
        return;
    whenLeftWaitingForRendezvous(
        launcher->controller(), isolationKey, kRendezvousGrace,
        [this, pool = QPointer<net::LinkPool>(call_->pool), slot, isolationKey] {
            // Still the same attempt, still not open: one that opened meanwhile has sent its
            // Hello, and a replacement now would end the call it started.
            const net::OnionLink* attempt = pool ? pool->link(slot) : nullptr;
            if (!attempt || attempt->state() == net::OnionLink::State::Open ||
                pool->isolationKey(slot) != isolationKey || !call_ || call_->pool != pool ||
                call_->state != CallState::Dialing ||
                !relinkRescue_.dialAttemptFailed(call_->peer, slot, RelinkRescue::Clock::now(),
                                                 RelinkRescue::Failure::ClientStateStuck))
                return;
            qCInfo(lcCall) << "introduced, and the peer never came to the rendezvous: purging"
                           << "tor's onion-service client state and dialling again";
            purgeTorStateForPeer();
            pool->replace(slot);
        });
}

void CallEngine::purgeTorStateForPeer() {
    const auto contact = contacts_.find(call_->peer);
    resetPeerState(host_.launcher()->controller(), call_->peer,
                   contact ? contact->outboundAuthPrivateKey : QByteArray());
}

// A tor started after a crash lacks the peer's client key: every relink to a contacts-only peer
// would fail with "client authorization missing" until a rescue, which runs at most every 10
// minutes, happened to add it again.
void CallEngine::onTorControlReady() {
    if (!call_ || call_->direction != CallDirection::Outgoing)
        return;
    if (const auto contact = contacts_.find(call_->peer))
        restorePeerAuthorization(host_.launcher()->controller(), call_->peer,
                                 contact->outboundAuthPrivateKey);
}

void CallEngine::onCallerHandshake(const HandshakeMessage& message) {
    // The callee's call to us goes on instead (crossing calls): what its engine says of our
    // attempts now (a twin's refusal) is over, and its Hello will come.
    if (call_->crossing == CallSession::Crossing::TheirsGoesOn)
        return;
    if (const auto* refusal = std::get_if<Refusal>(&message);
        refusal && refusal->reason == RefusalReason::Crossed) {
        qCInfo(lcCall) << "our calls crossed: waiting for the callee's call";
        call_->crossing = CallSession::Crossing::TheirsGoesOn;
        if (call_->pool)
            call_->pool->halt();
        // Its Hello is on its way, as ours came; one that never comes (its caller hung up, or
        // its dial failed) ends the wait, where the rest of a dial timeout held "Calling…".
        armTimeout(std::min(kCrossingCallWait, call_->timeout->remaining()),
                   EndReason::Unreachable);
        return;
    }
    if (std::holds_alternative<Ringing>(message)) {
        if (call_->state == CallState::Dialing) {
            if (setCallState(CallState::Ringing))
                armTimeout(config_.ringTimeout + 10s, EndReason::NoAnswer);
        }
    } else if (const auto* refusal = std::get_if<Refusal>(&message)) {
        end(endReasonFor(refusal->reason));
    } else if (const auto* accept = std::get_if<Accept>(&message)) {
        // The answer is for the Hello of the attempt the callee took first: with a second
        // attempt beside a slow one (a twin), not always the latest.
        const auto& sent = call_->hellosSent;
        const auto answered = std::find_if(sent.begin(), sent.end(), [&](const Hello& hello) {
            return !verifyAccept(*accept, hello);
        });
        if (answered == sent.end()) {
            qCWarning(lcCall) << "refusing the answer:"
                              << verifyAccept(*accept, call_->hello).value_or(QString());
            end(EndReason::ProtocolError);
            return;
        }
        call_->hello = *answered;
        call_->keys = deriveCallKeys(Role::Caller, *call_->ephemeral, call_->hello, *accept);
        call_->ephemeral.reset(); // the keys exist: the ephemeral secret is no longer needed
        if (!call_->keys) {
            end(EndReason::ProtocolError);
            return;
        }
        call_->agreed = accept->agreed;
        if (activate())
            call_->pool->start(call_->agreed.links);
    } else {
        end(EndReason::ProtocolError);
    }
}

} // namespace onionvoice::call
