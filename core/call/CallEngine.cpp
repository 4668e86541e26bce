// The call engine: the call state machine. It starts the service host, lets callers ring,
// dials out, answers, and ends calls; the slots and records of a call live in its CallSession.
#include "CallEngine.h"

#include "CallStatisticsSnapshot.h"
#include "OutgoingDial.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionAddress.h"

#include <QDateTime>
#include <QDir>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcCall, "onionvoice.call")

namespace onionvoice::call {
namespace {

using namespace std::chrono_literals;

constexpr auto kTickInterval = 10ms;
constexpr int kTicksPerStatistics = 25; // four snapshots a second
constexpr auto kMaxClockSkew = 10min;
constexpr auto kLingerBeforeClose = 300ms; // lets the last records reach tor before closing

EndReason endReasonFor(RefusalReason reason) {
    switch (reason) {
    case RefusalReason::Rejected:
        return EndReason::RejectedByPeer;
    case RefusalReason::Busy:
        return EndReason::Busy;
    case RefusalReason::NotAccepted:
        return EndReason::NotAccepted;
    case RefusalReason::BadRequest:
        return EndReason::ProtocolError;
    case RefusalReason::NoAnswer:
        return EndReason::NoAnswer;
    case RefusalReason::Cancelled:
        return EndReason::Cancelled;
    }
    return EndReason::ProtocolError;
}

std::chrono::milliseconds unixNow() {
    return std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch());
}

} // namespace

CallEngine::CallEngine(EngineConfig config, QObject* parent)
    : QObject(parent)
    , config_(std::move(config))
    , contacts_(QDir(config_.dataDirectory).filePath(QStringLiteral("contacts.json")))
    , incoming_(config_.linkProofTimeout, [this](const net::OnionLink* link) {
        return call_ &&
               std::find(call_->links.begin(), call_->links.end(), link) != call_->links.end();
    }) {
    qRegisterMetaType<CallStatistics>();
    tick_.setTimerType(Qt::PreciseTimer);
    tick_.setInterval(kTickInterval);
    connect(&tick_, &QTimer::timeout, this, &CallEngine::tick);
    connect(&host_, &ServiceHost::torStateChanged, this, &CallEngine::torStateChanged);
    connect(&host_, &ServiceHost::serviceStateChanged, this, &CallEngine::serviceStateChanged);
    connect(&host_, &ServiceHost::linkAccepted, &incoming_, &IncomingLinks::adopt);
    connect(&incoming_, &IncomingLinks::helloReceived, this, &CallEngine::onIncomingHello);
    connect(&incoming_, &IncomingLinks::joinReceived, this, &CallEngine::onJoin);
}

CallEngine::~CallEngine() {
    stop();
}

bool CallEngine::start(QString* error) {
    if (const auto bad = checkParameters(config_.parameters)) {
        *error = *bad;
        return false;
    }
    if (!host_.loadIdentity(config_.dataDirectory, error))
        return false;
    const auto loaded = contacts_.load();
    if (!loaded.message.isEmpty())
        emit errorOccurred(loaded.message);

    if (config_.preset == tor::SecurityPreset::OneWayHotline &&
        config_.access == ServiceAccess::ContactsOnly) {
        // Client authorization would need the keys in the hotline tor's own files: not offered.
        *error = QStringLiteral("The one-way hotline cannot be limited to contacts.");
        return false;
    }
    ServiceHostConfig hostConfig;
    hostConfig.dataDirectory = config_.dataDirectory;
    hostConfig.torExecutable = config_.torExecutable;
    hostConfig.extraTorrcLines = config_.extraTorrcLines;
    hostConfig.preset = config_.preset;
    hostConfig.servicePort = config_.servicePort;
    if (config_.access == ServiceAccess::ContactsOnly)
        hostConfig.clientAuthPublicKeys = allowedClientKeys();
    return host_.start(hostConfig, error);
}

void CallEngine::stop() {
    if (call_)
        end(EndReason::HungUpLocally);
    closeEndedCalls();
    host_.stop();
}

QList<QByteArray> CallEngine::allowedClientKeys() const {
    QList<QByteArray> keys;
    for (const contacts::Contact& c : contacts_.contacts())
        if (c.allowlisted && !c.blocked && c.inboundAuthPublicKey.size() == 32)
            keys.append(tor::ClientAuthKey::encodePublicKey(
                std::span<const std::uint8_t, 32>(bytesOf(c.inboundAuthPublicKey).first<32>())));
    return keys;
}

void CallEngine::setCallState(CallState state) {
    call_->state = state;
    emit callStateChanged(state, call_->peer, EndReason::None);
}

