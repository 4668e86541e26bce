// The call engine: the call state machine. It starts the service host, dials out, answers and
// ends calls; calls go out through CallEngineOutgoing.cpp, callers ring through
// CallEngineIncoming.cpp, and the slots and records of a call live in its CallSession.
#include "CallEngine.h"

#include "CallLog.h"
#include "CallStatisticsSnapshot.h"
#include "OutgoingDial.h"
#include "tor/ClientAuthKey.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <algorithm>
#include <thread>

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
    connect(&incoming_, &IncomingLinks::ringEnded, this,
            [this](const RingKey& ring) { admission_.endRing(ring, monotonicNow()); });
}

CallEngine::~CallEngine() {
    stop();
}

bool CallEngine::start(QString* error) {
    if (const auto bad = checkParameters(config_.parameters)) {
        *error = *bad;
        return false;
    }
    // A directory that has been used (contacts saved, a tor run) without its identity lost the
    // key (a backup restored without it, a cleaner): the new one made in its place is another
    // address, which no contact has, and the user must learn of it.
    const QDir directory(config_.dataDirectory);
    const bool usedBefore = directory.exists(QStringLiteral("contacts.json")) ||
                            directory.exists(QStringLiteral("tor"));
    const auto origin = host_.loadIdentity(config_.dataDirectory, error);
    if (!origin)
        return false;
    const auto loaded = contacts_.load();
    // One message: a window shows the newest, and where a damaged book was kept must not be
    // replaced at once by what follows from it.
    QStringList said;
    if (*origin == tor::IdentityOrigin::Created && usedBefore)
        said << QCoreApplication::translate(
                    "CallEngine",
                    "OnionVoice did not find its identity (identity.key) in %1, though it has "
                    "run from there before, and made a new one: your address is now %2, and "
                    "contacts who have the old one cannot reach you. If you have a copy of "
                    "identity.key, quit OnionVoice, put it back into %1 and start again.")
                    .arg(QDir::toNativeSeparators(config_.dataDirectory), address());
    if (!loaded.message.isEmpty())
        said << loaded.message;
    if (loaded.mayHaveLostEntries() && config_.unknownCallers == UnknownCallers::Ring) {
        // Blocks may be lost with what could not be read: fail closed until the user decides.
        config_.unknownCallers = UnknownCallers::Refuse;
        said << QCoreApplication::translate(
            "CallEngine", "Some contacts could not be read, so callers who are not in your "
                          "contacts are refused until you choose again whether they may "
                          "ring (Settings: \"Refuse calls from people not in my contacts\").");
    }
    if (!said.isEmpty())
        emit errorOccurred(said.join(QLatin1Char(' ')));

    if (config_.preset == tor::SecurityPreset::OneWayHotline &&
        config_.access == ServiceAccess::ContactsOnly) {
        // Client authorization would need the keys in the hotline tor's own files: not offered.
        *error = QCoreApplication::translate("CallEngine",
                                             "The one-way hotline cannot be limited to contacts.");
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
        emit errorOccurred(QCoreApplication::translate(
            "CallEngine", "Only contacts may call, and no contact has an access key yet: nobody "
                          "can reach you until you share a link with an access key (Share…)."));
    return true;
}

// The allowlist is read again after every change of the book: a removed or blocked contact
// loses access at once (the service is published again with the new set of client keys).
void CallEngine::onContactsChanged() {
    if (config_.access == ServiceAccess::ContactsOnly && host_.service())
        host_.service()->setClientAuthPublicKeys(allowedClientKeys());
    endRingOfTheUnwelcome();
}

// A ring whose caller was just blocked (or removed where strangers are refused) stops ringing
// here: before, the prompt rang on and Accept connected the blocked caller. For the caller it
// rings on unanswered to its end, as a blocked caller's ring does, so that it cannot tell when
// it was blocked.
void CallEngine::endRingOfTheUnwelcome() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    const auto contact = contacts_.find(call_->peer);
    const bool welcome =
        contact ? !contact->blocked : config_.unknownCallers == UnknownCallers::Ring;
    if (welcome)
        return;
    ringOnAsDecoy(EndReason::NotAccepted);
}

