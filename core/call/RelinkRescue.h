// When replacement links to a peer keep failing while the call still has working links, the cause
// is usually tor's client-side onion-service state, not the peer: after a relay on the call's paths
// died, tor counts the circuits that failed through it against the peer's introduction points,
// marks them unusable for two minutes and keeps the cached descriptor that lists them, so every new
// link fails with "introduction failed" (tests/faults relay_kill: slots down for the rest of a
// 60-s call). SIGNAL NEWNYM purges that state (descriptor cache, introduction-point failures) and
// leaves open links and their circuits alone. This class decides when to ask for it.
//
// Seen in tor's info log (tests/faults relay_kill --tor-log info, tor 0.4.9): within a second of
// the relay's death, the introduction circuits of the replacement attempts that happened to pass
// through it failed while being built, and tor counted each against the introduction point at
// their end ("Marking as unreachable"; five make it unusable), although those points were fine;
// a third point answered NACK because the peer's own circuit to it had died. Tor then refetched
// the descriptor, got the same one (the peer publishes its new points ~5 s later), found it
// "unusable" and answered every attempt "introduction failed" (SOCKS 0xF2) until the purge. That
// answer, or "descriptor not found" (0xF0: every HSDir asked recently), is tor saying that its
// state is stuck, not that one circuit was unlucky: it asks for the purge at once.
//
// A purge costs anonymity: in tor 0.4.9 NEWNYM also replaces the 4 vanguards-lite layer-2 relays
// of every onion-service circuit (info log: "Adding 4 guards to Layer2 routerset" right after the
// purge), which tor otherwise keeps 1-12 days so that an attacker's middle relays seldom become
// one and see the guard behind it. Whoever can make our introductions fail (the peer we call,
// by refusing them) could make us pick new ones at every purge. So at most one purge per 10
// minutes, across calls: a later stuck state waits for tor's introduction-point failures to
// expire (2 minutes) while the call goes on over its remaining links.
//
// A purge helps only while the call still has working links (one up, the peer heard within a
// second), the premise above. With none (the peer's tor or app died, or its network went) the
// same answers say that the peer is gone, and a purge then finds nothing to fix: tor fills its
// state again from the descriptor the peer left behind, and the purge of the next 10 minutes was
// spent before the peer was back, so the call back met the stuck state with none left
// (tests/call/tst_handshaketwins). The price: when a relay that every link passed through dies
// (our guard), the call is lost rather than rescued, and the call back purges.
//
// "Working" is judged again kConfirmDelay after the failure, and the purge made only then: the
// links of a peer whose tor died do not all close at once, and the first replacement can be
// answered "introduction failed" while one of them is still up and the peer was heard a moment
// ago (tst_handshaketwins, one run in ten: the purge went to the dying call, and the call back
// met the stuck state with none left). Two seconds later such a peer has been silent for longer
// than the second that counts, and a purge withdrawn so leaves the 10 minutes unspent.
//
// The same state meets the call back after a call that dropped (a relay on its paths died): every
// attempt at the new call's first link fails "introduction failed" until the failures expire, and
// the dial spent its 2 minutes retrying (tests/call/tst_handshaketwins). So a failed attempt at
// the handshake link may ask for the purge too, but only for a peer we were in a call with in the
// last 10 minutes. A peer that is simply offline makes tor give the same answers (its descriptor
// outlives it on the directories, and its introduction points refuse us): a purge for every call
// to someone offline would replace the layer-2 relays for nothing, and anyone could have us do it
// by being called while away.
//
// The third form of a stuck state: the introduction points of tor's cached descriptor acknowledge
// every introduction, and the peer never comes to the rendezvous, because the points still hold
// circuits of the peer's old tor (frozen, or dead while a point still believes it alive), and the
// peer's new tor publishes other points. Tor marks none of them as failed and never fetches the
// new descriptor: the call back after a restart of the callee's tor hung so until its dial timed
// out (tst_manycalls in CI; tst_handshaketwins reproduces it with the old tor frozen). The dial's
// hedge asks tor about its slow first attempt (call::introducedWithoutRendezvous), twice 5 s
// apart, and counts an attempt left waiting as ClientStateStuck, under the same rules: a recent
// peer, one purge per 10 minutes.
#pragma once

#include "SleepCountingClock.h"
#include "multipath/Types.h"
#include "net/OnionLink.h"

#include <QString>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

namespace onionvoice::call {

class RelinkRescue {
public:
    // Counts sleep: after a night's suspend, a peer called just before is no recent peer, and a
    // dial to it (offline now) must not purge tor's circuits (see above).
    using Clock = SleepCountingClock;
    struct Config {
        int failedAttempts = 3; // in a row in one slot
        // Between two purges (see above); at least 10 s, since tor delays a NEWNYM that follows
        // another within 10 s, and a delayed purge would also drop a client-auth key given to
        // tor after it.
        std::chrono::milliseconds minInterval{std::chrono::minutes(10)};
        // How long after a call with a peer its dial may ask for a purge (see above).
        std::chrono::milliseconds recentPeer{std::chrono::minutes(10)};
    };

    RelinkRescue() = default;
    explicit RelinkRescue(Config config)
        : config_(config) {}

    enum class Failure {
        Other,
        // Tor answered 0xF0 or 0xF2, or introduced an attempt that no rendezvous followed (above).
        ClientStateStuck,
        NoTor, // no tor to ask (it died, or is starting again): no attempt was made
    };
    static Failure classify(net::OnionLink::Failure failure, int socksReplyCode);
    // Whether the call has working links when an attempt fails (see above).
    enum class CallLinks { Working, NoneWorking };

    // Between a purge asked for during a call and the look at whether the call still works.
    static constexpr std::chrono::milliseconds kConfirmDelay{2000};

    // An attempt to open a link in `slot` failed. True when tor's state should be purged: if the
    // call still works kConfirmDelay later, else purgeWithdrawn().
    // Attempts that found no tor do not count: while our tor restarts, every slot retries each
    // second, and a purge asked for then would go nowhere and still use up the 10 minutes. Nor
    // do attempts while the call has no working link.
    bool attemptFailed(std::uint8_t slot, Clock::time_point now, Failure failure = Failure::Other,
                       CallLinks links = CallLinks::Working);
    // The same for an attempt at the handshake link of a call to `peer` (before the answer): only
    // for a peer reached in the last recentPeer.
    bool dialAttemptFailed(const QString& peer, std::uint8_t slot, Clock::time_point now,
                           Failure failure);
    // A call with `peer` was answered and has ended at `now`: the peer was online until then.
    void peerReached(const QString& peer, Clock::time_point now);
    // The purge that attemptFailed asked for was not made (the call stopped working before it):
    // the interval it would have started is not spent. (The purge before it was at least an
    // interval earlier, or attemptFailed would not have asked.)
    void purgeWithdrawn();
    void linkUp(std::uint8_t slot);
    // A new call: its slots start without failures; the time of the last purge is kept.
    void startCall();

private:
    bool countFailure(std::uint8_t slot, Clock::time_point now, Failure failure);

    Config config_;
    std::array<int, multipath::kMaxLinks> failures_{};
    std::optional<Clock::time_point> lastRescue_;
    std::map<QString, Clock::time_point> reached_; // peers of the last recentPeer, when last seen
};

} // namespace onionvoice::call