void CallEngine::armTimeout(std::chrono::milliseconds after, EndReason reason) {
    if (!call_->timeout) {
        call_->timeout = std::make_unique<QTimer>();
        call_->timeout->setSingleShot(true);
    }
    call_->timeout->disconnect();
    connect(call_->timeout.get(), &QTimer::timeout, this, [this, reason] {
        if (call_ && call_->direction == CallDirection::Incoming && reason == EndReason::NoAnswer)
            call_->sendOnSlot(call_->controlSlot,
                              encodeHandshake(Refusal{RefusalReason::NoAnswer}));
        end(reason);
    });
    call_->timeout->start(after);
}

// ---- outgoing calls ----

void CallEngine::dial(const QString& address) {
    const tor::AddressCheck check = tor::checkOnionAddress(address);
    if (!check.isValid()) {
        emit errorOccurred(check.reason);
        return;
    }
    tor::TorLauncher* launcher = host_.launcher();
    if (call_ || !launcher || launcher->socksPort() == 0) {
        emit errorOccurred(call_ ? QStringLiteral("A call is already under way.")
                                 : QStringLiteral("Tor is not ready yet."));
        return;
    }
    call_ = std::make_unique<CallSession>(CallDirection::Outgoing, check.address);
    call_->frameObserver = config_.frameObserver;
    call_->ephemeral = std::make_unique<EphemeralKey>();
    setCallState(CallState::Dialing);
    armTimeout(config_.dialTimeout, EndReason::Unreachable);

    call_->pool = createOutgoingPool({launcher->socksPort(), check.address, config_.servicePort,
                                      config_.parameters.links, config_.slotSocksPorts},
                                     this);
    connect(call_->pool, &net::LinkPool::linkUp, this, &CallEngine::onPoolLinkUp);
    connect(call_->pool, &net::LinkPool::linkDown, this, &CallEngine::onPoolLinkDown);
    connect(call_->pool, &net::LinkPool::recordReceived, this, &CallEngine::onRecord);
    relinkRescue_ = RelinkRescue{};
    const auto contact = contacts_.find(check.address);
    dialHandshakeLink(call_->pool, launcher->controller(), check.address,
                      contact ? contact->outboundAuthPrivateKey : QByteArray());
}

void CallEngine::onPoolLinkUp(std::uint8_t slot) {
    if (!call_)
        return;
    if (!call_->keys) {
        if (call_->state == CallState::Dialing && call_->hello.caller.isEmpty()) {
            call_->controlSlot = slot;
            call_->hello = makeHello(*host_.identity(), call_->peer, *call_->ephemeral,
                                     config_.parameters, slot, unixNow());
            call_->sendOnSlot(slot, encodeHandshake(call_->hello));
        }
        return; // other links join once the call has keys
    }
    call_->sendOnSlot(slot, encodeHandshake(makeJoin(*call_->keys, slot)));
    relinkRescue_.linkUp(slot);
    call_->slotStates[slot] = CallSession::SlotState::Up;
    call_->endpoint->linkUp(slot);
}

void CallEngine::onPoolLinkDown(std::uint8_t slot) {
    if (!call_)
        return;
    // A slot that was not up lost an attempt to open its link, not a working link.
    const bool attemptFailed = call_->keys && call_->slotStates[slot] != CallSession::SlotState::Up;
    call_->slotLost(slot);
    if (attemptFailed && relinkRescue_.attemptFailed(slot, RelinkRescue::Clock::now())) {
        qCInfo(lcCall) << "link attempts keep failing: purging tor's onion-service client state";
        const auto contact = contacts_.find(call_->peer);
        resetPeerState(host_.launcher()->controller(), call_->peer,
                       contact ? contact->outboundAuthPrivateKey : QByteArray());
    }
    if (!call_->keys && slot == call_->controlSlot && !call_->hello.caller.isEmpty())
        end(EndReason::NetworkFailure); // the handshake link broke before the answer
}

