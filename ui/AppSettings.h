// The user's settings, kept in QSettings: security preset, who may call, audio devices, call
// parameters (advanced), bridges and the tor executable. Knows which changes need tor (and so
// the engine) restarted, and which bitrates the engine accepts.
#pragma once

#include "call/CallEngine.h"
#include "call/Handshake.h"
#include "tor/SecurityPreset.h"

#include <QSettings>
#include <QStringList>

namespace onionvoice::ui {

struct AppSettings {
    tor::SecurityPreset preset = tor::SecurityPreset::Standard;
    call::ServiceAccess access = call::ServiceAccess::Open;
    call::UnknownCallers unknownCallers = call::UnknownCallers::Ring;
    QString inputDevice;  // empty: the system default
    QString outputDevice; // empty: the system default
    int bitrate = 32000;
    QString policy = QStringLiteral("adaptive");
    int links = 12;
    bool useBridges = false;
    QStringList bridgeLines; // "obfs4 1.2.3.4:443 FINGERPRINT cert=… iat-mode=0", "snowflake …"
    QString torPath;         // empty: bundled tor, $ONIONVOICE_TOR, then PATH

    // A stored bitrate the engine would refuse (an older dialog offered some) is brought into
    // acceptedBitrates(): saved as it was, it stopped every start of the engine. A stored choice of
    // who may call that is neither "ring" nor "refuse" refuses: `problems` gets a sentence for the
    // user (translated) for each such value.
    static AppSettings load(QSettings& store, QStringList* problems = nullptr);
    // Why the store's file cannot be trusted, or empty (call::unreadableSettings).
    static QString unreadable(QSettings& store);
    // False with a translated reason when the file could not be written: the settings then hold
    // for this session only. QSettings keeps the first error it met, so use a fresh store each
    // time.
    bool save(QSettings& store, QString* error) const;
    // True when going from `before` to this needs tor and the engine started again.
    bool needsRestartFrom(const AppSettings& before) const;
    // The call parameters the engine is given (the packet period stays the engine's default).
    call::CallParameters callParameters() const;
    // The lowest and highest bitrate, in whole kbit/s, that call::checkParameters accepts with
    // these settings' other call parameters. Asked of the check itself so that the dialog and
    // loading never drift from what the engine starts with.
    std::pair<int, int> acceptedBitrates() const;
    friend bool operator==(const AppSettings&, const AppSettings&) = default;
};

// The settings the user chose and those tor and the engine were last started with. A change that
// needs a restart stays due until the engine starts with it, so a restart put off during a call
// is still made later: compared with the previous choice instead, a contacts-only switch saved
// during a call never reached tor.
class SettingsInEffect {
public:
    explicit SettingsInEffect(const AppSettings& loaded)
        : chosen_(loaded)
        , running_(loaded) {}
    const AppSettings& chosen() const { return chosen_; }
    const AppSettings& running() const { return running_; }
    void choose(const AppSettings& settings) { chosen_ = settings; }
    bool restartDue() const { return chosen_.needsRestartFrom(running_); }
    // Call as the engine is (re)started with chosen().
    void started() { running_ = chosen_; }

private:
    AppSettings chosen_, running_;
};

} // namespace onionvoice::ui
