// Slot bookkeeping, staggered dialling, replacement of broken links and second attempts beside
// slow ones.
#include "LinkPool.h"

#include "NetLog.h"

#include <QRandomGenerator>

namespace onionvoice::net {

namespace {

DialBudget budgetFor(const LinkPoolConfig& config) {
    Q_ASSERT(config.links > 0 && config.links <= 256 && config.dialsPerLink > 0);
    return DialBudget(
        config.dialsPerLink * config.links,
        std::chrono::duration_cast<DialBudget::Clock::duration>(config.dialRefillPerLink) /
            config.links);
}

} // namespace

LinkPool::LinkPool(LinkPoolConfig config, QObject* parent)
    : QObject(parent)
    , config_(std::move(config))
    , budget_(budgetFor(config_)) {
    slots_.resize(std::size_t(config_.links));
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        const auto slot = std::uint8_t(i);
        auto* retry = new QTimer(this);
        retry->setSingleShot(true);
        connect(retry, &QTimer::timeout, this, [this, slot] { open(slot); });
        slots_[i].retry = retry;
        auto* hedge = new QTimer(this);
        hedge->setSingleShot(true);
        connect(hedge, &QTimer::timeout, this, [this, slot] { openSecond(slot); });
        slots_[i].hedge = hedge;
    }
}

void LinkPool::start(int count) {
    if (activity_ == Activity::Halted)
        return;
    activity_ = Activity::Running;
    const std::size_t end = std::min(slots_.size(), std::size_t(std::max(count, 0)));
    for (std::size_t i = started_; i < end; ++i)
        slots_[i].retry->start(config_.stagger * int(i - started_));
    started_ = std::max(started_, end);
}

void LinkPool::stop() {
    if (activity_ != Activity::Halted)
        activity_ = Activity::Stopped;
    started_ = 0;
    for (Slot& slot : slots_) {
        cancelDials(slot);
        discard(slot.current);
    }
}

void LinkPool::halt() {
    activity_ = Activity::Halted;
    for (Slot& slot : slots_)
        cancelDials(slot);
}

void LinkPool::cancelDials(Slot& slot) {
    slot.retry->stop();
    slot.hedge->stop();
    discard(slot.second);
    discard(slot.loser);
}

int LinkPool::openCount() const {
    return int(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) {
        return s.current.link && s.current.link->state() == OnionLink::State::Open;
    }));
}

OnionLink* LinkPool::link(std::uint8_t slot) const {
    return slot < slots_.size() ? slots_[slot].current.link : nullptr;
}

QByteArray LinkPool::isolationKey(std::uint8_t slot) const {
    return slot < slots_.size() ? slots_[slot].current.isolationKey : QByteArray();
}

bool LinkPool::sendRecord(std::uint8_t slot, std::span<const std::uint8_t> record) {
    OnionLink* l = link(slot);
    return l && l->sendRecord(record);
}

// A link closed for what came over it (a garbled or forged record) goes the way of one that broke:
// one that had not been working yet is dialled again only after replaceDelay, so a peer that
// garbles every new link cannot make us build circuits in a loop.
void LinkPool::replace(std::uint8_t slot) {
    if (activity_ != Activity::Running || slot >= slots_.size())
        return;
    Slot& s = slots_[slot];
    if (OnionLink* old = s.current.link) {
        const bool working = wasWorking(s.current);
        old->disconnect(this);
        old->close();
        emit linkDown(slot, QStringLiteral("replaced"));
        if (!working) {
            cancelDials(s);
            discard(s.current);
            s.retry->start(config_.replaceDelay);
            return;
        }
    }
    open(slot);
}

bool LinkPool::wasWorking(const Attempt& attempt) const {
    return attempt.openedAt &&
           std::chrono::steady_clock::now() - *attempt.openedAt >= config_.workingAfter;
}

void LinkPool::discard(Attempt& attempt) {
    if (!attempt.link)
        return;
    attempt.link->disconnect();
    attempt.link->close();
    attempt.link->deleteLater();
    attempt = {};
}

void LinkPool::open(std::uint8_t slot) {
    if (activity_ != Activity::Running)
        return;
    Slot& s = slots_[slot];
    s.retry->stop();
    s.hedge->stop();
    discard(s.current);
    discard(s.second);
    discard(s.loser);
    if (!budget_.take(std::chrono::steady_clock::now())) {
        deferDial(slot);
        return;
    }
    s.current = dial(slot);
    s.hedge->start(peer_ == Peer::Reached ? config_.hedgeDelay : config_.firstHedgeDelay);
}

void LinkPool::deferDial(std::uint8_t slot) {
    if (pace_ == Pace::Free) {
        pace_ = Pace::Rationed;
        qCWarning(lcNet)
            << "links keep breaking: while the dial budget is spent, one link is"
            << "dialled every"
            << std::chrono::ceil<std::chrono::milliseconds>(budget_.refillEvery()).count() << "ms";
    }
    const auto wait = budget_.untilNext(std::chrono::steady_clock::now());
    slots_[slot].retry->start(std::chrono::ceil<std::chrono::milliseconds>(wait));
}

