// Streams tor delivered for our service that have not yet proven anything: each must send a
// Hello (a new call) or a Join (a further link of the call) as its first record, within the
// proof timeout, or it is closed. At most `maxUnproven` such links exist at once: a newcomer
// beyond that closes the oldest unproven link (which had the most time to prove itself), so a
// flood of silent streams cannot keep a genuine caller's link out: a genuine link's proof comes
// with the stream itself (the caller sends it with its SOCKS request, see
// CallEngine::firstRecordFor), so it is read before 32 newer streams can push the link out.
// Also plays the decoy ring: callers who must not learn that they are blocked, or that we are busy,
// hear it ring and then no answer.
#pragma once

#include "CallTypes.h"
#include "Handshake.h"
#include "net/OnionLink.h"

#include <QObject>
#include <QSet>
#include <algorithm>
#include <chrono>
#include <deque>

namespace onionvoice::call {

// What is left of a ring of `ringTimeout` that has rung for `rang`, never less than nothing: a
// ring displaced by a contact's call goes on for this long, so it ends when it would have anyway.
constexpr std::chrono::milliseconds ringTimeLeft(std::chrono::milliseconds ringTimeout,
                                                 std::chrono::milliseconds rang) {
    return std::max(ringTimeout - rang, std::chrono::milliseconds(0));
}

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
    void ringWithoutAnswer(net::OnionLink* link, std::chrono::milliseconds ringTimeout);
    // A ring already under way (it heard Ringing) goes on unanswered: NoAnswer after `remaining`.
    void letRingOn(net::OnionLink* link, std::chrono::milliseconds remaining);

signals:
    void helloReceived(onionvoice::net::OnionLink* link, const onionvoice::call::Hello& hello);
    void joinReceived(onionvoice::net::OnionLink* link, const onionvoice::call::Join& join);

private:
    void onFirstRecord(net::OnionLink* link, const QByteArray& record);
    // Removes a link from the unproven ones; false when it was not among them.
    bool forget(net::OnionLink* link);
    // The decoy's end, as a real ring's: at the caller's first record, or NoAnswer at timeout.
    void endLikeARealRing(net::OnionLink* link, std::chrono::milliseconds timeout);

    IncomingLimits limits_;
    std::deque<net::OnionLink*> unproven_; // oldest first
    QSet<net::OnionLink*> decoys_;
    RefusalCounters& counters_;
};

} // namespace onionvoice::call
