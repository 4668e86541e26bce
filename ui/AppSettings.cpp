// Reading and writing the settings.
#include "AppSettings.h"

#include "multipath/SchedulingPolicy.h"

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
    s.policy = store.value("call/policy", s.policy).toString();
    s.links = std::clamp(store.value("call/links", s.links).toInt(), 1, 12);
    const auto [lowest, highest] = s.acceptedBitrates();
    s.bitrate = std::clamp(store.value("call/bitrate", s.bitrate).toInt(), lowest, highest);
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