void LinkPool::openSecond(std::uint8_t slot) {
    Slot& s = slots_[slot];
    if (activity_ != Activity::Running || s.second.link || !s.current.link ||
        s.current.link->state() == OnionLink::State::Open)
        return;
    emit attemptSlow(slot, s.current.isolationKey);
    // A receiver connected directly may have stopped the pool or replaced the slot meanwhile.
    if (activity_ != Activity::Running || !s.current.link)
        return;
    // A second attempt is a help, not a need: only while the budget could still dial every slot
    // again, so that it never takes the dial a slot that is down waits for.
    const auto now = std::chrono::steady_clock::now();
    if (budget_.left(now) <= config_.links || !budget_.take(now))
        return;
    qCInfo(lcNet) << "link in slot" << slot << "slow to open: a second attempt beside it";
    s.second = dial(slot);
}

LinkPool::Attempt LinkPool::dial(std::uint8_t slot) {
    // A fresh key per attempt: a replacement must not reuse the broken link's circuit.
    Attempt attempt{new OnionLink(config_.recordSize, this),
                    QByteArray::number(QRandomGenerator::system()->generate64(), 16) +
                        QByteArray::number(QRandomGenerator::system()->generate64(), 16),
                    std::nullopt};
    dialled_.append(attempt.isolationKey);
    OnionLink* link = attempt.link;
    connect(link, &OnionLink::opened, this, [this, slot, link] { onOpened(slot, link); });
    connect(link, &OnionLink::recordReceived, this, [this, slot](const QByteArray& record) {
        discard(slots_[slot].loser); // the peer has heard the winner's first record
        emit recordReceived(slot, record);
    });
    connect(link, &OnionLink::failed, this,
            [this, slot, link](OnionLink::Failure failure, const QString& reason) {
                onFailed(slot, link, failure, reason);
            });
    // A test relay's port for the slot, or tor's SOCKS endpoint as it is now.
    const SocksEndpoint socks = slot < config_.slotSocks.size() ? config_.slotSocks[slot]
                                : config_.socksFor              ? config_.socksFor(slot)
                                                                : config_.socks;
    link->connectToOnion(socks, config_.onionAddress + QStringLiteral(".onion"), config_.port,
                         attempt.isolationKey,
                         peer_ == Peer::Reached ? config_.relinkTimeout : config_.connectTimeout,
                         config_.firstRecord ? config_.firstRecord(slot) : QByteArray());
    return attempt;
}

void LinkPool::onOpened(std::uint8_t slot, OnionLink* link) {
    Slot& s = slots_[slot];
    s.hedge->stop();
    (link == s.second.link ? s.second : s.current).openedAt = std::chrono::steady_clock::now();
    if (link == s.second.link) {
        // The slow first attempt lost the race. Before the peer was reached it may have rung the
        // callee already, and the winner's first record (its Hello) may reach the callee after
        // this attempt's close would: the callee ended the ring "cancelled", and the Hello rang
        // anew (tst_handshaketwins aTwinHeardLateJoinsTheRing). Kept open, it holds the ring until
        // the callee has taken the winner as its twin and answered on it.
        if (peer_ == Peer::Reached) {
            discard(s.current);
        } else {
            s.current.link->disconnect(this);
            s.loser = std::exchange(s.current, {});
        }
        s.current = std::exchange(s.second, {});
    } else {
        discard(s.second);
    }
    peer_ = Peer::Reached;
    emit linkUp(slot);
}

void LinkPool::onFailed(std::uint8_t slot, OnionLink* link, OnionLink::Failure failure,
                        const QString& reason) {
    Slot& s = slots_[slot];
    qCInfo(lcNet) << "link in slot" << slot << "down:" << reason;
    // Tor's SOCKS port was not there (tor restarting, or not ready: no endpoint): no CONNECT
    // reached tor, so no circuit was asked for, and retries every replaceDelay until tor is back
    // must not spend the budget. A port that dropped us during the SOCKS exchange may have had our
    // CONNECT (ProxyDropped): that attempt stays spent.
    if (failure == OnionLink::Failure::ProxyUnreachable)
        budget_.giveBack();
    // While the other attempt of the slot is still under way, the slot is not down yet.
    if (link == s.second.link) {
        discard(s.second);
        return;
    }
    if (s.second.link) {
        discard(s.current);
        s.current = std::exchange(s.second, {});
        return;
    }
    s.hedge->stop();
    discard(s.loser);
    const bool working = wasWorking(s.current);
    emit linkDown(slot, reason);
    if (activity_ == Activity::Running)
        s.retry->start(working ? std::chrono::milliseconds(0) : config_.replaceDelay);
}

} // namespace onionvoice::net
