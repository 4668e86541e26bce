// The engine thread and the queued traffic across it.
#include "EngineHost.h"

#include "contacts/ContactUri.h"
#include "tor/ClientAuthKey.h"

#include <algorithm>

namespace onionvoice::ui {
EngineHost::EngineHost(QObject* parent)
    : QObject(parent)
    , worker_(std::make_unique<QObject>()) {
    qRegisterMetaType<call::CallStatistics>();
    thread_.setObjectName(QStringLiteral("engine"));
    worker_->moveToThread(&thread_);
    thread_.start(QThread::HighPriority);
}

EngineHost::~EngineHost() {
    stop();
    thread_.quit();
    thread_.wait();
    worker_.reset(); // after the thread: nothing queued on it runs any more
}

void EngineHost::setPhase(Phase phase, const QString& reason) {
    phase_ = phase;
    emit phaseChanged(phase, reason);
}

void EngineHost::start(call::EngineConfig config) {
    // A running engine is stopped on its own thread first: waiting here for its tor to exit
    // would stall the window (Retry, a settings change).
    callState_ = call::CallState::Idle;
    const quint64 generation = ++generation_;
    setPhase(Phase::Starting);
    QMetaObject::invokeMethod(worker_.get(), [this, generation,
                                              config = std::move(config)]() mutable {
        disposeEngine();
        engine_ = std::make_unique<call::CallEngine>(std::move(config));
        relay(engine_.get(), &call::CallEngine::torStateChanged, generation,
              &EngineHost::torStateChanged);
        relay(engine_.get(), &call::CallEngine::serviceStateChanged, generation,
              &EngineHost::serviceStateChanged);
        relay(engine_.get(), &call::CallEngine::callStateChanged, generation,
              [this](call::CallState s, const QString& p, call::EndReason r) {
                  callState_ = s == call::CallState::Ended ? call::CallState::Idle : s;
                  emit callStateChanged(s, p, r);
              });
        relay(engine_.get(), &call::CallEngine::incomingCall, generation,
              &EngineHost::incomingCall);
        relay(engine_.get(), &call::CallEngine::callRefused, generation, &EngineHost::callRefused);
        relay(engine_.get(), &call::CallEngine::statisticsChanged, generation,
              &EngineHost::statisticsChanged);
        relay(engine_.get(), &call::CallEngine::errorOccurred, generation,
              &EngineHost::errorOccurred);
        QString error;
        const bool ok = engine_->start(&error);
        if (ok) {
            tor::TorLauncher* launcher = engine_->torLauncher();
            relay(launcher, &tor::TorLauncher::logLine, generation, &EngineHost::torLogLine);
            relay(launcher, &tor::TorLauncher::restarting, generation,
                  [this](int, const QString& reason) { emit torRestarting(reason); });
            // Runs on the engine thread (the launcher's), where its failure reason may be read.
            const auto reportFailure = [this, generation, launcher] {
                onGuiThread(generation,
                            [this, reason = launcher->failureReason()] { emit torFailed(reason); });
            };
            connect(launcher, &tor::TorLauncher::stateChanged, launcher,
                    [reportFailure](tor::TorLauncher::State state) {
                        if (state == tor::TorLauncher::State::Failed)
                            reportFailure();
                    });
            // A tor not found, or one that reports no usable version, fails inside start(),
            // before the connection above could hear it.
            if (launcher->state() == tor::TorLauncher::State::Failed)
                reportFailure();
            publishContacts(*engine_);
        }
        onGuiThread(generation, [this, ok, error, address = engine_->address()] {
            // A stop made since then stands: this news was queued before it returned. (The rest
            // of what the engine queued still passes: on closing, the window hears the Ended.)
            if (phase_ == Phase::Stopped)
                return;
            address_ = address;
            setPhase(ok ? Phase::Running : Phase::Failed, error);
        });
    });
}

void EngineHost::onGuiThread(quint64 generation, std::function<void()> work) {
    QMetaObject::invokeMethod(this, [this, generation, work = std::move(work)] {
        if (generation == generation_)
            work();
    });
}

void EngineHost::stop() {
    if (phase_ == Phase::Stopped)
        return;
    QMetaObject::invokeMethod(
        worker_.get(), [this] { disposeEngine(); }, Qt::BlockingQueuedConnection);
    callState_ = call::CallState::Idle;
    address_.clear();
    setPhase(Phase::Stopped);
}

void EngineHost::disposeEngine() {
    if (!engine_)
        return;
    // Stopped while still connected: stop() ends the call, and on closing the GUI must hear that
    // Ended. On a restart the host drops it with everything else this engine queued (relay), and
    // the window ends the call's UI when the new engine starts. Disconnected only then: nothing
    // the engine says while it is deleted may pass for the next engine's news.
    engine_->stop();
    engine_->disconnect(this);
    engine_.reset();
}

std::optional<contacts::Contact> EngineHost::contact(const QString& address) const {
    for (const contacts::Contact& c : contacts_)
        if (c.address == address)
            return c;
    return std::nullopt;
}

bool EngineHost::isContact(const QString& address) const {
    return std::any_of(contacts_.begin(), contacts_.end(),
                       [&address](const contacts::Contact& c) { return c.address == address; });
}

void EngineHost::onEngine(std::function<void(call::CallEngine&)> work) {
    QMetaObject::invokeMethod(worker_.get(), [this, work = std::move(work)] {
        if (engine_)
            work(*engine_);
    });
}

void EngineHost::dial(const QString& address) {
    onEngine([address](call::CallEngine& e) { e.dial(address); });
}

void EngineHost::answer(const QString& caller) {
    onEngine([caller](call::CallEngine& e) { e.answerCallFrom(caller); });
}

void EngineHost::reject(const QString& caller) {
    onEngine([caller](call::CallEngine& e) { e.rejectCallFrom(caller); });
}

void EngineHost::hangUp() {
    onEngine([](call::CallEngine& e) { e.hangUp(); });
}

void EngineHost::setMuted(bool muted) {
    onEngine([muted](call::CallEngine& e) { e.setMuted(muted); });
}

void EngineHost::setUnknownCallers(call::UnknownCallers policy) {
    onEngine([this, policy](call::CallEngine& e) {
        e.setUnknownCallers(policy);
        publishContacts(e);
    });
}

bool EngineHost::publishContacts(call::CallEngine& engine) {
    QString error;
    const bool saved = engine.contacts().save(&error);
    if (!saved)
        emit errorOccurred(tr("%1 What was changed holds until OnionVoice quits.").arg(error));
    const QList<contacts::Contact> copy = engine.contacts().contacts();
    const call::UnknownCallers policy = engine.unknownCallers();
    QMetaObject::invokeMethod(this, [this, copy, policy] {
        contacts_ = copy;
        unknownCallers_ = policy;
        emit contactsChanged();
    });
    return saved;
}

void EngineHost::changeContact(const QString& address,
                               std::function<bool(contacts::ContactBook&, QString* error)> change) {
    onEngine([this, address, change = std::move(change)](call::CallEngine& e) {
        QString error;
        if (!change(e.contacts(), &error)) {
            emit errorOccurred(error.isEmpty() ? tr("No contact has the address %1.").arg(address)
                                               : error);
            return;
        }
        publishContacts(e);
    });
}

void EngineHost::addContact(const contacts::Contact& contact) {
    changeContact(contact.address, [contact](contacts::ContactBook& book, QString* error) {
        return book.add(contact, error);
    });
}

void EngineHost::renameContact(const QString& address, const QString& name) {
    changeContact(address, [address, name](contacts::ContactBook& book, QString* error) {
        return book.rename(address, name, error);
    });
}

void EngineHost::setContactAccessKey(const QString& address,
                                     const QByteArray& outboundAuthPrivateKey) {
    changeContact(address,
                  [address, outboundAuthPrivateKey](contacts::ContactBook& book, QString* error) {
                      return book.setOutboundAccessKey(address, outboundAuthPrivateKey, error);
                  });
}

void EngineHost::setBlocked(const QString& address, bool blocked) {
    changeContact(address, [address, blocked](contacts::ContactBook& book, QString*) {
        return book.setBlocked(address, blocked);
    });
}

void EngineHost::removeContact(const QString& address) {
    changeContact(
        address, [address](contacts::ContactBook& book, QString*) { return book.remove(address); });
}

void EngineHost::createAccessLink(const QString& address) {
    onEngine([this, address](call::CallEngine& e) {
        const tor::ClientAuthKey key = tor::ClientAuthKey::generate();
        const auto bytes = [](std::span<const std::uint8_t, 32> k) {
            return QByteArray(reinterpret_cast<const char*>(k.data()), qsizetype(k.size()));
        };
        QString error;
        if (!e.contacts().grantAccess(address, bytes(key.publicKey()), &error)) {
            emit errorOccurred(error.isEmpty() ? tr("No contact has the address %1.").arg(address)
                                               : error);
            return;
        }
        // A grant the next start would not know is not handed out: the contact would use a key
        // our service no longer accepts, and be refused without a word.
        if (!publishContacts(e))
            return;
        contacts::ContactUri link{e.address(), {}, bytes(key.privateKey())};
        emit accessLinkReady(address, link.toString());
    });
}

} // namespace onionvoice::ui