void CallEngine::onCallerHandshake(const HandshakeMessage& message) {
    if (std::holds_alternative<Ringing>(message)) {
        if (call_->state == CallState::Dialing) {
            setCallState(CallState::Ringing);
            armTimeout(config_.ringTimeout + 10s, EndReason::NoAnswer);
        }
    } else if (const auto* refusal = std::get_if<Refusal>(&message)) {
        end(endReasonFor(refusal->reason));
    } else if (const auto* accept = std::get_if<Accept>(&message)) {
        if (const auto bad = verifyAccept(*accept, call_->hello)) {
            qCWarning(lcCall) << "refusing the answer:" << *bad;
            end(EndReason::ProtocolError);
            return;
        }
        call_->keys = deriveCallKeys(Role::Caller, *call_->ephemeral, call_->hello, *accept);
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

// ---- incoming calls ----

void CallEngine::refuseIncoming(net::OnionLink* link, const QString& peer, RefusalReason reason,
                                EndReason local) {
    incoming_.refuse(link, reason);
    emit callRefused(peer, local);
}

void CallEngine::onIncomingHello(net::OnionLink* link, const Hello& hello) {
    if (const auto bad = verifyHello(hello, address(), unixNow(), kMaxClockSkew)) {
        qCWarning(lcCall) << "refusing a call:" << *bad;
        refuseIncoming(link, hello.caller, RefusalReason::BadRequest, EndReason::ProtocolError);
        return;
    }
    const auto contact = contacts_.find(hello.caller);
    if (contact && contact->blocked) {
        refuseIncoming(link, hello.caller, RefusalReason::NotAccepted, EndReason::NotAccepted);
        return;
    }
    if (!contact && config_.unknownCallers == UnknownCallers::Refuse) {
        refuseIncoming(link, hello.caller, RefusalReason::NotAccepted, EndReason::NotAccepted);
        return;
    }
    if (call_) {
        refuseIncoming(link, hello.caller, RefusalReason::Busy, EndReason::Busy);
        return;
    }
    call_ = std::make_unique<CallSession>(CallDirection::Incoming, hello.caller);
    call_->frameObserver = config_.frameObserver;
    call_->hello = hello;
    call_->controlSlot = hello.slot;
    call_->slotStates[hello.slot] = CallSession::SlotState::Joining;
    attachIncoming(link, hello.slot);
    link->sendRecord(encodeHandshake(Ringing{}));
    setCallState(CallState::Ringing);
    armTimeout(config_.ringTimeout, EndReason::NoAnswer);
    emit incomingCall(hello.caller, contact ? contact->displayName : QString());
}

void CallEngine::onJoin(net::OnionLink* link, const Join& join) {
    if (!call_ || !call_->keys || call_->direction != CallDirection::Incoming ||
        join.slot >= call_->agreed.links || !verifyJoin(*call_->keys, join)) {
        qCWarning(lcCall) << "closing a link with a wrong join token";
        if (call_)
            ++call_->rejected;
        discard(link);
        return;
    }
    if (call_->links[join.slot])
        call_->closeSlot(join.slot, QStringLiteral("replaced"));
    attachIncoming(link, join.slot);
    call_->slotStates[join.slot] = CallSession::SlotState::Up;
    call_->endpoint->linkUp(join.slot);
}

void CallEngine::attachIncoming(net::OnionLink* link, std::uint8_t slot) {
    call_->links[slot] = link;
    connect(link, &net::OnionLink::recordReceived, this,
            [this, slot](const QByteArray& record) { onRecord(slot, record); });
    connect(link, &net::OnionLink::failed, this, [this, slot, link] {
        if (!call_ || call_->links[slot] != link)
            return;
        call_->links[slot] = nullptr;
        call_->slotLost(slot);
        if (!call_->keys && slot == call_->controlSlot)
            end(EndReason::Cancelled); // the caller went away while it was ringing
    });
}

void CallEngine::answer() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    call_->ephemeral = std::make_unique<EphemeralKey>();
    call_->agreed = agreeParameters(call_->hello.proposed, config_.parameters);
    const Accept accept =
        makeAccept(*host_.identity(), call_->hello, *call_->ephemeral, call_->agreed);
    call_->keys = deriveCallKeys(Role::Callee, *call_->ephemeral, call_->hello, accept);
    if (!call_->keys) {
        end(EndReason::ProtocolError);
        return;
    }
    call_->sendOnSlot(call_->controlSlot, encodeHandshake(accept));
    activate();
}

void CallEngine::reject() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    call_->sendOnSlot(call_->controlSlot, encodeHandshake(Refusal{RefusalReason::Rejected}));
    end(EndReason::RejectedLocally);
}

void CallEngine::hangUp() {
    if (!call_ || call_->state == CallState::Ended)
        return;
    if (call_->keys) {
        end(EndReason::HungUpLocally);
    } else if (call_->direction == CallDirection::Incoming) {
        reject();
    } else {
        if (!call_->hello.caller.isEmpty())
            call_->sendOnSlot(call_->controlSlot,
                              encodeHandshake(Refusal{RefusalReason::Cancelled}));
        end(EndReason::Cancelled);
    }
}

void CallEngine::setMuted(bool muted) {
    microphone_ = muted ? media::Microphone::Muted : media::Microphone::Live;
    if (call_ && call_->audio)
        call_->audio->setMicrophone(microphone_);
}

void CallEngine::setUnknownCallers(UnknownCallers policy) {
    config_.unknownCallers = policy;
}

// ---- the active call ----

