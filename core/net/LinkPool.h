// The n links of a call to one peer: opened with staggered starts, each in its own slot with its
// own SOCKS isolation key (hence its own rendezvous circuit), and replaced when one breaks. A slow
// attempt gets a second one on fresh circuits beside it; the first of the two to open stays. A
// DialBudget bounds how many circuits all this asks tor for.
#pragma once

#include "DialBudget.h"
#include "OnionLink.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace onionvoice::net {

struct LinkPoolConfig {
    SocksEndpoint socks;
    std::vector<SocksEndpoint> slotSocks; // per-slot override of `socks` (a test relay), if any
    // When set, asked for the SOCKS endpoint at every attempt of a slot (instead of `socks`):
    // after a tor restart its SOCKS endpoint is only known again once the new tor reported it
    // (on Windows its `auto` port is a new one), and a live call must dial that one. An endpoint
    // not set (tor not ready) fails the attempt, which is retried after replaceDelay.
    std::function<SocksEndpoint(std::uint8_t slot)> socksFor;
    // When set, what each attempt of a slot sends first, with its SOCKS request (see
    // OnionLink::connectToOnion): asked at every attempt, empty for none.
    std::function<QByteArray(std::uint8_t slot)> firstRecord;
    QString onionAddress; // 56 characters, without ".onion"
    quint16 port = 0;
    int links = 12;
    std::size_t recordSize = 0;
    std::chrono::milliseconds stagger{25};           // between the first attempts of two slots
    std::chrono::milliseconds connectTimeout{60000}; // until a link to the peer has opened once
    // Once the peer has been reached, an attempt this slow is stuck on a bad circuit (a relay
    // that died, a rendezvous that never completes: tor keeps such a stream waiting for minutes);
    // a fresh circuit opens in seconds, so the attempt is abandoned and the slot dialled again.
    std::chrono::milliseconds relinkTimeout{10000};
    // Once the peer has been reached, an attempt not open after this long gets a second one beside
    // it, with its own isolation key (fresh circuits): after a relay on the call's paths died, tor
    // sometimes keeps a stream waiting on an open introduction circuit without ever sending the
    // introduction (tests/faults relay_kill, tor 0.4.9: a slot down for the whole relinkTimeout)
    // while a fresh attempt opens in 0.5-2 s. The first attempt is not abandoned: it may be the
    // one that is merely slow.
    std::chrono::milliseconds hedgeDelay{3000};
    // The same before the peer has been reached, for the call's first link (the handshake):
    // without it an attempt that hangs (tor waiting on an introduction that is never sent) held
    // the dial for the whole connectTimeout. Longer than hedgeDelay: a first link also fetches the
    // peer's descriptor, which takes seconds on a healthy network. Both attempts carry a Hello of
    // their own, and both may reach the callee: it takes the later one as a twin of the first
    // (call::RingKey).
    std::chrono::milliseconds firstHedgeDelay{10000};
    std::chrono::milliseconds replaceDelay{1000}; // before a failed attempt is dialled again
    // A link that broke after it had been open this long is replaced at once, not after
    // replaceDelay: when a relay carrying most of the call's links dies, that wait was most of the
    // gap in the audio (tests/faults relay_kill: all 12 links down, 1.16-s gap). A link that
    // breaks sooner waits replaceDelay, so a peer that closes every link cannot make us redial
    // in a loop.
    std::chrono::milliseconds workingAfter{5000};
    // Circuits the pool may ask for (DialBudget): dialsPerLink × links at once, then one more
    // every dialRefillPerLink / links, i.e. each link rebuilt once a minute on average. A relay's
    // death (tests/faults relay_kill, eight runs) took at most 32 dials, the 12 of the call's start
    // included: every link dialled again, failed attempts retried until tor's stuck introduction
    // state was purged, second attempts beside the slow ones. The burst leaves room for more.
    int dialsPerLink = 10;
    std::chrono::milliseconds dialRefillPerLink{60000};
};

