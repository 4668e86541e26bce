// The call engine's incoming side: which Hello may ring and what every other caller hears, the
// ring itself and its twins, and the links that join an incoming call.
#include "CallEngine.h"
#include "CallLog.h"

namespace onionvoice::call {

void CallEngine::refuseIncoming(net::OnionLink* link, const QString& peer, RefusalReason reason,
                                EndReason local) {
    incoming_.refuse(link, reason);
    emit callRefused(peer, local);
}

// Who may ring. Strangers (callers who are not contacts) and blocked callers learn nothing about
// our state: a blocked caller hears it ring unanswered, as a contact we do not pick up does (also
// where strangers are refused, and whatever rate strangers have used up), and Busy when it calls
// again while that ring lasts, as a contact does whose call rings; a stranger calling while
// we are busy hears it ring unanswered, exactly as when we are idle and do not pick up; a
// stranger's ring displaced by a contact's call rings on to its end. A Hello that may not ring
// hears BadRequest whatever failed, its clock, its replay or its rate. Contacts are trusted with
// "busy" (and the UI gets a missed-call notice through callRefused).
void CallEngine::onIncomingHello(net::OnionLink* link, const Hello& hello) {
    auto bad = verifyHello(hello, address(), unixNow(), kMaxClockSkew);
    // The Hello's link becomes the control link, so it must be one of the slots we would agree
    // to; outside them the silent-link watch and the statistics would never see it.
    if (!bad && hello.slot >= agreeParameters(hello.proposed, config_.parameters).links)
        bad = QStringLiteral("link slot beyond the links we accept");
    if (bad) {
        qCInfo(lcCall) << "refusing a call:" << *bad;
        ++refusals_.badHellos;
        // The caller's address is unverified here: it never reaches the UI.
        refuseIncoming(link, QString(), RefusalReason::BadRequest, EndReason::ProtocolError);
        return;
    }
    // A twin of a Hello that rings (the caller's second attempt) joins its ring, real or decoy
    // alike, before anything else: it is the same call, already admitted, and a twin that heard
    // anything else from a real ring than from a decoy would tell the caller we are busy.
    const RingKey ringKey = ringKeyOf(hello);
    const bool twinOfCall =
        call_ && call_->direction == CallDirection::Incoming && ringKeyOf(call_->hello) == ringKey;
    if (twinOfCall || incoming_.ringing(ringKey)) {
        if (admission_.admitTwin(hello, monotonicNow()) != RingVerdict::Ring) {
            ++refusals_.replayedHellos;
            qCInfo(lcCall) << "refusing a replayed hello";
            incoming_.refuse(link, RefusalReason::BadRequest);
        } else if (twinOfCall) {
            addTwin(link);
        } else {
            incoming_.joinRing(link, ringKey);
        }
        return;
    }
    const auto contact = contacts_.find(hello.caller);
    const bool trusted = contact && !contact->blocked;
    // A Hello of a ring that is over (a twin late on its circuit: the caller hung up, or we
    // rejected, while it was on its way) is refused as a replay is, real and decoy rings alike:
    // it must not ring again for a call its caller gave up, nor tell a rejected caller more than
    // the ring did.
    const RingVerdict verdict = admission_.admit(
        hello, contact ? CallerStanding::Contact : CallerStanding::Stranger, monotonicNow());
    if (verdict != RingVerdict::Ring) {
        if (verdict == RingVerdict::RateLimited) {
            ++refusals_.rateLimitedRings;
        } else {
            ++refusals_.replayedHellos;
            qCInfo(lcCall) << (verdict == RingVerdict::Ended
                                   ? "refusing a hello of a ring that is over"
                                   : "refusing a replayed hello");
        }
        // The answer to a Hello whose clock is off: silence here would let anyone re-sign one
        // Hello (or ring past their rate) with chosen times and read our clock off the window's
        // edge, where the answer changes.
        incoming_.refuse(link, RefusalReason::BadRequest);
        return;
    }
    if (crossesOurCall(hello) && (!contact || !contact->blocked)) {
        // Both dialled at once. The lower address's call goes on, by a rule both engines apply:
        // before, each heard the other's "busy" (or, as strangers, rang as a decoy), and each
        // user waited for the other. Our Crossed tells the caller to answer ours.
        const bool ours = address() < hello.caller;
        qCInfo(lcCall) << "our calls crossed:" << (ours ? "ours goes on" : "the caller's goes on");
        if (ours)
            incoming_.refuse(link, RefusalReason::Crossed);
        else
            yieldToCrossingCall(link, hello);
        return;
    }
    if (call_ && call_->direction == CallDirection::Outgoing && call_->peer == hello.caller) {
        // The peer of our call: a crossing call's Hello that came after the peer answered ours
        // (it dropped its own), or the peer calling again while our side of a call it lost is
        // still up. Busy, without a missed-call notice about the one we talk to.
        ++refusals_.busy;
        incoming_.refuse(link, RefusalReason::Busy);
        return;
    }
    if (!contact && config_.unknownCallers == UnknownCallers::Refuse) {
        ++refusals_.notAccepted;
        refuseIncoming(link, hello.caller, RefusalReason::NotAccepted, EndReason::NotAccepted);
        return;
    }
    if (!trusted && (call_ || contact)) {
        if (contact && incoming_.ringingFrom(hello.caller)) {
            // A contact calling again while its first call rings hears Busy (below); a blocked
            // one whose first call rings as a decoy must hear the same, or calling twice would
            // tell it that it is blocked.
            ++refusals_.busy;
            refuseIncoming(link, hello.caller, RefusalReason::Busy, EndReason::NotAccepted);
            return;
        }
        incoming_.ringWithoutAnswer(link, ringKey, config_.ringTimeout); // counts the decoy ring
        emit callRefused(hello.caller, contact ? EndReason::NotAccepted : EndReason::Busy);
        return;
    }
    if (call_ && call_->direction == CallDirection::Incoming &&
        call_->state == CallState::Ringing && !contacts_.find(call_->peer)) {
        // A stranger's ring must not keep a contact out, nor end early: the stranger would learn
        // when a contact of ours calls. It rings on, unanswered, for the rest of its time.
        ringOnAsDecoy(EndReason::NoAnswer);
    }
    if (call_) {
        ++refusals_.busy;
        refuseIncoming(link, hello.caller, RefusalReason::Busy, EndReason::Busy);
        return;
    }
    ring(link, hello, contact ? contact->displayName : QString());
}

void CallEngine::ring(net::OnionLink* link, const Hello& hello, const QString& displayName) {
    if (!startRing(link, hello))
        return;
    // Audio that cannot start would end the call as it is answered: the prompt says so first.
    emit incomingCall(hello.caller, displayName, missingAudio());
}

bool CallEngine::startRing(net::OnionLink* link, const Hello& hello) {
    call_ = std::make_unique<CallSession>(CallDirection::Incoming, hello.caller);
    call_->frameObserver = config_.frameObserver;
    call_->hello = hello;
    call_->controlSlot = hello.slot;
    call_->slotStates[hello.slot] = CallSession::SlotState::Joining;
    attachIncoming(link, hello.slot);
    link->sendRecord(encodeHandshake(Ringing{}));
    if (!setCallState(CallState::Ringing))
        return false;
    armTimeout(config_.ringTimeout, EndReason::NoAnswer);
    return true;
}

// Our own call to this caller, unanswered.
bool CallEngine::crossesOurCall(const Hello& hello) const {
    return call_ && call_->direction == CallDirection::Outgoing && call_->peer == hello.caller &&
           !call_->keys;
}

// The caller's call goes on, ours goes: without a word to the user, who sees the call they
// started go on; it is answered at once, since we were calling them.
void CallEngine::yieldToCrossingCall(net::OnionLink* link, const Hello& hello) {
    sendCancel();
    end(EndReason::Cancelled, RingFate::Over, EndNotice::Silent);
    if (startRing(link, hello))
        answer();
}

void CallEngine::onJoin(net::OnionLink* link, const Join& join) {
    if (!call_ || !call_->keys || call_->direction != CallDirection::Incoming ||
        join.slot >= call_->agreed.links || !verifyJoin(*call_->keys, join)) {
        qCInfo(lcCall) << "closing a link with a wrong join token";
        ++refusals_.badJoins;
        if (call_)
            ++call_->rejected;
        discard(link);
        return;
    }
    if (call_->links[join.slot]) {
        call_->joinBesideCurrent(join.slot, link);
        connectIncoming(link, join.slot);
    } else {
        attachIncoming(link, join.slot);
    }
    call_->slotUp(join.slot);
}

// A twin of the ringing Hello stands by beside the control link, and takes its place when that one
// closes (the caller kept the twin and closed the other). Until then what the caller sends on it
// counts as sent on the control slot. It hears what the control link heard: Ringing, or the Accept
// when the answer came first.
void CallEngine::addTwin(net::OnionLink* link) {
    if (call_->twinsJoined >= kMaxTwins) {
        discard(link);
        return;
    }
    ++call_->twinsJoined;
    call_->twins.emplace_back(link);
    connectIncoming(link, call_->controlSlot);
    link->sendRecord(call_->accept ? encodeHandshake(*call_->accept) : encodeHandshake(Ringing{}));
}

void CallEngine::attachIncoming(net::OnionLink* link, std::uint8_t slot) {
    call_->links[slot] = link;
    connectIncoming(link, slot);
}

void CallEngine::connectIncoming(net::OnionLink* link, std::uint8_t slot) {
    connect(link, &net::OnionLink::recordReceived, this,
            [this, slot, link](const QByteArray& record) { onRecord(slot, record, link); });
    connect(link, &net::OnionLink::failed, this, [this, slot, link](net::OnionLink::Failure why) {
        if (why == net::OnionLink::Failure::SendBacklog)
            ++refusals_.linksStalled;
        if (!call_ || (call_->links[slot] != link && call_->standby[slot] != link))
            return;
        if (call_->linkClosed(slot, link))
            return;
        if (slot == call_->controlSlot) {
            if (net::OnionLink* twin = call_->takeTwin()) {
                qCInfo(lcCall) << "the handshake link closed: its twin takes its place";
                call_->links[slot] = twin;
                return;
            }
        }
        call_->slotLost(slot);
        if (!call_->keys && slot == call_->controlSlot)
            end(EndReason::Cancelled, RingFate::LinkLost); // the caller went away while it rang
    });
}

} // namespace onionvoice::call
