// Reading and writing the settings.
#include "AppSettings.h"

namespace onionvoice::ui {

QString presetKey(tor::SecurityPreset preset) {
    switch (preset) {
    case tor::SecurityPreset::Standard:
        return QStringLiteral("standard");
    case tor::SecurityPreset::MoreGuards:
        return QStringLiteral("more-guards");
    case tor::SecurityPreset::OneWayHotline:
        return QStringLiteral("hotline");
    }
    return {};
}

std::optional<tor::SecurityPreset> presetFromKey(const QString& key) {
    for (auto p : {tor::SecurityPreset::Standard, tor::SecurityPreset::MoreGuards,
                   tor::SecurityPreset::OneWayHotline})
        if (presetKey(p) == key)
            return p;
    return std::nullopt;
}

AppSettings AppSettings::load(QSettings& store) {
    AppSettings s;
    s.preset = presetFromKey(store.value("security/preset").toString()).value_or(s.preset);
    s.access = store.value("security/contactsOnly", false).toBool()
                   ? call::ServiceAccess::ContactsOnly
                   : call::ServiceAccess::Open;
    s.unknownCallers = store.value("security/unknownCallers").toString() == "refuse"
                           ? call::UnknownCallers::Refuse
                           : call::UnknownCallers::Ring;
    s.inputDevice = store.value("audio/input").toString();
    s.outputDevice = store.value("audio/output").toString();
    s.bitrate = std::clamp(store.value("call/bitrate", s.bitrate).toInt(), 6000, 64000);
    s.policy = store.value("call/policy", s.policy).toString();
    s.links = std::clamp(store.value("call/links", s.links).toInt(), 1, 12);
    s.useBridges = store.value("tor/useBridges", false).toBool();
    s.bridgeLines = store.value("tor/bridges").toStringList();
    s.torPath = store.value("tor/path").toString();
    return s;
}

void AppSettings::save(QSettings& store) const {
    store.setValue("security/preset", presetKey(preset));
    store.setValue("security/contactsOnly", access == call::ServiceAccess::ContactsOnly);
    store.setValue("security/unknownCallers",
                   unknownCallers == call::UnknownCallers::Refuse ? "refuse" : "ring");
    store.setValue("audio/input", inputDevice);
    store.setValue("audio/output", outputDevice);
    store.setValue("call/bitrate", bitrate);
    store.setValue("call/policy", policy);
    store.setValue("call/links", links);
    store.setValue("tor/useBridges", useBridges);
    store.setValue("tor/bridges", bridgeLines);
    store.setValue("tor/path", torPath);
    store.sync();
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

} // namespace onionvoice::ui
