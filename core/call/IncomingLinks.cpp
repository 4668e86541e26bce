// The first record of each incoming link, the proof timeout, the bound on unproven links and
// decoy rings.
#include "IncomingLinks.h"

#include "CallLog.h"
#include "CallSession.h"

#include <QSet>
#include <QTimer>

namespace onionvoice::call {
IncomingLinks::IncomingLinks(IncomingLimits limits, RefusalCounters& counters, QObject* parent)
    : QObject(parent)
    , limits_(limits)
    , counters_(counters) {}

void IncomingLinks::adopt(net::OnionLink* link) {
    link->setParent(this);
    if (std::ssize(unproven_) >= limits_.maxUnproven) {
        ++counters_.linksOverLimit;
        net::OnionLink* oldest = unproven_.front();
        unproven_.pop_front();
        discard(oldest);
    }
    unproven_.push_back(link);
    connect(link, &QObject::destroyed, this, [this, link] {
        forget(link);
        decoys_.remove(link);
    });
    connect(link, &net::OnionLink::recordReceived, this,
            [this, link](const QByteArray& record) { onFirstRecord(link, record); });
    connect(link, &net::OnionLink::failed, link, &QObject::deleteLater);
    QTimer::singleShot(limits_.proofTimeout, link, [this, link] {
        if (forget(link)) {
            ++counters_.linksUnproven;
            qCInfo(lcCall) << "closing a link that did not prove it belongs to a call";
            discard(link);
        }
    });
}

bool IncomingLinks::forget(net::OnionLink* link) {
    const auto it = std::find(unproven_.begin(), unproven_.end(), link);
    if (it == unproven_.end())
        return false;
    unproven_.erase(it);
    return true;
}

void IncomingLinks::refuse(net::OnionLink* link, RefusalReason reason) {
    link->sendRecord(encodeHandshake(Refusal{reason}));
    QTimer::singleShot(kLingerBeforeClose, link, [link] { discard(link); });
}

bool IncomingLinks::endAllRings() {
    const auto decoys = std::exchange(decoys_, {});
    for (auto it = decoys.begin(); it != decoys.end(); ++it) {
        it.key()->sendRecord(encodeHandshake(Refusal{RefusalReason::NoAnswer}));
        discard(it.key());
    }
    return !decoys.isEmpty();
}

void IncomingLinks::ringWithoutAnswer(net::OnionLink* link, const RingKey& ring,
                                      std::chrono::milliseconds ringTimeout) {
    QSet<const DecoyRing*> rings;
    for (const auto& r : std::as_const(decoys_))
        rings.insert(r.get());
    if (rings.size() >= limits_.maxDecoyRings) {
        discard(link);
        return;
    }
    link->sendRecord(encodeHandshake(Ringing{}));
    endLikeARealRing(link, startRing(ring, ringTimeout, 0));
}

// Not held to the bound of decoy rings: it was a real ring, and only a contact's call displaces
// one, so their number is bounded by our contacts' rate of rings; ending it early for want of
// room would tell its caller what it must not learn.
void IncomingLinks::letRingOn(const std::vector<net::OnionLink*>& links, const RingKey& ring,
                              int twins, std::chrono::milliseconds remaining) {
    const auto decoy = startRing(ring, remaining, twins);
    for (net::OnionLink* link : links)
        endLikeARealRing(link, decoy);
}

std::shared_ptr<IncomingLinks::DecoyRing> IncomingLinks::find(const RingKey& key) const {
    const auto it = std::find_if(decoys_.cbegin(), decoys_.cend(),
                                 [&](const auto& decoy) { return decoy->key == key; });
    return it == decoys_.cend() ? nullptr : *it;
}

bool IncomingLinks::ringing(const RingKey& ring) const {
    return find(ring) != nullptr;
}

bool IncomingLinks::ringingFrom(const QString& caller) const {
    return std::any_of(decoys_.cbegin(), decoys_.cend(),
                       [&](const auto& decoy) { return decoy->key.caller == caller; });
}

void IncomingLinks::joinRing(net::OnionLink* link, const RingKey& ring) {
    const std::shared_ptr<DecoyRing> decoy = find(ring);
    if (!decoy || decoy->twins >= kMaxTwins) {
        discard(link);
        return;
    }
    ++decoy->twins;
    link->sendRecord(encodeHandshake(Ringing{}));
    endLikeARealRing(link, decoy);
}

std::shared_ptr<IncomingLinks::DecoyRing>
IncomingLinks::startRing(const RingKey& key, std::chrono::milliseconds length, int twins) {
    ++counters_.decoyRings;
    auto ring = std::make_shared<DecoyRing>(
        DecoyRing{key, twins, std::unique_ptr<SleepAwareTimer, DeleteLater>(new SleepAwareTimer)});
    // One timer for the whole ring: its links hear NoAnswer together, as a real ring's do (timers
    // of their own, coarse ones, ended a twin up to a second apart from the link that rang).
    connect(ring->timer.get(), &SleepAwareTimer::timeout, this,
            [this, weak = std::weak_ptr<DecoyRing>(ring)] { endRing(weak, RingEnd::NoAnswer); });
    ring->timer->start(length);
    return ring;
}

void IncomingLinks::endLikeARealRing(net::OnionLink* link, const std::shared_ptr<DecoyRing>& ring) {
    decoys_.insert(link, ring);
    // A real ring ends at the caller's first record, its Cancel or anything else, and its links
    // close a moment later without a word; a decoy that went on ringing would tell the caller
    // that it is blocked, or that we are busy.
    // The ring is named by a weak pointer: its links linger after it ends, and a record on one
    // of them must not end the next ring made at the same address.
    connect(link, &net::OnionLink::recordReceived, this,
            [this, weak = std::weak_ptr<DecoyRing>(ring)] { endRing(weak, RingEnd::Silently); });
}

void IncomingLinks::endRing(const std::weak_ptr<DecoyRing>& weak, RingEnd how) {
    const std::shared_ptr<DecoyRing> ring = weak.lock();
    if (!ring)
        return; // ended already
    std::vector<net::OnionLink*> links;
    for (auto it = decoys_.begin(); it != decoys_.end();) {
        if (it.value() == ring) {
            links.push_back(it.key());
            it = decoys_.erase(it);
        } else {
            ++it;
        }
    }
    emit ringEnded(ring->key);
    for (net::OnionLink* link : links) {
        if (how == RingEnd::NoAnswer)
            refuse(link, RefusalReason::NoAnswer);
        else
            QTimer::singleShot(kLingerBeforeClose, link, [link] { discard(link); });
    }
}

void IncomingLinks::onFirstRecord(net::OnionLink* link, const QByteArray& record) {
    disconnect(link, &net::OnionLink::recordReceived, this, nullptr);
    forget(link);
    const HandshakeDecode decoded = decodeHandshake(bytesOf(record));
    const Hello* hello = decoded.message ? std::get_if<Hello>(&*decoded.message) : nullptr;
    const Join* join = decoded.message ? std::get_if<Join>(&*decoded.message) : nullptr;
    if (hello) {
        emit helloReceived(link, *hello);
    } else if (join) {
        emit joinReceived(link, *join);
    } else {
        ++counters_.linksGarbage;
        qCInfo(lcCall) << "closing a new link:"
                       << (decoded.error.isEmpty() ? QStringLiteral("unexpected message")
                                                   : decoded.error);
        discard(link);
    }
}

} // namespace onionvoice::call
