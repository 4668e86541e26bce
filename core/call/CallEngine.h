// The engine: the one object the UI and the command line drive. It owns the tor process, the
// published onion service, the contact book and at most one call at a time: the handshake on the
// first link, the proof of every further link, sealed records spread over the links by the
// multipath scheduler, audio in and out, and the statistics snapshots a few times per second.
// Everything runs on the thread the engine lives on; callers talk to it through slots and signals.
#pragma once

#include "AdmissionGuards.h"
#include "CallSession.h"
#include "CallTypes.h"
#include "Handshake.h"
#include "IncomingLinks.h"
#include "RelinkRescue.h"
#include "ServiceHost.h"
#include "contacts/ContactBook.h"
#include "media/AudioEngine.h"
#include "tor/OnionService.h"
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <functional>
#include <map>
#include <memory>

namespace onionvoice::call {

enum class UnknownCallers { Ring, Refuse };
enum class ServiceAccess { Open, ContactsOnly };

// Limits against hostile callers; the defaults suit a person's phone line.
struct IncomingDefence {
    double ringsPerCallerPerMinute = 4; // also the burst
    double strangerRingsPerMinute = 6;  // all callers who are not contacts together; also the burst
    int maxUnprovenLinks = 32;          // streams that have not yet sent a Hello or Join
    int maxDecoyRings = 8;
};

struct EngineConfig {
    QString dataDirectory;
    QString torExecutable;       // empty: bundled, $ONIONVOICE_TOR, then PATH
    QStringList extraTorrcLines; // e.g. a private test network's options
    tor::SecurityPreset preset = tor::SecurityPreset::Standard;
    quint16 servicePort = 7700; // port in our onion address
    UnknownCallers unknownCallers = UnknownCallers::Ring;
    ServiceAccess access = ServiceAccess::Open;
    CallParameters parameters;                 // what we propose, and the most we accept
    media::VoiceProcessingSettings processing; // of our microphone
    std::chrono::milliseconds ringTimeout{30000};
    std::chrono::milliseconds linkProofTimeout{5000};
    std::chrono::milliseconds dialTimeout{120000};
    std::chrono::milliseconds networkLossTimeout{20000};
    IncomingDefence defence;
    // Audio device for a call, created when the call becomes active.
    std::function<std::unique_ptr<media::AudioBackend>(QString* error)> audio;
    // Whether the devices `audio` would open are there, without opening them (no microphone
    // light comes on): a dial checks it before it rings anyone. Unset where there is nothing to
    // look for (sound files, test backends). Kept apart from `audio`, which may act when called
    // (a recording file made, a frame log written). A ring checks it too, to warn the callee.
    std::function<bool(QString* error)> audioDevicesPresent;
    // Test hook for link impairment: slot i of an outgoing call dials through a SOCKS relay on
    // 127.0.0.1:slotSocksPorts[i] instead of tor's port. Only a port: the address is always
    // loopback, so the hook can never send a link anywhere but to this machine.
    std::vector<quint16> slotSocksPorts;
    std::shared_ptr<FrameObserver> frameObserver; // optional
};

class CallEngine : public QObject {
    Q_OBJECT
public:
    explicit CallEngine(EngineConfig config, QObject* parent = nullptr);
    ~CallEngine() override;

    // Loads or creates the identity and the contact book, starts tor and publishes the service.
    bool start(QString* error);
    // Hangs up a call in progress and stops tor; when a call has just ended, first waits
    // kHangUpFlush (blocking) so that tor sends its hang-up.
    void stop();

    QString address() const { return host_.address(); }
    CallState callState() const { return call_ ? call_->state : CallState::Idle; }
    contacts::ContactBook& contacts() { return contacts_; }
    // In force: Refuse also while the book may have lost entries and nobody has chosen since.
    UnknownCallers unknownCallers() const { return config_.unknownCallers; }
    tor::TorLauncher* torLauncher() { return host_.launcher(); }
    // The published service (nullptr with the one-way hotline preset: see hotline()).
    tor::OnionService* service() { return host_.service(); }
    tor::HotlineService* hotline() { return host_.hotline(); }
    QByteArray serviceTarget() const { return host_.serviceTarget(); }
    // What the engine refused from the network since it started.
    const RefusalCounters& refusals() const { return refusals_; }

public slots:
    void dial(const QString& address);
    // The ringing call, whoever rings (onionvoice-cli answers as the ring is announced).
    void answer();
    void reject();
    // The ringing call only if `caller` rings: what the user clicked on a prompt names its call.
    // A contact's call takes the place of a stranger's ring at once, and a click on the
    // stranger's prompt that came after that answered or rejected the contact.
    void answerCallFrom(const QString& caller);
    void rejectCallFrom(const QString& caller);
    void hangUp();
    void setMuted(bool muted);
    void setUnknownCallers(onionvoice::call::UnknownCallers policy);

signals:
    void torStateChanged(onionvoice::tor::TorLauncher::State state, int bootstrapPercent,
                         const QString& summary);
    void serviceStateChanged(onionvoice::tor::OnionService::State state);
    void callStateChanged(onionvoice::call::CallState state, const QString& peer,
                          onionvoice::call::EndReason reason);
    // `audioProblem`: why the call's audio could not start now (no microphone found), or empty;
    // the prompt warns of it while the call rings, so that the user can connect one first.
    void incomingCall(const QString& peer, const QString& displayName,
                      const QString& audioProblem = {});
    // An incoming call refused without ringing (busy, blocked, unknown caller refused).
    void callRefused(const QString& peer, onionvoice::call::EndReason reason);
    void statisticsChanged(const onionvoice::call::CallStatistics& statistics);
    void errorOccurred(const QString& message);

private:
    // Freshness of a Hello. Clocks of caller and callee may differ this much (the Hello's time is
    // to the minute); a Hello outside it is refused, and within it each (caller, nonce) is accepted
    // once (HelloReplayCache). We chose this over a callee challenge (a nonce of ours that the
    // caller's signature must cover before we ring, SIGMA-style): a replayed Hello can only ring,
    // never make a call (the replayer lacks the caller's ephemeral secret, and the Accept's keys
    // depend on it), and the cache stops the ringing without a further round trip over tor in every
    // call's setup. What remains: the cache lives in memory, so right after a restart of the callee
    // a Hello captured less than two minutes before could ring once more.
    static constexpr std::chrono::minutes kMaxClockSkew{2};
    static std::chrono::milliseconds unixNow();

