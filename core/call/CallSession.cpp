// One call's slots and its record path.
#include "CallSession.h"

#include "CallLog.h"

namespace onionvoice::call {
namespace {

// A link carries at most one record per packet period in every policy; four times that, with
// a burst of several seconds (tor delivers a stalled circuit's backlog at once), is never
// reached by a genuine peer.
constexpr double kRecordRateFactor = 4;
constexpr double kRecordBurst = 200;

} // namespace

void discard(net::OnionLink* link) {
    link->close();
    link->deleteLater();
}

std::span<const std::uint8_t> bytesOf(const QByteArray& a) {
    return {reinterpret_cast<const std::uint8_t*>(a.constData()), std::size_t(a.size())};
}

CallSession::CallSession(CallDirection direction_, QString peer_)
    : direction(direction_)
    , peer(std::move(peer_)) {
    clock.start();
}

CallSession::~CallSession() {
    if (pool) {
        pool->stop();
        pool->deleteLater();
    }
    for (net::OnionLink* link : links)
        if (link)
            discard(link);
    for (net::OnionLink* link : twins)
        if (link)
            discard(link);
    for (net::OnionLink* link : standby)
        if (link)
            discard(link);
}

multipath::Time CallSession::now() const {
    return std::chrono::duration_cast<multipath::Time>(
        std::chrono::nanoseconds(clock.nsecsElapsed()));
}

bool CallSession::slotOpen(std::uint8_t slot) const {
    if (pool) {
        const net::OnionLink* link = pool->link(slot);
        return link && link->state() == net::OnionLink::State::Open;
    }
    return links[slot] != nullptr;
}

void CallSession::sendOnSlot(std::uint8_t slot, std::span<const std::uint8_t> bytes) {
    if (slot >= multipath::kMaxLinks)
        return;
    const bool sent =
        pool ? pool->sendRecord(slot, bytes) : links[slot] && links[slot]->sendRecord(bytes);
    if (sent)
        ++counters[slot].sent;
}

void CallSession::sendHandshake(std::span<const std::uint8_t> bytes) {
    sendOnSlot(controlSlot, bytes);
    for (net::OnionLink* twin : twins)
        if (twin)
            twin->sendRecord(bytes);
}

net::OnionLink* CallSession::takeTwin() {
    while (!twins.empty()) {
        net::OnionLink* twin = twins.front();
        twins.erase(twins.begin());
        if (twin && twin->state() == net::OnionLink::State::Open)
            return twin;
    }
    return nullptr;
}

void CallSession::joinBesideCurrent(std::uint8_t slot, net::OnionLink* link) {
    if (net::OnionLink* older = standby[slot])
        discard(older);
    standby[slot] = links[slot];
    links[slot] = link;
}

void CallSession::recordOn(std::uint8_t slot, const net::OnionLink* link) {
    if (!link)
        return;
    if (standby[slot] == link)
        std::swap(links[slot], standby[slot]);
    if (links[slot] == link && slotStates[slot] == SlotState::Down && endpoint)
        slotUp(slot);
}

bool CallSession::linkClosed(std::uint8_t slot, const net::OnionLink* link) {
    if (standby[slot] == link) {
        standby[slot] = nullptr;
        return true;
    }
    links[slot] = std::exchange(standby[slot], nullptr);
    if (!links[slot])
        return false;
    slotLost(slot);
    return true;
}

void CallSession::sendSealed(std::uint8_t slot, const multipath::RecordBytes& plain) {
    sendOnSlot(slot, sealer->seal(plain));
}

void CallSession::closeSlot(std::uint8_t slot, const QString& reason, const net::OnionLink* from) {
    if (from && from == standby[slot]) {
        qCInfo(lcCall) << "closing the standby link of slot" << slot << ":" << reason;
        discard(std::exchange(standby[slot], nullptr));
        return;
    }
    qCInfo(lcCall) << "closing link" << slot << ":" << reason;
    if (pool) {
        pool->replace(slot); // reports the old link down (slotLost) and dials a new one
    } else if (net::OnionLink* link = links[slot]) {
        links[slot] = nullptr;
        slotLost(slot);
        discard(link);
        if (net::OnionLink* other = std::exchange(standby[slot], nullptr))
            discard(other);
    }
}

void CallSession::slotLost(std::uint8_t slot) {
    ++counters[slot].failures;
    slotStates[slot] = SlotState::Down;
    if (endpoint)
        endpoint->linkDown(slot);
}

void CallSession::slotUp(std::uint8_t slot) {
    slotStates[slot] = SlotState::Up;
    silence.joined(slot, now());
    endpoint->linkUp(slot);
}

void CallSession::closeSilentLinks() {
    const multipath::Time t = now();
    for (std::uint8_t slot = 0; slot < agreed.links; ++slot)
        if (slotStates[slot] == SlotState::Up &&
            silence.silent(slot, t,
                           endpoint ? endpoint->delivery().oldestUnacknowledged(t, slot)
                                    : std::nullopt))
            closeSlot(slot, QStringLiteral("silent while the other links deliver"));
}

void CallSession::detach(QObject* receiver) {
    if (pool)
        pool->disconnect(receiver);
    for (net::OnionLink* link : links)
        if (link)
            link->disconnect(receiver);
    for (net::OnionLink* link : twins)
        if (link)
            link->disconnect(receiver);
    for (net::OnionLink* link : standby)
        if (link)
            link->disconnect(receiver);
}

net::OnionLink* CallSession::release(std::uint8_t slot, QObject* receiver) {
    net::OnionLink* link = links[slot];
    links[slot] = nullptr;
    if (link)
        link->disconnect(receiver);
    return link;
}

std::vector<net::OnionLink*> CallSession::releaseRing(QObject* receiver) {
    std::vector<net::OnionLink*> ring;
    if (net::OnionLink* link = release(controlSlot, receiver))
        ring.push_back(link);
    for (net::OnionLink* twin : std::exchange(twins, {}))
        if (twin) {
            twin->disconnect(receiver);
            ring.push_back(twin);
        }
    return ring;
}

void CallSession::startDataPath() {
    sealer = std::make_unique<RecordSealer>(keys->send);
    opener = std::make_unique<RecordOpener>(keys->receive);
    const auto names = multipath::policyNames();
    endpoint = std::make_unique<multipath::MultipathEndpoint>(
        multipath::EndpointConfig{}, multipath::makePolicy(names[agreed.policy]));
    slotUp(controlSlot);
    lastAuthenticated = SleepCountingClock::now();
}

bool CallSession::peerSilentFor(std::chrono::milliseconds limit) const {
    return SleepCountingClock::now() - lastAuthenticated > limit;
}

CallSession::Received CallSession::receiveSealed(std::uint8_t slot, const QByteArray& record,
                                                 const net::OnionLink* from) {
    // A down slot is not (yet) part of the call, unless the record comes on its link or standby,
    // which it revives if the record opens (recordOn). Before, the standby took the slot before
    // the record was opened, and one that did not open closed both of the slot's links.
    const bool mayRevive = from && endpoint && (from == links[slot] || from == standby[slot]);
    if (slotStates[slot] != SlotState::Up && !mayRevive)
        return Received::Ignored;
    const double perMinute = kRecordRateFactor * 60000.0 / std::max(1, int(agreed.packetMs));
    if (!recordBudget[slot].take(std::chrono::duration_cast<Millis>(now()), perMinute,
                                 kRecordBurst))
        return Received::OverRate;
    if (record.size() != qsizetype(multipath::kRecordSize)) {
        closeSlot(slot, QStringLiteral("record of the wrong size"), from);
        return Received::Rejected;
    }
    multipath::RecordBytes plain{};
    const auto outcome = opener->open(std::span<const std::uint8_t, multipath::kRecordSize>(
                                          bytesOf(record).first<multipath::kRecordSize>()),
                                      plain);
    if (outcome != RecordOpener::Outcome::Opened) {
        ++rejected;
        if (outcome != RecordOpener::Outcome::Forged)
            return Received::Replayed; // counted, not logged: the peer could fill the log
        closeSlot(slot, QStringLiteral("forged record"), from);
        return Received::Rejected;
    }
    recordOn(slot, from);
    lastAuthenticated = SleepCountingClock::now();
    silence.heard(slot, now());
    if (decodeControl(plain) == ControlCode::HangUp)
        return Received::HangUp;
    std::vector<multipath::ReceivedFrame> frames;
    const multipath::Time t = now();
    const auto error = endpoint->receive(t, slot, plain, frames);
    if (error != multipath::RecordError::None) {
        ++rejected;
        closeSlot(slot, QString::fromLatin1(multipath::describe(error).data()), from);
        return Received::Rejected;
    }
    const std::int64_t arrivalMs = multipath::toWholeMillis(t);
    for (const auto& f : frames) {
        ++framesReceived;
        if (frameObserver)
            frameObserver->frameArrived(f.seq, slot);
        const QByteArray packet(reinterpret_cast<const char*>(f.data.data()),
                                qsizetype(f.data.size()));
        frameDelays.add(arrivalMs, audio->receivePacket(f.seq, packet));
    }
    return Received::Frames;
}

void CallSession::sendPacket(std::uint32_t sequence, const QByteArray& packet) {
    sendLateness.sent(std::chrono::milliseconds(multipath::toWholeMillis(now())), sequence,
                      std::chrono::milliseconds(agreed.packetMs));
    const multipath::Frame frame{sequence, {packet.begin(), packet.end()}};
    for (const auto& out : endpoint->sendPacket(now(), std::span(&frame, 1))) {
        sendSealed(out.link, out.bytes);
        if (frameObserver)
            frameObserver->packetSent(sequence, out.link);
    }
}

void CallSession::startSnapshotInterval() {
    snapshotIntervalStartMs = multipath::toWholeMillis(now());
    sendLateness.startInterval();
}

} // namespace onionvoice::call
