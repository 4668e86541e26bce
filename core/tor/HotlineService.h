// The one-way hotline: the callee's onion service in single-hop, non-anonymous mode on a second
// tor instance dedicated to it. Tor never makes an ADD_ONION service single-hop, so the service
// is declared in that instance's torrc, with a HiddenServiceDir holding the identity's key.
#pragma once

#include "DescriptorUploads.h"
#include "OnionIdentity.h"
#include "TorLauncher.h"

#include <QObject>
#include <memory>

namespace onionvoice::tor {

class HotlineService : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Starting, Running, Reachable, Failed };
    Q_ENUM(State)

    struct Config {
        QString dataDirectory; // its own, not the app's main tor's
        quint16 virtualPort = 0;
        QByteArray target;           // "unix:<path>" or "127.0.0.1:<port>"
        QStringList extraTorrcLines; // e.g. a test network's options
        QString torExecutableSetting;
    };

    HotlineService(OnionIdentity identity, Config config, QObject* parent = nullptr);

    // Writes the key files tor expects (hs_ed25519_secret_key, hs_ed25519_public_key, hostname)
    // into dir with private permissions.
    static bool writeServiceDirectory(const QString& dir, const OnionIdentity& identity,
                                      QString* error);
    // Removes what writeServiceDirectory wrote into dir, the secret key overwritten first: a copy
    // of the identity's key that tor needs only while the hotline runs.
    static void removeServiceKeys(const QString& dir);
    // The torrc lines of the dedicated instance.
    static QStringList torrcLines(const QString& serviceDir, quint16 virtualPort,
                                  const QByteArray& target);

    void start();
    // Stops the hotline's tor and removes the key files it read (removeServiceKeys).
    void stop();
    // Where the key files are: the Config's dataDirectory/hotline-service.
    static QString serviceDirectoryIn(const QString& hotlineDataDirectory);

    State state() const { return state_; }
    QString failureReason() const { return failureReason_; }
    const QString& address() const { return identity_.address(); }
    TorLauncher* launcher() { return launcher_.get(); }
    // Descriptor uploads of the current tor process (nullptr before start()).
    const DescriptorUploads* uploads() const { return uploads_.get(); }

signals:
    void stateChanged(onionvoice::tor::HotlineService::State state);

private:
    void setState(State state);
    QString serviceDirectory() const;

    OnionIdentity identity_;
    Config config_;
    std::unique_ptr<TorLauncher> launcher_;
    std::unique_ptr<DescriptorUploads> uploads_;
    State state_ = State::Stopped;
    QString failureReason_;
};

} // namespace onionvoice::tor
