// Reading the app's tor choices from settings.ini (see SavedTorChoices.h).
#include "call/SavedTorChoices.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace onionvoice::call {

std::optional<SavedTorChoices> readSavedTorChoices(const QString& dataDirectory, QString* problem) {
    problem->clear();
    const QString path = QDir(dataDirectory).filePath(kSettingsFileName);
    const QFileInfo file(path);
    if (!file.exists() && !file.isSymLink())
        return std::nullopt;
    QSettings store(path, QSettings::IniFormat);
    store.allKeys(); // Qt parses the file when a key is first asked for
    if (!file.exists() || store.status() != QSettings::NoError) {
        *problem = QStringLiteral("%1 cannot be read").arg(path);
        return std::nullopt;
    }
    SavedTorChoices choices;
    const QString preset = store.value(settings_key::kPreset).toString();
    if (!preset.isEmpty()) {
        const auto known = tor::presetFromKey(preset);
        if (!known) {
            *problem = QStringLiteral("%1 names the preset \"%2\", which is not one this version "
                                      "knows")
                           .arg(path, preset);
            return std::nullopt;
        }
        choices.preset = *known;
    }
    choices.contactsOnly = store.value(settings_key::kContactsOnly, false).toBool();
    choices.useBridges = store.value(settings_key::kUseBridges, false).toBool();
    return choices;
}

} // namespace onionvoice::call
