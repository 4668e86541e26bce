// Preset texts (translated where the app loads a translation) and tor options.
#include "SecurityPreset.h"

#include <QCoreApplication>

namespace onionvoice::tor {

PresetDescription describePreset(SecurityPreset preset) {
    switch (preset) {
    case SecurityPreset::Standard:
        return {QCoreApplication::translate("SecurityPreset", "Standard"),
                QCoreApplication::translate(
                    "SecurityPreset",
                    "Both you and the person you call stay anonymous, with Tor's usual "
                    "protections; calls may have more delay.")};
    case SecurityPreset::MoreGuards:
        return {QCoreApplication::translate("SecurityPreset", "More guards"),
                QCoreApplication::translate(
                    "SecurityPreset",
                    "Calls get less delay because Tor spreads them over %1 entry relays "
                    "instead of one or two, but each extra entry relay is another chance "
                    "that an attacker's relay can watch you.")
                    .arg(kMoreGuardsCount)};
    case SecurityPreset::OneWayHotline:
        return {QCoreApplication::translate("SecurityPreset", "One-way hotline"),
                QCoreApplication::translate(
                    "SecurityPreset",
                    "Calls to you are faster because your side uses a single relay, but "
                    "you are not anonymous: anyone can find where your hotline runs. "
                    "People who call you stay anonymous.")};
    }
    return {};
}

QStringList clientTorrcLines(SecurityPreset preset) {
    switch (preset) {
    case SecurityPreset::Standard:
    case SecurityPreset::OneWayHotline: // the caller side of a hotline is a standard client
        return {};
    case SecurityPreset::MoreGuards:
        return {QStringLiteral("NumEntryGuards %1").arg(kMoreGuardsCount),
                QStringLiteral("NumPrimaryGuards %1").arg(kMoreGuardsCount)};
    }
    return {};
}

QString presetKey(SecurityPreset preset) {
    switch (preset) {
    case SecurityPreset::Standard:
        return QStringLiteral("standard");
    case SecurityPreset::MoreGuards:
        return QStringLiteral("more-guards");
    case SecurityPreset::OneWayHotline:
        return QStringLiteral("hotline");
    }
    return {};
}

std::optional<SecurityPreset> presetFromKey(const QString& key) {
    for (auto p :
         {SecurityPreset::Standard, SecurityPreset::MoreGuards, SecurityPreset::OneWayHotline})
        if (presetKey(p) == key)
            return p;
    return std::nullopt;
}

} // namespace onionvoice::tor
