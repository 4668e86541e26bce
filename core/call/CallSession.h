// One call: who it is with, the handshake state, the link in each slot (a LinkPool for an outgoing
// call, the links the peer opened for an incoming one), what each slot carried, and once the keys
// exist the data path: sealing and opening records, the multipath endpoint and the audio.
#pragma once

#include "AdmissionGuards.h"
#include "CallTypes.h"
#include "FrameDelays.h"
#include "Handshake.h"
#include "RecordSealer.h"
#include "SendLateness.h"
#include "SilentLinkWatch.h"
#include "SleepAwareTimer.h"
#include "SleepCountingClock.h"
#include "media/AudioEngine.h"
#include "multipath/MultipathEndpoint.h"
#include "net/LinkPool.h"

#include <QElapsedTimer>
#include <QPointer>
#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace onionvoice::call {

// Closes a link (what it still has to send is flushed) and deletes it once control returns.
void discard(net::OnionLink* link);
// How long a link lives on after its last message (a refusal, a hang-up, the end of a call), so
// that the message reaches tor before the stream closes. Ended calls and decoy rings both use it:
// a caller must not tell them apart by when the stream closes.
inline constexpr std::chrono::milliseconds kLingerBeforeClose{300};
// How long a stop waits, once a just-ended call's links are closed, before it stops tor: time for
// tor to put their last records into cells (a stopped tor exits at once, and what it held is lost).
inline constexpr std::chrono::milliseconds kHangUpFlush{600};

std::span<const std::uint8_t> bytesOf(const QByteArray& a);

class CallSession {
public:
    using SlotState = call::SlotState;
    struct SlotCounters {
        std::uint64_t sent = 0, received = 0, failures = 0;
    };
    // What a sealed record from the peer turned out to be.
    enum class Received { Frames, HangUp, Ignored, Rejected, Replayed, OverRate };

    CallSession(CallDirection direction, QString peer);
    // Stops the pool and closes the links; they flush what they still have to send.
    ~CallSession();
    CallSession(const CallSession&) = delete;
    CallSession& operator=(const CallSession&) = delete;

    multipath::Time now() const;

    bool slotOpen(std::uint8_t slot) const;
    void sendOnSlot(std::uint8_t slot, std::span<const std::uint8_t> bytes);
    void sendSealed(std::uint8_t slot, const multipath::RecordBytes& plain);
    // Closes the slot's link (an outgoing call's pool dials a new one), or, when `from` is the link
    // standing by in the slot, that link alone: the slot's own link carries the caller's records.
    void closeSlot(std::uint8_t slot, const QString& reason, const net::OnionLink* from = nullptr);
    void slotLost(std::uint8_t slot);
    // The slot's link joined the call: it counts as heard from now.
    void slotUp(std::uint8_t slot);
    // Closes the Up links that went silent while the peer is heard on others (SilentLinkWatch).
    void closeSilentLinks();
    // No genuine record from the peer for longer than `limit`, time asleep included.
    bool peerSilentFor(std::chrono::milliseconds limit) const;
    // Disconnects the pool and the links from receiver, e.g. once the call ended.
    void detach(QObject* receiver);
    // Takes the slot's link out of the call, open and disconnected from receiver (nullptr if
    // the slot has none): the call's end then leaves it alone.
    net::OnionLink* release(std::uint8_t slot, QObject* receiver);
    // The same for a ring's links: the control link and the twins standing by beside it.
    std::vector<net::OnionLink*> releaseRing(QObject* receiver);
    // A handshake message to the caller (Ringing, Accept, a refusal): on the control link and on
    // every twin standing by, since the caller may have kept any of them.
    void sendHandshake(std::span<const std::uint8_t> bytes);
    // The first twin still open, taken out of the twins (nullptr if none is).
    net::OnionLink* takeTwin();
    // A Join for a slot that has a link: `link` takes the slot, the old one stands by (one at a
    // time: an older standby closes).
    void joinBesideCurrent(std::uint8_t slot, net::OnionLink* link);
    // A genuine record came on `link` (it opened): if it stands by in its slot, the caller kept
    // it, and it becomes the slot's link again (the other stands by until it closes); a standby
    // that followed a closed link (linkClosed) is up again.
    void recordOn(std::uint8_t slot, const net::OnionLink* link);
    // `link` closed: a standby leaves the call. The slot's link is followed by its standby, and
    // the slot is down until the caller's records come on it (recordOn): it may be the link the
    // caller replaced, dead on a broken circuit. False when the slot has no link left (it is
    // lost).
    bool linkClosed(std::uint8_t slot, const net::OnionLink* link);

