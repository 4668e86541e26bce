// The choices the desktop app saves in a data directory's settings.ini that onionvoice-cli must
// honour when it runs a tor and a service from the same directory (its default): bridges, contacts
// only, who may call, the security preset. The keys are written by ui/AppSettings and read here;
// the CLI ignored them, so `onionvoice-cli call` of a user behind bridges had its tor connect to
// the Tor network directly, `serve` published an open service for a user who had chosen contacts
// only, and answered strangers the user had chosen to refuse.
#pragma once

#include "tor/SecurityPreset.h"

#include <QString>
#include <optional>

class QSettings;

namespace onionvoice::call {

namespace settings_key {
inline const QString kPreset = QStringLiteral("security/preset");
inline const QString kContactsOnly = QStringLiteral("security/contactsOnly");
inline const QString kUnknownCallers = QStringLiteral("security/unknownCallers");
inline const QString kUseBridges = QStringLiteral("tor/useBridges");
} // namespace settings_key

inline const QString kSettingsFileName = QStringLiteral("settings.ini");

struct SavedAppChoices {
    tor::SecurityPreset preset = tor::SecurityPreset::Standard;
    bool contactsOnly = false;
    bool useBridges = false;
    // Strangers ring unless the file says "ring" is not the choice: a value other than the two
    // the app writes refuses, as the app reads it (AppSettings::load).
    bool refuseUnknownCallers = false;
};

// Why `store`'s file cannot be trusted, or empty: it exists and could not be read whole (a line
// Qt cannot parse, a file this user may not read, a link to nothing), or it is missing where an
// unreadable one was set aside (settings.ini.unreadable-*, kept by the app) and new settings never
// got saved in its place. What Qt could not read reads as absent, and the defaults in its place
// are the least private choices.
QString unreadableSettings(QSettings& store);

// What `dataDirectory`'s settings.ini says: nullopt with an empty *problem when there is none,
// nullopt with the reason when it cannot be read.
std::optional<SavedAppChoices> readSavedAppChoices(const QString& dataDirectory, QString* problem);

} // namespace onionvoice::call