// The ringing call leaves us (it ends here as `local`) and rings on for its caller, unanswered,
// for the rest of its time, read off the ring's own timer, which counts a suspend as a decoy's
// does.
void CallEngine::ringOnAsDecoy(EndReason local) {
    incoming_.letRingOn(call_->releaseRing(this), ringKeyOf(call_->hello), call_->twinsJoined,
                        call_->timeout->remaining());
    end(local, RingFate::RingsOn);
}

void CallEngine::stop() {
    // Quitting tells the peer what hanging up would, or its caller read "connection lost": a
    // ring goes unanswered (quitting is no decline), an unanswered dial is cancelled.
    if (call_ && !call_->keys) {
        if (call_->direction == CallDirection::Incoming && call_->state == CallState::Ringing)
            call_->sendHandshake(encodeHandshake(Refusal{RefusalReason::NoAnswer}));
        else if (call_->direction == CallDirection::Outgoing)
            sendCancel();
    }
    if (call_)
        end(EndReason::HungUpLocally);
    const bool ringsEnded = incoming_.endAllRings();
    const bool callJustEnded = !ended_.empty();
    ended_.clear(); // closing a link flushes its last records (the hang-up) into tor's socket
    // Quitting in a call: tor, stopped at once, exited before it read them, and the peer heard
    // silence until its network-loss timeout, then read "network failure". A sleep, not an event
    // loop: a stopping engine must not take new work meanwhile (a ring, a dial, a second stop
    // that deletes it under the first).
    if (callJustEnded || ringsEnded)
        std::this_thread::sleep_for(kHangUpFlush);
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

// ---- outgoing calls (dialling, the pool's links, the answer: CallEngineOutgoing.cpp) ----

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

void CallEngine::answerCallFrom(const QString& caller) {
    if (call_ && call_->peer == caller)
        answer();
}

void CallEngine::rejectCallFrom(const QString& caller) {
    if (call_ && call_->peer == caller)
        reject();
}

void CallEngine::hangUp() {
    if (!call_ || call_->state == CallState::Ended)
        return;
    if (call_->keys) {
        end(EndReason::HungUpLocally);
    } else if (call_->direction == CallDirection::Incoming) {
        reject();
    } else {
        sendCancel();
        end(EndReason::Cancelled);
    }
}

void CallEngine::sendCancel() {
    if (!call_->hello.caller.isEmpty())
        call_->sendOnSlot(call_->controlSlot, encodeHandshake(Refusal{RefusalReason::Cancelled}));
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
    endRingOfTheUnwelcome();
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
    call_->answeredAt = call_->now();
    if (!setCallState(CallState::Active))
        return false;
    ticks_ = 0;
    tick_.start();
    return true;
}

void CallEngine::onRecord(std::uint8_t slot, const QByteArray& record, const net::OnionLink* from) {
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
        switch (call_->receiveSealed(slot, record, from)) {
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
    call_->closeSlot(
        slot, decoded.error.isEmpty() ? QStringLiteral("unexpected message") : decoded.error, from);
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

void CallEngine::end(EndReason reason, RingFate ring, EndNotice notice) {
    if (!call_)
        return;
    // The engine is free for the next call at once, before anything is announced: a slot
    // connected directly that hangs up on the final statistics finds no call to end again.
    std::unique_ptr<CallSession> call = std::move(call_);
    if (call->direction == CallDirection::Incoming && ring == RingFate::Over)
        admission_.endRing(ringKeyOf(call->hello), monotonicNow());
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
    qCInfo(lcCall) << "call ended:" << describe(reason); // in a test's log, why a call ended
    const QString peer = call->peer;
    if (call->keys)
        relinkRescue_.peerReached(peer, RelinkRescue::Clock::now()); // it was answered
    // Each ended call lingers its own full time: one timer closing them all cut short a call that
    // ended just after another, its HangUp perhaps not yet out, and its caller could tell it from
    // a decoy ring by when the stream closed.
    const std::uint64_t serial = ++endedSerial_;
    ended_.emplace(serial, std::move(call));
    QTimer::singleShot(kLingerBeforeClose, this, [this, serial] { closeEnded(serial); });
    if (notice == EndNotice::Announced)
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