    // Both sides, once the keys exist: sealer, opener and multipath endpoint; the control slot
    // carries the call's records from now on.
    void startDataPath();
    // Opens a record from an Up slot, hands its frames to the audio; closes the slot on a forged
    // or malformed record. Records beyond a few times the agreed rate of a link are dropped
    // unopened, so a peer cannot make us spend without bound.
    // `from` is the incoming call's link the record came on (nullptr: the slot's one link). A
    // record that does not open (forged, the wrong size) on a link standing by closes that link
    // alone, and only a record that opens makes it the slot's link (recordOn).
    Received receiveSealed(std::uint8_t slot, const QByteArray& record, const net::OnionLink* from);
    void sendPacket(std::uint32_t sequence, const QByteArray& packet);
    // Starts the interval the next statistics snapshot covers (its per-interval figures).
    void startSnapshotInterval();

    CallDirection direction = CallDirection::Outgoing;
    CallState state = CallState::Idle;
    QString peer;
    std::unique_ptr<EphemeralKey> ephemeral;
    // An outgoing call's Hello of its latest handshake attempt; an incoming call's, the Hello
    // that rang.
    Hello hello;
    // Outgoing: the Hello of every handshake attempt (each has its own; at most as many as the
    // pool's dial budget): the answer may come for any of them (a twin, see RingKey).
    std::vector<Hello> hellosSent;
    // Outgoing: the callee said our calls crossed and its call to us goes on; ours waits for it
    // (until its own timeout), deaf to the twins' answers.
    enum class Crossing { No, TheirsGoesOn };
    Crossing crossing = Crossing::No;
    // Incoming: the twins of the ringing Hello, standing by beside the control link (RingKey),
    // how many have joined, and once answered, the Accept (a twin arriving later hears it too).
    std::vector<QPointer<net::OnionLink>> twins;
    int twinsJoined = 0;
    std::optional<Accept> accept;
    CallParameters agreed;
    std::optional<CallKeys> keys;
    std::unique_ptr<RecordSealer> sealer;
    std::unique_ptr<RecordOpener> opener;
    std::unique_ptr<multipath::MultipathEndpoint> endpoint;
    std::unique_ptr<media::AudioEngine> audio;
    std::shared_ptr<FrameObserver> frameObserver; // optional
    net::LinkPool* pool = nullptr;                // outgoing calls
    // Incoming calls. QPointer: a link deletes itself when it fails, also after the call ended.
    std::array<QPointer<net::OnionLink>, multipath::kMaxLinks> links{};
    // Incoming calls: the link a slot had before a newer Join took its place, standing by until
    // one of the two closes. The caller's slot may have had a slow attempt and a second one beside
    // it, and both reached us: the caller keeps the one that opened first on its side and closes
    // the other, and only which of them its records come on tells us which (recordOn). A newer
    // Join after a link broke is the caller's replacement: the broken one stands by until it
    // closes, the call ends, or a later Join takes its place.
    std::array<QPointer<net::OnionLink>, multipath::kMaxLinks> standby{};
    std::uint8_t controlSlot = 0;
    std::array<SlotState, multipath::kMaxLinks> slotStates{};
    std::array<SlotCounters, multipath::kMaxLinks> counters{};
    QElapsedTimer clock;
    // When the call was answered (now()); what a user calls its duration starts there, not at the
    // dial or the ring.
    std::optional<multipath::Time> answeredAt;
    // When the peer's last genuine record arrived, on a clock that counts a suspend of this
    // machine (the peer's network-loss timeout ran on through it).
    SleepCountingClock::time_point lastAuthenticated{};
    SilentLinkWatch silence;
    std::uint64_t rejected = 0, framesReceived = 0;
    FrameDelays frameDelays;
    std::int64_t snapshotIntervalStartMs = 0; // frames arriving after it belong to the next one
    SendLateness sendLateness;
    std::array<TokenBucket, multipath::kMaxLinks> recordBudget{};
    std::unique_ptr<SleepAwareTimer> timeout; // dial and ring timeouts
};

} // namespace onionvoice::call