    [[nodiscard]] bool setCallState(CallState state);
    // What became of an incoming ring as its call ended, for the twins of its Hello still on
    // their way. Over: a later Hello of that call is late, and refused (RingAdmission). LinkLost:
    // its link was lost before its caller said anything; the call is not over for the caller,
    // whose attempt may never have opened on its side (the next one carries a Hello of the same
    // call, which must ring). RingsOn: it goes on as a decoy ring, which says when it is over
    // (IncomingLinks::ringEnded); taken for over at once, a twin after its link was lost heard
    // BadRequest where an undisplaced ring's rings, and told the caller that a contact had called.
    enum class RingFate { Over, LinkLost, RingsOn };
    // Silent: the call is replaced by another with the same peer (crossing calls), and the user
    // sees one call go on.
    enum class EndNotice { Announced, Silent };
    void end(EndReason reason, RingFate ring = RingFate::Over,
             EndNotice notice = EndNotice::Announced);
    // Tells the callee that our unanswered call is off (nothing when no Hello went out yet).
    void sendCancel();
    void closeEnded(std::uint64_t serial);

    void onIncomingHello(net::OnionLink* link, const Hello& hello);
    void refuseIncoming(net::OnionLink* link, const QString& peer, RefusalReason reason,
                        EndReason local);
    void onJoin(net::OnionLink* link, const Join& join);
    void attachIncoming(net::OnionLink* link, std::uint8_t slot);
    void connectIncoming(net::OnionLink* link, std::uint8_t slot);
    void addTwin(net::OnionLink* link);

    QByteArray firstRecordFor(const CallSession* session, std::uint8_t slot);
    void onPoolLinkUp(std::uint8_t slot);
    void onPoolLinkDown(std::uint8_t slot);
    void onPoolAttemptSlow(std::uint8_t slot, const QByteArray& isolationKey);
    // SIGNAL NEWNYM (all of tor's onion-service client state goes, for every peer, and its
    // layer-2 relays are replaced), then the call's peer's client-auth key given to tor again.
    void purgeTorStateForPeer();
    RelinkRescue::CallLinks callLinks() const;
    void purgeIfCallStillWorks();
    void onTorControlReady();
    // A record on `slot`, from `from` (an incoming call's link; nullptr for the pool's slot link).
    void onRecord(std::uint8_t slot, const QByteArray& record, const net::OnionLink* from);
    void onCallerHandshake(const HandshakeMessage& message);

    bool activate();
    void tick();
    void sendPacket(std::uint32_t sequence, const QByteArray& packet);
    void publishStatistics(CallSession& call);
    void armTimeout(std::chrono::milliseconds after, EndReason reason);
    QList<QByteArray> allowedClientKeys() const;
    void onContactsChanged();
    void endRingOfTheUnwelcome();
    void ringOnAsDecoy(EndReason local);

    Millis monotonicNow() const;
    void ring(net::OnionLink* link, const Hello& hello, const QString& displayName);
    [[nodiscard]] bool startRing(net::OnionLink* link, const Hello& hello);
    // Crossing calls: a Hello from the peer we are calling, before either call was answered.
    bool crossesOurCall(const Hello& hello) const;
    void yieldToCrossingCall(net::OnionLink* link, const Hello& hello);
    QString missingAudio() const;

    EngineConfig config_;
    contacts::ContactBook contacts_;
    RefusalCounters refusals_;
    ServiceHost host_;
    IncomingLinks incoming_;
    QElapsedTimer monotonic_;
    RingAdmission admission_;
    std::unique_ptr<CallSession> call_;
    RelinkRescue relinkRescue_; // of the outgoing call
    // Ended calls by serial: their links linger kLingerBeforeClose each, then close.
    std::map<std::uint64_t, std::unique_ptr<CallSession>> ended_;
    std::uint64_t endedSerial_ = 0;
    QTimer tick_;
    int ticks_ = 0;
    media::Microphone microphone_ = media::Microphone::Live;
};

} // namespace onionvoice::call
