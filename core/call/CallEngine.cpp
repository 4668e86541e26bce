// The call engine: the call state machine. It starts the service host, dials out, answers and
// ends calls; callers ring through CallEngineIncoming.cpp, and the slots and records of a call
// live in its CallSession.
#include "CallEngine.h"

#include "CallStatisticsSnapshot.h"
#include "OutgoingDial.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionAddress.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QLoggingCategory>
#include <QPointer>
#include <algorithm>

// Never an address or a key in the log; debug output is off unless enabled (QT_LOGGING_RULES).
Q_LOGGING_CATEGORY(lcCall, "onionvoice.call", QtInfoMsg)

namespace onionvoice::call {
namespace {

using namespace std::chrono_literals;

constexpr auto kTickInterval = 10ms;
constexpr int kTicksPerStatistics = 25; // four snapshots a second
constexpr std::size_t kReplayCacheCapacity = 4096;
// Callers whose ring rate is tracked (EngineConfig::defence); the quietest is forgotten first.
constexpr std::size_t kRateLimitedCallers = 256;

// What the app shows of an audio failure, translated where the app loaded a translation (the
// device's own words stay as the audio library gives them).
QString audioProblem(const QString& error) {
    return error.isEmpty() ? QCoreApplication::translate("CallEngine", "no audio device") : error;
}

} // namespace

std::chrono::milliseconds CallEngine::unixNow() {
    return std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch());
}

CallEngine::CallEngine(EngineConfig config, QObject* parent)
    : QObject(parent)
    , config_(std::move(config))
    , contacts_(QDir(config_.dataDirectory).filePath(QStringLiteral("contacts.json")))
    , incoming_(IncomingLimits{config_.linkProofTimeout, config_.defence.maxUnprovenLinks,
                               config_.defence.maxDecoyRings},
                refusals_)
    , admission_({2 * kMaxClockSkew + 1min, kReplayCacheCapacity,
                  config_.defence.ringsPerCallerPerMinute, kRateLimitedCallers,
                  config_.defence.strangerRingsPerMinute}) {
    monotonic_.start();
    contacts_.setChangeListener([this] { onContactsChanged(); });
    qRegisterMetaType<CallStatistics>();
    tick_.setTimerType(Qt::PreciseTimer);
    tick_.setInterval(kTickInterval);
    connect(&tick_, &QTimer::timeout, this, &CallEngine::tick);
    connect(&host_, &ServiceHost::torStateChanged, this, &CallEngine::torStateChanged);
    connect(&host_, &ServiceHost::serviceStateChanged, this, &CallEngine::serviceStateChanged);
    connect(&host_, &ServiceHost::linkAccepted, &incoming_, &IncomingLinks::adopt);
    connect(&host_, &ServiceHost::torControlReady, this, &CallEngine::onTorControlReady);
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
    if (loaded.mayHaveLostEntries() && config_.unknownCallers == UnknownCallers::Ring) {
        // Blocks may be lost with what could not be read: fail closed until the user decides.
        config_.unknownCallers = UnknownCallers::Refuse;
        emit errorOccurred(QStringLiteral("Some contacts could not be read, so callers who are "
                                          "not in your contacts are refused until you choose "
                                          "again whether they may ring."));
    }

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
    if (config_.access == ServiceAccess::ContactsOnly) {
        hostConfig.access = tor::OnionService::Access::ClientAuthOnly;
        hostConfig.clientAuthPublicKeys = allowedClientKeys();
    }
    if (!host_.start(hostConfig, error))
        return false;
    if (config_.access == ServiceAccess::ContactsOnly && hostConfig.clientAuthPublicKeys.isEmpty())
        emit errorOccurred(QStringLiteral(
            "Contacts-only: no contact holds an access key yet, so your address is not "
            "published until one does (it would be open to everyone)."));
    return true;
}

// The allowlist is read again after every change of the book: a removed or blocked contact
// loses access at once (the service is published again with the new set of client keys).
void CallEngine::onContactsChanged() {
    if (config_.access == ServiceAccess::ContactsOnly && host_.service())
        host_.service()->setClientAuthPublicKeys(allowedClientKeys());
}