// Both sides, once the keys exist: the data path, the handshake link joins the call, audio starts.
bool CallEngine::activate() {
    call_->startDataPath();
    QString error;
    auto backend = config_.audio ? config_.audio(&error) : nullptr;
    media::AudioEngineSettings audio;
    audio.processing = config_.processing;
    audio.encoder.bitrate = int(call_->agreed.bitrate);
    audio.encoder.packetPeriod = std::chrono::milliseconds(call_->agreed.packetMs);
    audio.jitter.packetPeriod = audio.encoder.packetPeriod;
    if (backend) {
        CallSession* call = call_.get();
        call_->audio = std::make_unique<media::AudioEngine>(std::move(backend), audio,
                                                            [call] { return call->now(); });
        connect(call_->audio.get(), &media::AudioEngine::packetReady, this,
                &CallEngine::sendPacket);
        call_->audio->setMicrophone(microphone_);
        if (!call_->audio->start(&error))
            call_->audio.reset();
    }
    if (!call_->audio) {
        emit errorOccurred(QStringLiteral("Audio could not start: %1").arg(error));
        end(EndReason::HungUpLocally);
        return false;
    }
    if (call_->timeout)
        call_->timeout->stop();
    setCallState(CallState::Active);
    ticks_ = 0;
    tick_.start();
    return true;
}

void CallEngine::onRecord(std::uint8_t slot, const QByteArray& record) {
    if (!call_ || call_->state == CallState::Ended || slot >= multipath::kMaxLinks)
        return;
    ++call_->counters[slot].received;
    if (call_->keys) {
        if (call_->receiveSealed(slot, record) == CallSession::Received::HangUp)
            end(EndReason::HungUpByPeer);
        return;
    }
    // Before the answer only the caller's handshake link carries (plain) messages.
    const HandshakeDecode decoded = decodeHandshake(bytesOf(record));
    if (call_->direction == CallDirection::Outgoing && slot == call_->controlSlot &&
        decoded.message) {
        onCallerHandshake(*decoded.message);
        return;
    }
    if (call_->direction == CallDirection::Incoming && decoded.message &&
        std::holds_alternative<Refusal>(*decoded.message)) {
        end(endReasonFor(std::get<Refusal>(*decoded.message).reason));
        return;
    }
    if (slot == call_->controlSlot) {
        qCWarning(lcCall) << "unexpected handshake message:" << decoded.error;
        end(EndReason::ProtocolError);
        return;
    }
    call_->closeSlot(slot, decoded.error.isEmpty() ? QStringLiteral("unexpected message")
                                                   : decoded.error);
}

void CallEngine::tick() {
    if (!call_ || call_->state != CallState::Active)
        return;
    // Records flow 25 times a second both ways, even in silence: this long without one genuine
    // record means the peer is gone, whatever the state of our TCP streams.
    if (call_->now() - call_->lastAuthenticated > config_.networkLossTimeout) {
        end(EndReason::NetworkFailure);
        return;
    }
    if (++ticks_ % kTicksPerStatistics == 0) {
        // The peer's view of our loss does not travel back (yet); the paths are symmetric enough
        // for our own receive loss to set the strength of the FEC we send.
        call_->audio->setPeerLossPercent(call_->audio->receiveLossPercent());
        publishStatistics();
    }
}

void CallEngine::sendPacket(std::uint32_t sequence, const QByteArray& packet) {
    if (!call_ || call_->state != CallState::Active)
        return;
    call_->sendPacket(sequence, packet);
}

void CallEngine::publishStatistics() {
    emit statisticsChanged(snapshotStatistics(*call_));
    call_->startSnapshotInterval();
}

void CallEngine::end(EndReason reason) {
    if (!call_)
        return;
    tick_.stop();
    if (call_->timeout)
        call_->timeout->stop();
    if (call_->sealer) {
        for (std::uint8_t slot = 0; slot < multipath::kMaxLinks; ++slot)
            if (call_->slotStates[slot] == CallSession::SlotState::Up)
                call_->sendSealed(slot, encodeControl(ControlCode::HangUp));
    }
    if (call_->audio) {
        publishStatistics();
        call_->audio->stop();
        call_->audio.reset();
    }
    // The engine is free for the next call at once; the old call's links only linger a moment,
    // detached from the engine, so that the last records reach the peer.
    std::unique_ptr<CallSession> call = std::move(call_);
    call->state = CallState::Ended;
    call->detach(this);
    qCDebug(lcCall) << "call with" << call->peer << "ended:" << describe(reason);
    const QString peer = call->peer;
    ended_.push_back(std::move(call));
    QTimer::singleShot(kLingerBeforeClose, this, &CallEngine::closeEndedCalls);
    emit callStateChanged(CallState::Ended, peer, reason);
}

void CallEngine::closeEndedCalls() {
    ended_.clear();
}

} // namespace onionvoice::call
