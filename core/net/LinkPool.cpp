// Slot bookkeeping, staggered dialling and replacement of broken links.
#include "LinkPool.h"

#include "NetLog.h"

#include <QRandomGenerator>

namespace onionvoice::net {

LinkPool::LinkPool(LinkPoolConfig config, QObject* parent)
    : QObject(parent)
    , config_(std::move(config)) {
    Q_ASSERT(config_.links > 0 && config_.links <= 256);
    slots_.resize(std::size_t(config_.links));
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        auto* retry = new QTimer(this);
        retry->setSingleShot(true);
        connect(retry, &QTimer::timeout, this, [this, i] { open(std::uint8_t(i)); });
        slots_[i].retry = retry;
    }
}

void LinkPool::start(int count) {
    activity_ = Activity::Running;
    const std::size_t end = std::min(slots_.size(), std::size_t(std::max(count, 0)));
    for (std::size_t i = started_; i < end; ++i)
        slots_[i].retry->start(config_.stagger * int(i - started_));
    started_ = std::max(started_, end);
}

void LinkPool::stop() {
    activity_ = Activity::Stopped;
    started_ = 0;
    for (Slot& slot : slots_) {
        slot.retry->stop();
        if (slot.link) {
            slot.link->disconnect(this);
            slot.link->close();
            slot.link->deleteLater();
            slot.link = nullptr;
        }
    }
}

int LinkPool::openCount() const {
    return int(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) {
        return s.link && s.link->state() == OnionLink::State::Open;
    }));
}

OnionLink* LinkPool::link(std::uint8_t slot) const {
    return slot < slots_.size() ? slots_[slot].link : nullptr;
}

QByteArray LinkPool::isolationKey(std::uint8_t slot) const {
    return slot < slots_.size() ? slots_[slot].isolationKey : QByteArray();
}

bool LinkPool::sendRecord(std::uint8_t slot, std::span<const std::uint8_t> record) {
    OnionLink* l = link(slot);
    return l && l->sendRecord(record);
}

void LinkPool::replace(std::uint8_t slot) {
    if (activity_ != Activity::Running || slot >= slots_.size())
        return;
    if (OnionLink* old = slots_[slot].link) {
        old->disconnect(this);
        old->close();
        emit linkDown(slot, QStringLiteral("replaced"));
    }
    open(slot);
}

void LinkPool::open(std::uint8_t slot) {
    if (activity_ != Activity::Running)
        return;
    Slot& s = slots_[slot];
    s.retry->stop();
    if (s.link)
        s.link->deleteLater();
    // A fresh key per attempt: a replacement must not reuse the broken link's circuit.
    s.isolationKey = QByteArray::number(QRandomGenerator::system()->generate64(), 16) +
                     QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    s.link = new OnionLink(config_.recordSize, this);
    OnionLink* link = s.link;
    connect(link, &OnionLink::opened, this, [this, slot] {
        peer_ = Peer::Reached;
        emit linkUp(slot);
    });
    connect(link, &OnionLink::recordReceived, this,
            [this, slot](const QByteArray& record) { emit recordReceived(slot, record); });
    connect(link, &OnionLink::failed, this,
            [this, slot](OnionLink::Failure, const QString& reason) {
                qCInfo(lcNet) << "link in slot" << slot << "down:" << reason;
                emit linkDown(slot, reason);
                if (activity_ == Activity::Running)
                    slots_[slot].retry->start(config_.replaceDelay);
            });
    // A test relay's port for the slot, or tor's SOCKS port as it is now.
    const SocksEndpoint socks = slot < config_.slotSocks.size() ? config_.slotSocks[slot]
                                : config_.socksFor              ? config_.socksFor(slot)
                                                                : config_.socks;
    link->connectToOnion(socks, config_.onionAddress + QStringLiteral(".onion"), config_.port,
                         s.isolationKey,
                         peer_ == Peer::Reached ? config_.relinkTimeout : config_.connectTimeout);
}

} // namespace onionvoice::net