void CallEngine::stop() {
    if (call_)
        end(EndReason::HungUpLocally);
    ended_.clear();
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

// A slot connected directly may end or move the call on while the state is announced (hang up
// or answer on Ringing, even dial again): the transition then stops, since call_ is no longer the
// call, or no longer in the state, it was working on (an answer given on Ringing left the ring
// timeout armed, which ended the answered call).
bool CallEngine::setCallState(CallState state) {
    const CallSession* call = call_.get();
    call_->state = state;
    emit callStateChanged(state, call_->peer, EndReason::None);
    return call_.get() == call && call_->state == state;
}

void CallEngine::armTimeout(std::chrono::milliseconds after, EndReason reason) {
    if (!call_->timeout)
        call_->timeout = std::make_unique<SleepAwareTimer>();
    call_->timeout->disconnect();
    connect(call_->timeout.get(), &SleepAwareTimer::timeout, this, [this, reason] {
        if (call_ && call_->direction == CallDirection::Incoming && reason == EndReason::NoAnswer)
            call_->sendHandshake(encodeHandshake(Refusal{RefusalReason::NoAnswer}));
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
    connect(call_->pool, &net::LinkPool::recordReceived, this, &CallEngine::onRecord);
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
    if (!call_)
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
    // Working: one is up and the peer was heard within a second, as SilentLinkWatch counts it
    // alive. When the peer's app died its links closed one by one: in tests/faults peer_kill the
    // first replacement was answered "introduction failed" while two of them were still up.
    const bool working = std::ranges::find(call_->slotStates, CallSession::SlotState::Up) !=
                             call_->slotStates.end() &&
                         !call_->peerSilentFor(1s);
    const auto links =
        working ? RelinkRescue::CallLinks::Working : RelinkRescue::CallLinks::NoneWorking;
    const bool purge =
        attemptFailed &&
        (call_->keys ? relinkRescue_.attemptFailed(slot, now, failure, links)
                     : relinkRescue_.dialAttemptFailed(call_->peer, slot, now, failure));
    if (purge) {
        qCInfo(lcCall) << "link attempts keep failing: purging tor's onion-service client state";
        const auto contact = contacts_.find(call_->peer);
        resetPeerState(host_.launcher()->controller(), call_->peer,
                       contact ? contact->outboundAuthPrivateKey : QByteArray());
    }
    if (handshakeLost)
        end(EndReason::NetworkFailure);
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

// ---- incoming calls (who may ring, the ring, joining links: CallEngineIncoming.cpp) ----

Millis CallEngine::monotonicNow() const {
    return Millis(monotonic_.elapsed());
}

void CallEngine::answer() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    call_->ephemeral = std::make_unique<EphemeralKey>();
    call_->agreed = agreeParameters(call_->hello.proposed, config_.parameters);
    const Accept accept =
        makeAccept(*host_.identity(), call_->hello, *call_->ephemeral, call_->agreed);
    call_->keys = deriveCallKeys(Role::Callee, *call_->ephemeral, call_->hello, accept);
    call_->ephemeral.reset(); // the keys exist: the ephemeral secret is no longer needed
    if (!call_->keys) {
        end(EndReason::ProtocolError);
        return;
    }
    call_->accept = accept;
    call_->sendHandshake(encodeHandshake(accept));
    activate();
}

void CallEngine::reject() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    call_->sendHandshake(encodeHandshake(Refusal{RefusalReason::Rejected}));
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

// The user's choice, made after the notice that contacts were lost: the book stops failing
// closed at start.
void CallEngine::setUnknownCallers(UnknownCallers policy) {
    config_.unknownCallers = policy;
    if (!contacts_.entriesLost())
        return;
    contacts_.forgetLostEntries();
    QString error;
    if (!contacts_.save(&error))
        qCWarning(lcCall).noquote() << error;
}

// ---- the active call ----

// Why the devices a call opens are not there now (their own words), or empty when they are or
// nothing tells (EngineConfig::audioDevicesPresent unset).
QString CallEngine::missingAudio() const {
    QString error;
    if (!config_.audioDevicesPresent || config_.audioDevicesPresent(&error))
        return {};
    return audioProblem(error);
}

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
        // Queued: the audio engine is in its pump. The device is gone for this call (PortAudio
        // cannot follow it); a call that goes on silent both ways helps nobody.
        connect(
            call_->audio.get(), &media::AudioEngine::deviceStopped, this,
            [this, engine = call_->audio.get()](media::DeviceSide side) {
                if (!call_ || call_->audio.get() != engine)
                    return;
                emit errorOccurred(side == media::DeviceSide::Capture
                                       ? QCoreApplication::translate(
                                             "CallEngine", "The microphone stopped working.")
                                       : QCoreApplication::translate(
                                             "CallEngine", "The speaker stopped working."));
                end(EndReason::AudioFailed);
            },
            Qt::QueuedConnection);
        call_->audio->setMicrophone(microphone_);
        if (!call_->audio->start(&error))
            call_->audio.reset();
    }
    // The error goes out first: the app shows it with the end (this end reason is only ever
    // announced straight after it). The peer gets the usual HangUp; our own reason is not theirs.
    if (!call_->audio) {
        emit errorOccurred(QCoreApplication::translate("CallEngine", "Audio could not start: %1")
                               .arg(audioProblem(error)));
        end(EndReason::AudioFailed);
        return false;
    }
    if (call_->timeout)
        call_->timeout->stop();
    if (!setCallState(CallState::Active))
        return false;
    ticks_ = 0;
    tick_.start();
    return true;
}

void CallEngine::onRecord(std::uint8_t slot, const QByteArray& record) {
    if (!call_ || call_->state == CallState::Ended || slot >= multipath::kMaxLinks)
        return;
    ++call_->counters[slot].received;
    // The network-loss timeout passed while the tick could not run (this machine was suspended
    // or stopped): the call is lost before the records that waited in the buffers are read. The
    // peer, which heard nothing from us meanwhile, has ended it for the same reason, and the
    // HangUp it sent then does not mean that someone hung up. Before, that HangUp, read at the
    // resume, ended the call as "the other side hung up" (tests/faults callee_suspend).
    if (call_->state == CallState::Active && call_->peerSilentFor(config_.networkLossTimeout)) {
        end(EndReason::NetworkFailure);
        return;
    }
    if (call_->keys) {
        // A caller that hung up while we answered sends a plain Cancelled on the control slot:
        // a refusal, not a forged record.
        if (call_->direction == CallDirection::Incoming && slot == call_->controlSlot) {
            const HandshakeDecode plain = decodeHandshake(bytesOf(record));
            if (plain.message && std::holds_alternative<Refusal>(*plain.message)) {
                end(endReasonFor(std::get<Refusal>(*plain.message).reason));
                return;
            }
        }
        switch (call_->receiveSealed(slot, record)) {
        case CallSession::Received::HangUp:
            end(EndReason::HungUpByPeer);
            break;
        case CallSession::Received::OverRate:
            ++refusals_.recordsOverRate;
            break;
        case CallSession::Received::Replayed:
            ++refusals_.recordsReplayed;
            break;
        default:
            break;
        }
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
    if (call_->peerSilentFor(config_.networkLossTimeout)) {
        end(EndReason::NetworkFailure);
        return;
    }
    if (++ticks_ % kTicksPerStatistics == 0) {
        call_->closeSilentLinks();
        // The peer's view of our loss does not travel back (yet); the paths are symmetric enough
        // for our own receive loss to set the strength of the FEC we send.
        call_->audio->setPeerLossPercent(call_->audio->receiveLossPercent());
        publishStatistics(*call_);
    }
}

void CallEngine::sendPacket(std::uint32_t sequence, const QByteArray& packet) {
    if (!call_ || call_->state != CallState::Active)
        return;
    call_->sendPacket(sequence, packet);
}

// A slot connected directly may end the call while its statistics are announced; `call` then
// lives on among the ended calls until its linger is over.
void CallEngine::publishStatistics(CallSession& call) {
    emit statisticsChanged(snapshotStatistics(call));
    call.startSnapshotInterval();
}

void CallEngine::end(EndReason reason) {
    if (!call_)
        return;
    // The engine is free for the next call at once, before anything is announced: a slot
    // connected directly that hangs up on the final statistics finds no call to end again.
    std::unique_ptr<CallSession> call = std::move(call_);
    tick_.stop();
    if (call->timeout)
        call->timeout->stop();
    if (call->sealer) {
        // One HangUp, on the control link if it is up, else on the first link that is.
        const auto& states = call->slotStates;
        std::uint8_t slot = call->controlSlot;
        if (states[slot] != CallSession::SlotState::Up)
            slot =
                std::uint8_t(std::find(states.begin(), states.end(), CallSession::SlotState::Up) -
                             states.begin());
        if (slot < multipath::kMaxLinks)
            call->sendSealed(slot, encodeControl(ControlCode::HangUp));
    }
    if (call->audio) {
        publishStatistics(*call);
        call->audio->stop();
        call->audio.reset();
    }
    call->state = CallState::Ended;
    // The old call's links only linger a moment, detached from the engine, so that the last
    // records reach the peer; none is dialled again meanwhile (the peer closes its ends as we
    // do, and a redial would build circuits for a call that is over).
    call->detach(this);
    if (call->pool)
        call->pool->halt();
    qCDebug(lcCall) << "call ended:" << describe(reason);
    const QString peer = call->peer;
    if (call->keys)
        relinkRescue_.peerReached(peer, RelinkRescue::Clock::now()); // it was answered
    // Each ended call lingers its own full time: one timer closing them all cut short a call that
    // ended just after another, its HangUp perhaps not yet out, and its caller could tell it from
    // a decoy ring by when the stream closed.
    const std::uint64_t serial = ++endedSerial_;
    ended_.emplace(serial, std::move(call));
    QTimer::singleShot(kLingerBeforeClose, this, [this, serial] { closeEnded(serial); });
    emit callStateChanged(CallState::Ended, peer, reason);
}

// An ended call's linger is over: its links close, and then the circuits our tor built for them
// (an outgoing call's: the circuits of an incoming call are the caller's to close, and when they
// go, the rendezvous point closes our end of them).
void CallEngine::closeEnded(std::uint64_t serial) {
    const auto it = ended_.find(serial);
    if (it == ended_.end())
        return;
    const QList<QByteArray> keys =
        it->second->pool ? it->second->pool->dialledIsolationKeys() : QList<QByteArray>();
    ended_.erase(it);
    if (tor::TorLauncher* launcher = host_.launcher())
        closeCircuitsOf(launcher->controller(), keys);
}

} // namespace onionvoice::call
