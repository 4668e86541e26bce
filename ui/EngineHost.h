// Runs a CallEngine on a thread of its own and is the GUI's only way to it: commands travel as
// queued calls, state and statistics come back as queued signals carrying copies, so nothing the
// GUI does (a resize, a slow chart, a modal dialog) can delay a record or an audio frame.
#pragma once

#include "call/CallEngine.h"
#include "contacts/ContactBook.h"

#include <QObject>
#include <QThread>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>

namespace onionvoice::ui {

class EngineHost : public QObject {
    Q_OBJECT
public:
    enum class Phase { Stopped, Starting, Running, Failed };
    Q_ENUM(Phase)

    explicit EngineHost(QObject* parent = nullptr);
    // Stops the engine (and its tor) and the thread.
    ~EngineHost() override;

    // Creates the engine on its thread and starts it: identity, contact book, tor, service.
    void start(call::EngineConfig config);
    // Ends a call, stops tor and deletes the engine; blocks until tor has exited (for closing).
    void stop();

    Phase phase() const { return phase_; }
    QString address() const { return address_; }
    call::CallState callState() const { return callState_; }
    const QList<contacts::Contact>& contacts() const { return contacts_; }
    // The engine's policy in force (it refuses strangers on its own when contacts were lost);
    // none before an engine has started.
    std::optional<call::UnknownCallers> unknownCallers() const { return unknownCallers_; }
    std::optional<contacts::Contact> contact(const QString& address) const;
    bool isContact(const QString& address) const;
    QThread* engineThread() { return &thread_; }

public slots:
    void dial(const QString& address);
    // The ringing call from `caller` (CallEngine::answerCallFrom): a prompt's click names its call.
    void answer(const QString& caller);
    void reject(const QString& caller);
    void hangUp();
    void setMuted(bool muted);
    void setUnknownCallers(onionvoice::call::UnknownCallers policy);
    void addContact(const onionvoice::contacts::Contact& contact);
    void renameContact(const QString& address, const QString& name);
    // Keeps the key a contact's link brought for calling their contacts-only service.
    void setContactAccessKey(const QString& address, const QByteArray& outboundAuthPrivateKey);
    void setBlocked(const QString& address, bool blocked);
    void removeContact(const QString& address);
    // Makes a fresh access key for a contact (they may then reach a contacts-only service) and
    // answers with accessLinkReady: our contact link carrying the key's private half.
    void createAccessLink(const QString& address);

signals:
    void phaseChanged(onionvoice::ui::EngineHost::Phase phase, const QString& reason);
    void torStateChanged(onionvoice::tor::TorLauncher::State state, int bootstrapPercent,
                         const QString& summary);
    // One line of tor's own log, as tor writes it.
    void torLogLine(const QString& line);
    void torFailed(const QString& reason);
    // tor died or hung and a new one is being started.
    void torRestarting(const QString& reason);
    void serviceStateChanged(onionvoice::tor::OnionService::State state);
    void callStateChanged(onionvoice::call::CallState state, const QString& peer,
                          onionvoice::call::EndReason reason);
    void incomingCall(const QString& peer, const QString& displayName,
                      const QString& audioProblem = {});
    void callRefused(const QString& peer, onionvoice::call::EndReason reason);
    void statisticsChanged(const onionvoice::call::CallStatistics& statistics);
    void errorOccurred(const QString& message);
    void contactsChanged();
    void accessLinkReady(const QString& address, const QString& link);

private:
    // On the engine thread: ends the engine's call, stops its tor, deletes it.
    void disposeEngine();
    // Runs `work` on the engine thread, if there is an engine by then.
    void onEngine(std::function<void(call::CallEngine&)> work);
    // On the engine thread: saves the book (an error is reported) and sends a copy of it to the
    // GUI thread. False if it was not saved.
    bool publishContacts(call::CallEngine& engine);
    void changeContact(const QString& address,
                       std::function<bool(contacts::ContactBook&, QString* error)> change);
    void setPhase(Phase phase, const QString& reason = {});
    // Runs `work` on the GUI thread unless an engine newer than `generation` has been started
    // since.
    void onGuiThread(quint64 generation, std::function<void()> work);
    // Passes `signal` of an engine (or its tor) to the GUI thread, as `forward` (a signal of the
    // host or a functor), while no newer engine has been started. After a restart the window
    // has ended the old call's UI, and what the old engine queued just before it must not pass
    // for news: a Ringing of our own dial, arriving after the window forgot the dial, looked like
    // the peer calling us, and the Ended after it made that a missed call.
    template <typename Sender, typename Signal, typename Forward>
    void relay(Sender* sender, Signal signal, quint64 generation, Forward forward) {
        connect(sender, signal, this, [this, generation, forward](const auto&... args) {
            if (generation != generation_)
                return;
            if constexpr (std::is_member_function_pointer_v<Forward>)
                (this->*forward)(args...);
            else
                forward(args...);
        });
    }

    QThread thread_;
    std::unique_ptr<QObject> worker_; // lives on the engine thread: the context of queued work
    quint64 generation_ = 0;          // engines started so far; read on the GUI thread only
    std::unique_ptr<call::CallEngine> engine_; // made and deleted on the engine thread only
    Phase phase_ = Phase::Stopped;
    QString address_;
    call::CallState callState_ = call::CallState::Idle;
    QList<contacts::Contact> contacts_;
    std::optional<call::UnknownCallers> unknownCallers_;
};

} // namespace onionvoice::ui
