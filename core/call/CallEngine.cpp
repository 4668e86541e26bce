// The call engine: tor, the onion service, the call state machine and the data path of a call.
#include "CallEngine.h"

#include "media/AudioEngine.h"
#include "media/CallQuality.h"
#include "tor/ClientAuthKey.h"
#include "tor/OnionAddress.h"

#include <QDateTime>
#include <QDir>
#include <QLoggingCategory>
#include <QPointer>

Q_LOGGING_CATEGORY(lcCall, "onionvoice.call")

namespace onionvoice::call {
namespace {

using namespace std::chrono_literals;

constexpr auto kTickInterval = 10ms;
constexpr int kTicksPerStatistics = 25; // four snapshots a second
constexpr auto kMaxClockSkew = 10min;
constexpr auto kLingerBeforeClose = 300ms; // lets the last records reach tor before closing
constexpr auto kFrameDelayWindow = 30000;  // ms of frame delays the percentiles cover

std::span<const std::uint8_t> bytesOf(const QByteArray& a) {
    return {reinterpret_cast<const std::uint8_t*>(a.constData()), std::size_t(a.size())};
}

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

// Closes a link (what it still has to send is flushed) and deletes it once control returns.
void discard(net::OnionLink* link) {
    link->close();
    link->deleteLater();
}

std::chrono::milliseconds unixNow() {
    return std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch());
}

double percentile(std::vector<std::int64_t> v, double p) {
    if (v.empty())
        return 0;
    const auto k =
        std::size_t(std::min<double>(double(v.size()) - 1, p / 100.0 * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return double(v[k]);
}

} // namespace

CallEngine::CallEngine(EngineConfig config, QObject* parent)
    : QObject(parent)
    , config_(std::move(config))
    , contacts_(QDir(config_.dataDirectory).filePath(QStringLiteral("contacts.json"))) {
    qRegisterMetaType<CallStatistics>();
    tick_.setTimerType(Qt::PreciseTimer);
    tick_.setInterval(kTickInterval);
    connect(&tick_, &QTimer::timeout, this, &CallEngine::tick);
}

CallEngine::~CallEngine() {
    stop();
}

bool CallEngine::start(QString* error) {
    if (const auto bad = checkParameters(config_.parameters)) {
        *error = *bad;
        return false;
    }
    QDir().mkpath(config_.dataDirectory);
    const QString identityPath =
        QDir(config_.dataDirectory).filePath(QStringLiteral("identity.key"));
    if (QFile::exists(identityPath)) {
        identity_ = tor::OnionIdentity::load(identityPath, error);
        if (!identity_)
            return false;
    } else {
        identity_ = tor::OnionIdentity::generate();
        if (!identity_->save(identityPath, error))
            return false;
    }
    const auto loaded = contacts_.load();
    if (!loaded.message.isEmpty())
        emit errorOccurred(loaded.message);

    listener_ = std::make_unique<net::LinkListener>(multipath::kRecordSize);
    if (!listener_->listen()) {
        *error = QStringLiteral("Cannot listen on 127.0.0.1: %1").arg(listener_->errorString());
        return false;
    }
    connect(listener_.get(), &net::LinkListener::linkAccepted, this, &CallEngine::onLinkAccepted);

    tor::TorLaunchConfig torConfig;
    torConfig.dataDirectory = config_.dataDirectory;
    torConfig.torExecutableSetting = config_.torExecutable;
    torConfig.extraTorrcLines = config_.extraTorrcLines;
    launcher_ = std::make_unique<tor::TorLauncher>(torConfig);
    connect(launcher_.get(), &tor::TorLauncher::stateChanged, this, [this](auto state) {
        emit torStateChanged(state, launcher_->bootstrap().percent, launcher_->bootstrap().summary);
    });
    connect(launcher_.get(), &tor::TorLauncher::bootstrapChanged, this, [this](const auto& b) {
        emit torStateChanged(launcher_->state(), b.percent, b.summary);
    });

    tor::OnionService::Config serviceConfig;
    serviceConfig.virtualPort = config_.servicePort;
    serviceConfig.targetPort = listener_->port();
    if (config_.access == ServiceAccess::ContactsOnly)
        serviceConfig.clientAuthPublicKeys = allowedClientKeys();
    service_ = std::make_unique<tor::OnionService>(launcher_.get(), *identity_, serviceConfig);
    connect(service_.get(), &tor::OnionService::stateChanged, this,
            &CallEngine::serviceStateChanged);
    launcher_->start();
    return true;
}

void CallEngine::stop() {
    if (call_)
        end(EndReason::HungUpLocally);
    closeEndedCalls();
    service_.reset();
    if (launcher_)
        launcher_->stop();
    launcher_.reset();
    listener_.reset();
}

QString CallEngine::address() const {
    return identity_ ? identity_->address() : QString();
}

QList<QByteArray> CallEngine::allowedClientKeys() const {
    QList<QByteArray> keys;
    for (const contacts::Contact& c : contacts_.contacts())
        if (c.allowlisted && !c.blocked && c.inboundAuthPublicKey.size() == 32)
            keys.append(tor::ClientAuthKey::encodePublicKey(
                std::span<const std::uint8_t, 32>(bytesOf(c.inboundAuthPublicKey).first<32>())));
    return keys;
}

multipath::Time CallEngine::now() const {
    return std::chrono::duration_cast<multipath::Time>(
        std::chrono::nanoseconds(call_->clock.nsecsElapsed()));
}

void CallEngine::setCallState(CallState state) {
    call_->state = state;
    emit callStateChanged(state, call_->peer, EndReason::None);
}

void CallEngine::armTimeout(std::chrono::milliseconds after, EndReason reason) {
    if (!call_->timeout) {
        call_->timeout = new QTimer(this);
        call_->timeout->setSingleShot(true);
    }
    call_->timeout->disconnect();
    connect(call_->timeout, &QTimer::timeout, this, [this, reason] {
        if (call_ && call_->direction == CallDirection::Incoming && reason == EndReason::NoAnswer)
            sendOnSlot(call_->controlSlot, encodeHandshake(Refusal{RefusalReason::NoAnswer}));
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
    if (call_ || !launcher_ || launcher_->socksPort() == 0) {
        emit errorOccurred(call_ ? QStringLiteral("A call is already under way.")
                                 : QStringLiteral("Tor is not ready yet."));
        return;
    }
    call_ = std::make_unique<Call>();
    call_->direction = CallDirection::Outgoing;
    call_->peer = check.address;
    call_->clock.start();
    call_->ephemeral = std::make_unique<EphemeralKey>();
    setCallState(CallState::Dialing);
    armTimeout(config_.dialTimeout, EndReason::Unreachable);

    net::LinkPoolConfig poolConfig;
    poolConfig.socks.port = launcher_->socksPort();
    poolConfig.onionAddress = check.address;
    poolConfig.port = config_.servicePort;
    poolConfig.links = config_.parameters.links;
    poolConfig.recordSize = multipath::kRecordSize;
    call_->pool = new net::LinkPool(poolConfig, this);
    connect(call_->pool, &net::LinkPool::linkUp, this, &CallEngine::onPoolLinkUp);
    connect(call_->pool, &net::LinkPool::linkDown, this, &CallEngine::onPoolLinkDown);
    connect(call_->pool, &net::LinkPool::recordReceived, this, &CallEngine::onRecord);

    const auto contact = contacts_.find(check.address);
    if (contact && contact->outboundAuthPrivateKey.size() == 32) {
        // The peer's service is contacts-only: our tor needs its key before the first link.
        const auto key = tor::ClientAuthKey::fromPrivateKey(std::span<const std::uint8_t, 32>(
            bytesOf(contact->outboundAuthPrivateKey).first<32>()));
        QPointer<net::LinkPool> pool = call_->pool;
        tor::addClientAuthorization(launcher_->controller(), check.address, key,
                                    [pool](const tor::TorReply&) {
                                        if (pool)
                                            pool->start(1);
                                    });
    } else {
        // One link does the handshake; the others follow once there are keys to prove them with,
        // since the callee closes links that cannot prove they belong to a call.
        call_->pool->start(1);
    }
}

void CallEngine::onPoolLinkUp(std::uint8_t slot) {
    if (!call_)
        return;
    if (!call_->keys) {
        if (call_->state == CallState::Dialing && call_->hello.caller.isEmpty()) {
            call_->controlSlot = slot;
            call_->hello = makeHello(*identity_, call_->peer, *call_->ephemeral, config_.parameters,
                                     slot, unixNow());
            sendOnSlot(slot, encodeHandshake(call_->hello));
        }
        return; // other links join once the call has keys
    }
    sendOnSlot(slot, encodeHandshake(makeJoin(*call_->keys, slot)));
    call_->slotStates[slot] = SlotState::Up;
    call_->endpoint->linkUp(slot);
}

void CallEngine::onPoolLinkDown(std::uint8_t slot) {
    if (!call_)
        return;
    slotLost(slot);
    if (!call_->keys && slot == call_->controlSlot && !call_->hello.caller.isEmpty())
        end(EndReason::NetworkFailure); // the handshake link broke before the answer
}

void CallEngine::slotLost(std::uint8_t slot) {
    ++call_->counters[slot].failures;
    call_->slotStates[slot] = SlotState::Down;
    if (call_->endpoint)
        call_->endpoint->linkDown(slot);
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

void CallEngine::onLinkAccepted(net::OnionLink* link) {
    link->setParent(this);
    connect(link, &net::OnionLink::recordReceived, this,
            [this, link](const QByteArray& record) { onFirstRecord(link, record); });
    connect(link, &net::OnionLink::failed, link, &QObject::deleteLater);
    // A link that does not prove itself in time is closed.
    QTimer::singleShot(config_.linkProofTimeout, link, [this, link] {
        if (!call_ ||
            std::find(call_->links.begin(), call_->links.end(), link) == call_->links.end()) {
            qCInfo(lcCall) << "closing a link that did not prove it belongs to a call";
            discard(link);
        }
    });
}

void CallEngine::onFirstRecord(net::OnionLink* link, const QByteArray& record) {
    disconnect(link, &net::OnionLink::recordReceived, this, nullptr);
    const HandshakeDecode decoded = decodeHandshake(bytesOf(record));
    if (!decoded.message) {
        qCWarning(lcCall) << "closing a new link:" << decoded.error;
        discard(link);
        return;
    }
    if (const auto* hello = std::get_if<Hello>(&*decoded.message))
        onIncomingHello(link, *hello);
    else if (const auto* join = std::get_if<Join>(&*decoded.message))
        onJoin(link, *join);
    else {
        discard(link);
    }
}

void CallEngine::refuseIncoming(net::OnionLink* link, const QString& peer, RefusalReason reason,
                                EndReason local) {
    link->sendRecord(encodeHandshake(Refusal{reason}));
    QTimer::singleShot(kLingerBeforeClose, link, [link] { discard(link); });
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
    call_ = std::make_unique<Call>();
    call_->direction = CallDirection::Incoming;
    call_->peer = hello.caller;
    call_->hello = hello;
    call_->clock.start();
    call_->controlSlot = hello.slot;
    call_->slotStates[hello.slot] = SlotState::Joining;
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
        closeSlot(join.slot, QStringLiteral("replaced"));
    attachIncoming(link, join.slot);
    call_->slotStates[join.slot] = SlotState::Up;
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
        slotLost(slot);
        if (!call_->keys && slot == call_->controlSlot)
            end(EndReason::Cancelled); // the caller went away while it was ringing
    });
}

void CallEngine::answer() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    call_->ephemeral = std::make_unique<EphemeralKey>();
    call_->agreed = agreeParameters(call_->hello.proposed, config_.parameters);
    const Accept accept = makeAccept(*identity_, call_->hello, *call_->ephemeral, call_->agreed);
    call_->keys = deriveCallKeys(Role::Callee, *call_->ephemeral, call_->hello, accept);
    if (!call_->keys) {
        end(EndReason::ProtocolError);
        return;
    }
    sendOnSlot(call_->controlSlot, encodeHandshake(accept));
    activate();
}

void CallEngine::reject() {
    if (!call_ || call_->direction != CallDirection::Incoming || call_->state != CallState::Ringing)
        return;
    sendOnSlot(call_->controlSlot, encodeHandshake(Refusal{RefusalReason::Rejected}));
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
            sendOnSlot(call_->controlSlot, encodeHandshake(Refusal{RefusalReason::Cancelled}));
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
    const CallParameters& agreed = call_->agreed;
    call_->sealer = std::make_unique<RecordSealer>(call_->keys->send);
    call_->opener = std::make_unique<RecordOpener>(call_->keys->receive);
    const auto names = multipath::policyNames();
    call_->endpoint = std::make_unique<multipath::MultipathEndpoint>(
        multipath::EndpointConfig{}, multipath::makePolicy(names[agreed.policy]));
    call_->slotStates[call_->controlSlot] = SlotState::Up;
    call_->endpoint->linkUp(call_->controlSlot);
    call_->lastAuthenticated = now();
    QString error;
    auto backend = config_.audio ? config_.audio(&error) : nullptr;
    media::AudioEngineSettings audio;
    audio.encoder.bitrate = int(agreed.bitrate);
    audio.encoder.packetPeriod = std::chrono::milliseconds(agreed.packetMs);
    audio.jitter.packetPeriod = audio.encoder.packetPeriod;
    if (backend) {
        call_->audio = std::make_unique<media::AudioEngine>(std::move(backend), audio,
                                                            [this] { return now(); });
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

bool CallEngine::slotOpen(std::uint8_t slot) const {
    if (call_->pool) {
        const net::OnionLink* link = call_->pool->link(slot);
        return link && link->state() == net::OnionLink::State::Open;
    }
    return call_->links[slot] != nullptr;
}

void CallEngine::sendOnSlot(std::uint8_t slot, std::span<const std::uint8_t> bytes) {
    if (!call_ || slot >= multipath::kMaxLinks)
        return;
    const bool sent = call_->pool ? call_->pool->sendRecord(slot, bytes)
                                  : call_->links[slot] && call_->links[slot]->sendRecord(bytes);
    if (sent)
        ++call_->counters[slot].sent;
}

void CallEngine::sendSealed(std::uint8_t slot, const multipath::RecordBytes& plain) {
    sendOnSlot(slot, call_->sealer->seal(plain));
}

void CallEngine::closeSlot(std::uint8_t slot, const QString& reason) {
    qCInfo(lcCall) << "closing link" << slot << ":" << reason;
    if (call_->pool) {
        call_->pool->replace(slot); // reports the old link down (slotLost) and dials a new one
    } else if (net::OnionLink* link = call_->links[slot]) {
        call_->links[slot] = nullptr;
        slotLost(slot);
        discard(link);
    }
}

void CallEngine::onRecord(std::uint8_t slot, const QByteArray& record) {
    if (!call_ || call_->state == CallState::Ended || slot >= multipath::kMaxLinks)
        return;
    ++call_->counters[slot].received;
    if (!call_->keys) {
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
        closeSlot(slot,
                  decoded.error.isEmpty() ? QStringLiteral("unexpected message") : decoded.error);
        return;
    }
    if (call_->slotStates[slot] != SlotState::Up)
        return; // not (yet) part of the call
    if (record.size() != qsizetype(multipath::kRecordSize)) {
        closeSlot(slot, QStringLiteral("record of the wrong size"));
        return;
    }
    multipath::RecordBytes plain{};
    const auto outcome = call_->opener->open(std::span<const std::uint8_t, multipath::kRecordSize>(
                                                 bytesOf(record).first<multipath::kRecordSize>()),
                                             plain);
    if (outcome != RecordOpener::Outcome::Opened) {
        ++call_->rejected;
        if (outcome == RecordOpener::Outcome::Forged)
            closeSlot(slot, QStringLiteral("forged record"));
        else
            qCWarning(lcCall) << "dropping a replayed or stale record on link" << slot;
        return;
    }
    call_->lastAuthenticated = now();
    if (decodeControl(plain) == ControlCode::HangUp) {
        end(EndReason::HungUpByPeer);
        return;
    }
    std::vector<multipath::ReceivedFrame> frames;
    const multipath::Time t = now();
    const auto error = call_->endpoint->receive(t, slot, plain, frames);
    if (error != multipath::RecordError::None) {
        ++call_->rejected;
        closeSlot(slot, QString::fromLatin1(multipath::describe(error).data()));
        return;
    }
    const std::int64_t arrivalMs = multipath::toWholeMillis(t);
    const std::int64_t periodMs = call_->hello.proposed.packetMs;
    for (const auto& f : frames) {
        ++call_->framesReceived;
        call_->audio->receivePacket(f.seq, QByteArray(reinterpret_cast<const char*>(f.data.data()),
                                                      qsizetype(f.data.size())));
        call_->frameDelays.push_back({arrivalMs, arrivalMs - std::int64_t(f.seq) * periodMs});
    }
    while (!call_->frameDelays.empty() &&
           call_->frameDelays.front().first < arrivalMs - kFrameDelayWindow)
        call_->frameDelays.pop_front();
}

void CallEngine::tick() {
    if (!call_ || call_->state != CallState::Active)
        return;
    // Records flow 25 times a second both ways, even in silence: this long without one genuine
    // record means the peer is gone, whatever the state of our TCP streams.
    if (now() - call_->lastAuthenticated > config_.networkLossTimeout) {
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
    const multipath::Frame frame{sequence, {packet.begin(), packet.end()}};
    for (const auto& out : call_->endpoint->sendPacket(now(), std::span(&frame, 1)))
        sendSealed(out.link, out.bytes);
}

void CallEngine::publishStatistics() {
    CallStatistics s;
    s.peer = call_->peer;
    s.direction = call_->direction;
    const multipath::Time t = now();
    s.duration = std::chrono::duration_cast<std::chrono::milliseconds>(t);
    const auto& groups = call_->endpoint->groups();
    const auto& monitor = call_->endpoint->monitor();
    for (std::uint8_t slot = 0; slot < call_->agreed.links; ++slot) {
        LinkStatistics l;
        l.slot = slot;
        const SlotState state = call_->slotStates[slot] == SlotState::Down && slotOpen(slot)
                                    ? SlotState::Joining
                                    : call_->slotStates[slot];
        l.state = state == SlotState::Up        ? QStringLiteral("up")
                  : state == SlotState::Joining ? QStringLiteral("joining")
                                                : QStringLiteral("down");
        if (const auto g = groups.group(slot))
            l.group = *g == multipath::LinkGroup::First    ? QStringLiteral("first")
                      : *g == multipath::LinkGroup::Second ? QStringLiteral("second")
                                                           : QStringLiteral("inactive");
        if (const auto rtt = monitor.rtt(slot))
            l.rttMs = double(rtt->count());
        if (const auto score = monitor.score(t, slot)) {
            l.relativeDelayMs = double(score->currentDelay.count());
            l.reorderScore = score->reorder;
        }
        l.recordsSent = call_->counters[slot].sent;
        l.recordsReceived = call_->counters[slot].received;
        l.failures = call_->counters[slot].failures;
        s.links.append(l);
    }
    std::vector<std::int64_t> raw;
    for (const auto& [arrival, delay] : call_->frameDelays)
        raw.push_back(delay);
    const std::int64_t base = raw.empty() ? 0 : *std::min_element(raw.begin(), raw.end());
    for (auto& d : raw)
        d -= base;
    s.delayP50Ms = percentile(raw, 50);
    s.delayP95Ms = percentile(raw, 95);
    s.delayP99Ms = percentile(raw, 99);
    const media::JitterBufferStats jb = call_->audio->receiveStats();
    s.late = jb.late;
    s.lost = jb.lost;
    s.concealed = jb.concealedMs;
    s.longestGap = call_->audio->longestGap();
    s.jitterLevel = std::chrono::duration_cast<std::chrono::milliseconds>(jb.currentLevel);
    s.jitterTarget = std::chrono::duration_cast<std::chrono::milliseconds>(jb.targetDelay);
    // One-way network delay: half the control link's round trip plus the frame's delay above
    // the fastest frame.
    const auto network = std::chrono::milliseconds(std::int64_t(s.delayP50Ms)) +
                         monitor.rtt(call_->controlSlot).value_or(400ms) / 2;
    const media::MouthToEarBudget budget = call_->audio->mouthToEar(network);
    const double expected = double(jb.packetsReceived + jb.lost);
    s.mos =
        media::computeEModel({std::chrono::duration_cast<std::chrono::milliseconds>(budget.total()),
                              expected > 0 ? 100.0 * double(jb.late + jb.lost) / expected : 0.0})
            .mos;
    const double seconds = std::max(1e-3, double(s.duration.count()) / 1000.0);
    s.cellsPerSecond = double(call_->endpoint->counters().recordsSent) / seconds;
    s.recordsRejected = call_->rejected;
    s.framesReceived = call_->framesReceived;
    emit statisticsChanged(s);
}

void CallEngine::end(EndReason reason) {
    if (!call_)
        return;
    tick_.stop();
    if (call_->timeout)
        call_->timeout->stop();
    if (call_->sealer) {
        for (std::uint8_t slot = 0; slot < multipath::kMaxLinks; ++slot)
            if (call_->slotStates[slot] == SlotState::Up)
                sendSealed(slot, encodeControl(ControlCode::HangUp));
    }
    if (call_->audio) {
        publishStatistics();
        call_->audio->stop();
        call_->audio.reset();
    }
    // The engine is free for the next call at once; the old call's links only linger a moment,
    // detached from the engine, so that the last records reach the peer.
    std::unique_ptr<Call> call = std::move(call_);
    call->state = CallState::Ended;
    if (call->pool)
        call->pool->disconnect(this);
    for (net::OnionLink* link : call->links)
        if (link)
            link->disconnect(this);
    qCDebug(lcCall) << "call with" << call->peer << "ended:" << describe(reason);
    const QString peer = call->peer;
    ended_.push_back(std::move(call));
    QTimer::singleShot(kLingerBeforeClose, this, &CallEngine::closeEndedCalls);
    emit callStateChanged(CallState::Ended, peer, reason);
}

void CallEngine::closeEndedCalls() {
    for (const auto& call : ended_) {
        if (call->pool) {
            call->pool->stop();
            call->pool->deleteLater();
        }
        for (net::OnionLink* link : call->links) {
            if (link) {
                discard(link);
            }
        }
        delete call->timeout;
    }
    ended_.clear();
}

} // namespace onionvoice::call
