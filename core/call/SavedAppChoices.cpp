// Reading the app's saved choices from settings.ini (see SavedAppChoices.h).
#include "call/SavedAppChoices.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace onionvoice::call {

QString unreadableSettings(QSettings& store) {
    const QFileInfo file(store.fileName());
    // A link to nothing (its drive not mounted) is no first start, though Qt reads it as one.
    if (file.isSymLink() && !file.exists())
        return QCoreApplication::translate("AppSettings", "%1 cannot be read")
            .arg(store.fileName());
    if (!file.exists()) {
        // Not a first start if an unreadable file was set aside and no settings were saved in
        // its place (the save failed on a full disk, or the file was deleted since): the
        // defaults (no bridges, an open service, strangers ringing) would apply without a word.
        const QStringList setAside = file.dir().entryList(
            {file.fileName() + QStringLiteral(".unreadable-*")}, QDir::Files | QDir::System);
        if (!setAside.isEmpty())
            return QCoreApplication::translate(
                       "AppSettings", "%1 is missing, and settings that could not be read were "
                                      "set aside as %2: which of them apply is not known")
                .arg(store.fileName(), file.dir().filePath(setAside.last()));
        return {}; // a first start
    }
    // Qt parses the file when a key is first asked for, and only then says how it went.
    store.allKeys();
    switch (store.status()) {
    case QSettings::NoError:
        return {};
    case QSettings::AccessError:
        return QCoreApplication::translate("AppSettings", "%1 cannot be read")
            .arg(store.fileName());
    case QSettings::FormatError:
        return QCoreApplication::translate("AppSettings", "%1 is damaged").arg(store.fileName());
    }
    return {};
}

std::optional<SavedAppChoices> readSavedAppChoices(const QString& dataDirectory, QString* problem) {
    const QString path = QDir(dataDirectory).filePath(kSettingsFileName);
    QSettings store(path, QSettings::IniFormat);
    *problem = unreadableSettings(store);
    if (!problem->isEmpty() || !QFileInfo::exists(path))
        return std::nullopt;
    SavedAppChoices choices;
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
    choices.refuseUnknownCallers =
        store.value(settings_key::kUnknownCallers, QStringLiteral("ring")).toString() !=
        QLatin1String("ring");
    return choices;
}

} // namespace onionvoice::call
