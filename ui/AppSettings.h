// The user's settings, kept in QSettings: security preset, who may call, audio devices, call
// parameters (advanced), bridges and the tor executable. Knows which changes need tor (and so
// the engine) restarted.
#pragma once

#include "call/CallEngine.h"
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

    static AppSettings load(QSettings& store);
    void save(QSettings& store) const;
    // True when going from `before` to this needs tor and the engine started again.
    bool needsRestartFrom(const AppSettings& before) const;
    friend bool operator==(const AppSettings&, const AppSettings&) = default;
};

QString presetKey(tor::SecurityPreset preset);
std::optional<tor::SecurityPreset> presetFromKey(const QString& key);

} // namespace onionvoice::ui
