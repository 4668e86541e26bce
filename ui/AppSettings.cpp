// Reading and writing the settings.
#include "AppSettings.h"

#include "call/SavedAppChoices.h"
#include "multipath/SchedulingPolicy.h"

#include <QCoreApplication>
#include <QLoggingCategory>

namespace onionvoice::ui {

Q_LOGGING_CATEGORY(lcSettings, "onionvoice.ui.settings")

AppSettings AppSettings::load(QSettings& store, QStringList* problems) {
    AppSettings s;
    s.preset =
        tor::presetFromKey(store.value(call::settings_key::kPreset).toString()).value_or(s.preset);
    s.access = store.value(call::settings_key::kContactsOnly, false).toBool()
                   ? call::ServiceAccess::ContactsOnly
                   : call::ServiceAccess::Open;
    // Absent (a first start) strangers ring, the default. Anything else but the two words the app
    // writes is a damaged file or a hand edit gone wrong: the user who wrote "refuse" with a typo
    // meant to keep strangers out, so it fails closed, and says so.
    const QString unknown = store.value(call::settings_key::kUnknownCallers, "ring").toString();
    s.unknownCallers =
        unknown == "ring" ? call::UnknownCallers::Ring : call::UnknownCallers::Refuse;
    if (unknown != "ring" && unknown != "refuse") {
        qCWarning(lcSettings) << "security/unknownCallers in" << store.fileName() << "is" << unknown
                              << "(neither ring nor refuse): unknown callers are refused";
        if (problems)
            problems->append(QCoreApplication::translate(
                                 "AppSettings",
                                 "The saved choice of who may call (\"%1\") is not one OnionVoice "
                                 "knows: unknown callers are refused until you choose in Settings.")
                                 .arg(unknown));
    }
    s.inputDevice = store.value("audio/input").toString();
    s.outputDevice = store.value("audio/output").toString();
    s.policy = store.value("call/policy", s.policy).toString();
    s.links = std::clamp(store.value("call/links", s.links).toInt(), 1, 12);
    const auto [lowest, highest] = s.acceptedBitrates();
    s.bitrate = std::clamp(store.value("call/bitrate", s.bitrate).toInt(), lowest, highest);
    s.useBridges = store.value(call::settings_key::kUseBridges, false).toBool();
    s.bridgeLines = store.value("tor/bridges").toStringList();
    s.torPath = store.value("tor/path").toString();
    return s;
}

QString AppSettings::unreadable(QSettings& store) {
    return call::unreadableSettings(store);
}

bool AppSettings::save(QSettings& store, QString* error) const {
    store.setValue(call::settings_key::kPreset, tor::presetKey(preset));
    store.setValue(call::settings_key::kContactsOnly, access == call::ServiceAccess::ContactsOnly);
    store.setValue(call::settings_key::kUnknownCallers,
                   unknownCallers == call::UnknownCallers::Refuse ? "refuse" : "ring");
    store.setValue("audio/input", inputDevice);
    store.setValue("audio/output", outputDevice);
    store.setValue("call/bitrate", bitrate);
    store.setValue("call/policy", policy);
    store.setValue("call/links", links);
    store.setValue(call::settings_key::kUseBridges, useBridges);
    store.setValue("tor/bridges", bridgeLines);
    store.setValue("tor/path", torPath);
    store.sync();
    switch (store.status()) {
    case QSettings::NoError:
        return true;
    case QSettings::AccessError:
        *error = QCoreApplication::translate("AppSettings", "%1 cannot be written")
                     .arg(store.fileName());
        break;
    case QSettings::FormatError:
        *error = QCoreApplication::translate("AppSettings", "%1 is not a settings file")
                     .arg(store.fileName());
        break;
    }
    qCWarning(lcSettings) << "settings not saved:" << *error;
    return false;
}

bool AppSettings::needsRestartFrom(const AppSettings& before) const {
    // Who may call and the audio devices apply at once; the rest is part of the engine's
    // configuration or of tor's.
    AppSettings a = *this, b = before;
    for (AppSettings* s : {&a, &b}) {
        s->unknownCallers = {};
        s->inputDevice.clear();
        s->outputDevice.clear();
    }
    return !(a == b);
}

call::CallParameters AppSettings::callParameters() const {
    call::CallParameters p;
    p.bitrate = std::uint32_t(std::max(bitrate, 0));
    p.links = std::uint8_t(std::clamp(links, 0, 255));
    const auto names = multipath::policyNames();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (policy == QLatin1String(names[i].data(), qsizetype(names[i].size())))
            p.policy = std::uint8_t(i);
    return p;
}

std::pair<int, int> AppSettings::acceptedBitrates() const {
    // A scan rather than a formula: the check's limits (the codec's range, a packet fitting a
    // cell) stay in one place. 1000 tries of a few multiplications each.
    constexpr int kStep = 1000, kBeyondAnyCodec = 1'000'000;
    std::optional<int> lowest, highest;
    call::CallParameters p = callParameters();
    for (int b = kStep; b <= kBeyondAnyCodec; b += kStep) {
        p.bitrate = std::uint32_t(b);
        if (call::checkParameters(p))
            continue;
        lowest = lowest.value_or(b);
        highest = b;
    }
    if (!lowest) // the other parameters are refused whatever the bitrate: keep the default
        return {AppSettings{}.bitrate, AppSettings{}.bitrate};
    return {*lowest, *highest};
}

} // namespace onionvoice::ui