class LinkPool : public QObject {
    Q_OBJECT
public:
    explicit LinkPool(LinkPoolConfig config, QObject* parent = nullptr);

    // Dials slots [0, count) (every slot by default); a later call with a larger count dials the
    // further slots, e.g. the rest of a call's links once the first has done the handshake.
    void start(int count = std::numeric_limits<int>::max());
    void stop();
    // Dials nothing more, ever (a later start() included): the call has ended. The open links stay
    // open, so that its last records still reach the peer while it lingers; a link that fails
    // meanwhile (the peer closes its end) is not dialled again.
    void halt();

    // Closes the slot's link and opens a replacement, e.g. when the engine's link monitor finds
    // the link silent although its TCP stream is still open, or a record on it was garbled: at
    // once if the link had been working, after replaceDelay otherwise (as for a broken link);
    // later while the dial budget is spent.
    void replace(std::uint8_t slot);

    const LinkPoolConfig& config() const { return config_; }
    int size() const { return int(slots_.size()); }
    int openCount() const;
    // The link now in a slot (nullptr while none exists); replaced links get new objects.
    OnionLink* link(std::uint8_t slot) const;
    // SOCKS username of the slot's current link (tor shows it as SOCKS_USERNAME in circuits).
    QByteArray isolationKey(std::uint8_t slot) const;
    // Every SOCKS username the pool has dialled with, one per attempt (bounded by the dial
    // budget): tor keeps the circuits built for them after their links closed (see
    // call::closeCircuitsOf).
    const QList<QByteArray>& dialledIsolationKeys() const { return dialled_; }
    bool sendRecord(std::uint8_t slot, std::span<const std::uint8_t> record);

signals:
    void linkUp(std::uint8_t slot);
    // A slot's link broke or could not be opened; a replacement is on its way (once the dial
    // budget allows).
    void linkDown(std::uint8_t slot, const QString& reason);
    void recordReceived(std::uint8_t slot, const QByteArray& record);
    // The slot's attempt with this isolation key has not opened within the hedge delay (a second
    // attempt goes beside it when the budget allows): the caller may ask tor why (see
    // call::introducedWithoutRendezvous).
    void attemptSlow(std::uint8_t slot, const QByteArray& isolationKey);

private:
    struct Attempt {
        OnionLink* link = nullptr;
        QByteArray isolationKey;
        std::optional<std::chrono::steady_clock::time_point> openedAt;
    };
    struct Slot {
        Attempt current; // the open link, or the first attempt to open one
        Attempt second;  // a second attempt beside a slow first one (hedgeDelay), if any
        // Before the peer was reached: a first attempt that lost the race to its second, kept
        // until the winner hears from the peer (see onOpened). Nothing it brings is used.
        Attempt loser;
        QTimer* retry = nullptr;
        QTimer* hedge = nullptr;
    };

    void open(std::uint8_t slot);
    void openSecond(std::uint8_t slot);
    Attempt dial(std::uint8_t slot);
    // Waits for the budget's next dial before the slot is dialled again.
    void deferDial(std::uint8_t slot);
    void onOpened(std::uint8_t slot, OnionLink* link);
    void onFailed(std::uint8_t slot, OnionLink* link, OnionLink::Failure failure,
                  const QString& reason);
    static void discard(Attempt& attempt);
    // No retry, no hedge, no second attempt: what would dial the slot again.
    static void cancelDials(Slot& slot);
    // Open for workingAfter: it broke, it did not fail to work.
    bool wasWorking(const Attempt& attempt) const;

    LinkPoolConfig config_;
    DialBudget budget_;
    enum class Pace { Free, Rationed }; // Rationed from the budget's first refusal (logged once)
    Pace pace_ = Pace::Free;
    std::vector<Slot> slots_;
    enum class Activity { Stopped, Running, Halted };
    Activity activity_ = Activity::Stopped;
    std::size_t started_ = 0; // slots [0, started_) have been dialled
    QList<QByteArray> dialled_;
    enum class Peer { NotReached, Reached };
    Peer peer_ = Peer::NotReached;
};

} // namespace onionvoice::net
