// Security presets (DONAR section 5): what each one changes in tor and the trade-off it makes,
// in a sentence a user can understand.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace onionvoice::tor {

enum class SecurityPreset {
    Standard,      // tor's defaults: both sides anonymous
    MoreGuards,    // more entry guards: lower latency, larger attack surface
    OneWayHotline, // callee's service single-hop on a dedicated tor: faster, callee not anonymous
};

struct PresetDescription {
    QString name;
    QString tradeoff;
};

PresetDescription describePreset(SecurityPreset preset);

// The preset's name in settings.ini and on onionvoice-cli's command line (--preset): standard,
// more-guards, hotline.
QString presetKey(SecurityPreset preset);
std::optional<SecurityPreset> presetFromKey(const QString& key);

// Options for the app's own tor (the one that dials and, except for the hotline, publishes).
QStringList clientTorrcLines(SecurityPreset preset);

inline constexpr int kMoreGuardsCount = 4;

} // namespace onionvoice::tor
