// The engine: the one object the UI and the command line drive. It owns the tor process, the
// published onion service, the contact book and at most one call at a time: the handshake on the
// first link, the proof of every further link, sealed records spread over the links by the
// multipath scheduler, audio in and out, and the statistics snapshots a few times per second.
// Everything runs on the thread the engine lives on; callers talk to it through slots and signals.
#pragma once

#include "CallTypes.h"
#include "Handshake.h"
#include "RecordSealer.h"
#include "contacts/ContactBook.h"
#include "media/AudioEngine.h"
#include "multipath/MultipathEndpoint.h"
#include "net/LinkListener.h"
#include "net/LinkPool.h"
#include "tor/OnionService.h"
#include "tor/TorLauncher.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>
#include <memory>

namespace onionvoice::call {

enum class UnknownCallers { Ring, Refuse };
enum class ServiceAccess { Open, ContactsOnly };

struct EngineConfig {
    QString dataDirectory;
    QString torExecutable;       // empty: bundled, $ONIONVOICE_TOR, then PATH
    QStringList extraTorrcLines; // security preset, private test network
    quint16 servicePort = 7700;  // port in our onion address
    UnknownCallers unknownCallers = UnknownCallers::Ring;
    ServiceAccess access = ServiceAccess::Open;
    CallParameters parameters; // what we propose, and the most we accept
    std::chrono::milliseconds ringTimeout{30000};
    std::chrono::milliseconds linkProofTimeout{5000};
    std::chrono::milliseconds dialTimeout{120000};
    std::chrono::milliseconds networkLossTimeout{20000};
    // Audio device for a call, created when the call becomes active.
    std::function<std::unique_ptr<media::AudioBackend>(QString* error)> audio;
};

class CallEngine : public QObject {
    Q_OBJECT
public:
    explicit CallEngine(EngineConfig config, QObject* parent = nullptr);
    ~CallEngine() override;

    // Loads or creates the identity and the contact book, starts tor and publishes the service.
    bool start(QString* error);
    void stop();

    QString address() const;
    CallState callState() const { return call_ ? call_->state : CallState::Idle; }
    contacts::ContactBook& contacts() { return contacts_; }
    tor::TorLauncher* torLauncher() { return launcher_.get(); }
    tor::OnionService* service() { return service_.get(); }

public slots:
    void dial(const QString& address);
    void answer();
    void reject();
    void hangUp();
    void setMuted(bool muted);
    void setUnknownCallers(onionvoice::call::UnknownCallers policy);

signals:
    void torStateChanged(onionvoice::tor::TorLauncher::State state, int bootstrapPercent,
                         const QString& summary);
    void serviceStateChanged(onionvoice::tor::OnionService::State state);
    void callStateChanged(onionvoice::call::CallState state, const QString& peer,
                          onionvoice::call::EndReason reason);
    void incomingCall(const QString& peer, const QString& displayName);
    // An incoming call refused without ringing (busy, blocked, unknown caller refused).
    void callRefused(const QString& peer, onionvoice::call::EndReason reason);
    void statisticsChanged(const onionvoice::call::CallStatistics& statistics);
    void errorOccurred(const QString& message);

private:
    // A slot's link: none, open but not yet part of the call, or carrying the call's records.
    enum class SlotState { Down, Joining, Up };
    struct SlotCounters {
        std::uint64_t sent = 0, received = 0, failures = 0;
    };
    struct Call {
        CallDirection direction = CallDirection::Outgoing;
        CallState state = CallState::Idle;
        QString peer;
        std::unique_ptr<EphemeralKey> ephemeral;
        Hello hello;
        CallParameters agreed;
        std::optional<CallKeys> keys;
        std::unique_ptr<RecordSealer> sealer;
        std::unique_ptr<RecordOpener> opener;
        std::unique_ptr<multipath::MultipathEndpoint> endpoint;
        std::unique_ptr<media::AudioEngine> audio;
        net::LinkPool* pool = nullptr; // outgoing calls
        // Incoming calls. QPointer: a link deletes itself when it fails, also after the call ended.
        std::array<QPointer<net::OnionLink>, multipath::kMaxLinks> links{};
        std::uint8_t controlSlot = 0;
        std::array<SlotState, multipath::kMaxLinks> slotStates{};
        std::array<SlotCounters, multipath::kMaxLinks> counters{};
        QElapsedTimer clock;
        multipath::Time lastAuthenticated{}; // when the peer's last genuine record arrived
        std::uint64_t rejected = 0, framesReceived = 0;
        std::deque<std::pair<std::int64_t, std::int64_t>> frameDelays; // (arrival ms, raw ms)
        QTimer* timeout = nullptr;
    };

    void setCallState(CallState state);
    void end(EndReason reason);
    void closeEndedCalls();
    multipath::Time now() const;

    void onLinkAccepted(net::OnionLink* link);
    void onFirstRecord(net::OnionLink* link, const QByteArray& record);
    void onIncomingHello(net::OnionLink* link, const Hello& hello);
    void refuseIncoming(net::OnionLink* link, const QString& peer, RefusalReason reason,
                        EndReason local);
    void onJoin(net::OnionLink* link, const Join& join);
    void attachIncoming(net::OnionLink* link, std::uint8_t slot);

    void onPoolLinkUp(std::uint8_t slot);
    void onPoolLinkDown(std::uint8_t slot);
    void onRecord(std::uint8_t slot, const QByteArray& record);
    void onCallerHandshake(const HandshakeMessage& message);

    bool activate();
    void slotLost(std::uint8_t slot);
    void sendOnSlot(std::uint8_t slot, std::span<const std::uint8_t> bytes);
    void sendSealed(std::uint8_t slot, const multipath::RecordBytes& plain);
    void closeSlot(std::uint8_t slot, const QString& reason);
    bool slotOpen(std::uint8_t slot) const;
    void tick();
    void sendPacket(std::uint32_t sequence, const QByteArray& packet);
    void publishStatistics();
    void armTimeout(std::chrono::milliseconds after, EndReason reason);
    QList<QByteArray> allowedClientKeys() const;

    EngineConfig config_;
    std::optional<tor::OnionIdentity> identity_;
    contacts::ContactBook contacts_;
    std::unique_ptr<tor::TorLauncher> launcher_;
    std::unique_ptr<net::LinkListener> listener_;
    std::unique_ptr<tor::OnionService> service_;
    std::unique_ptr<Call> call_;
    std::vector<std::unique_ptr<Call>> ended_; // their links linger briefly, then close
    QTimer tick_;
    int ticks_ = 0;
    media::Microphone microphone_ = media::Microphone::Live;
};

} // namespace onionvoice::call
