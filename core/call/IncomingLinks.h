// Streams tor delivered for our service that have not yet proven anything: each must send a
// Hello (a new call) or a Join (a further link of the call) as its first record, within the
// proof timeout, or it is closed. At most `maxUnproven` such links exist at once: a newcomer
// beyond that closes the oldest unproven link (which had the most time to prove itself), so a
// flood of silent streams cannot keep a genuine caller's link out: a genuine link's proof comes
// with the stream itself (the caller sends it with its SOCKS request, see
// CallEngine::firstRecordFor), so it is read before 32 newer streams can push the link out.
// Also plays the decoy ring: callers who must not learn that they are blocked, or that we are busy,
// hear it ring and then no answer; a twin of the Hello that rang joins it as it would a real ring,
// and the engine hears when a decoy ring is over, as when a real one is (a late twin is refused).
#pragma once

#include "AdmissionGuards.h"
#include "CallTypes.h"
#include "Handshake.h"
#include "SleepAwareTimer.h"
#include "net/OnionLink.h"

#include <QHash>
#include <QObject>
#include <chrono>
#include <deque>
#include <memory>
#include <vector>

namespace onionvoice::call {

// Twins a ring takes, real or decoy alike; a further one is closed at once. A caller has at most
// two attempts of its handshake link under way, and keeps only one of them.
inline constexpr int kMaxTwins = 2;

struct IncomingLimits {
    std::chrono::milliseconds proofTimeout{5000};
    int maxUnproven = 32;  // links that have not sent their first record yet
    int maxDecoyRings = 8; // decoy rings at once
};

class IncomingLinks : public QObject {
    Q_OBJECT
public:
    // counters: where the refusals are counted (the engine's).
    IncomingLinks(IncomingLimits limits, RefusalCounters& counters, QObject* parent = nullptr);

    void adopt(net::OnionLink* link);
    // Answers with a Refusal and closes the link a moment later (so the refusal reaches tor).
    void refuse(net::OnionLink* link, RefusalReason reason);
    // Answers Ringing and, after ringTimeout, NoAnswer, exactly like a call nobody picks up.
    void ringWithoutAnswer(net::OnionLink* link, const RingKey& ring,
                           std::chrono::milliseconds ringTimeout);
    // A ring already under way goes on unanswered: its links (the one that rang and the twins it
    // took) hear NoAnswer after `remaining`, and it takes twins up to kMaxTwins in all.
    void letRingOn(const std::vector<net::OnionLink*>& links, const RingKey& ring, int twins,
                   std::chrono::milliseconds remaining);
    // Whether a decoy ring with this key is under way.
    bool ringing(const RingKey& ring) const;
    // Whether a decoy ring of this caller's is under way.
    bool ringingFrom(const QString& caller) const;
    // Quitting: every decoy ring ends unanswered at once, as a real ring does then (the caller
    // must not tell them apart), its links closed with the answer flushed. True if there was one.
    bool endAllRings();
    // A twin of that decoy ring joins it as a twin of a real ring joins that one (see
    // CallEngine::addTwin): Ringing now, and the ring's end; past kMaxTwins it is closed at once.
    void joinRing(net::OnionLink* link, const RingKey& ring);

signals:
    void helloReceived(onionvoice::net::OnionLink* link, const onionvoice::call::Hello& hello);
    void joinReceived(onionvoice::net::OnionLink* link, const onionvoice::call::Join& join);
    // A decoy ring ended at the caller's first record or when its time was up (not when its
    // links were lost): a later twin of it is late (RingAdmission::endRing).
    void ringEnded(const onionvoice::call::RingKey& ring);

private:
    void onFirstRecord(net::OnionLink* link, const QByteArray& record);
    // Removes a link from the unproven ones; false when it was not among them.
    bool forget(net::OnionLink* link);
    // Its timer goes with deleteLater: the ring ends (and is freed) inside the timer's signal.
    struct DeleteLater {
        void operator()(QObject* object) const { object->deleteLater(); }
    };
    struct DecoyRing {
        RingKey key;
        int twins = 0;
        // A real ring's timer (CallEngine::armTimeout): one that counted a suspend differently
        // would tell the caller which ring it heard.
        std::unique_ptr<SleepAwareTimer, DeleteLater> timer;
    };
    std::shared_ptr<DecoyRing> find(const RingKey& key) const;
    // A decoy ring of `length`, counted; NoAnswer on all its links when the time is up.
    std::shared_ptr<DecoyRing> startRing(const RingKey& key, std::chrono::milliseconds length,
                                         int twins);
    // The decoy's end, as a real ring's: on every link of the ring at once, at the caller's first
    // record on any of them (each closes), or NoAnswer when the ring's time is up.
    void endLikeARealRing(net::OnionLink* link, const std::shared_ptr<DecoyRing>& ring);
    enum class RingEnd { NoAnswer, Silently };
    void endRing(const std::weak_ptr<DecoyRing>& ring, RingEnd how);

    IncomingLimits limits_;
    std::deque<net::OnionLink*> unproven_; // oldest first
    QHash<net::OnionLink*, std::shared_ptr<DecoyRing>> decoys_;
    RefusalCounters& counters_;
};

} // namespace onionvoice::call
