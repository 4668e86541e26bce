// Device names without their plug position (see DeviceNames.h).
#include "media/DeviceNames.h"

#include <QRegularExpression>

namespace onionvoice::media {

QString deviceIdentity(const QString& name) {
    static const QRegularExpression alsaCard(QStringLiteral(R"(\s*\(hw:\d+,\d+\)$)"));
    static const QRegularExpression windowsPort(QStringLiteral(R"(\(\d+- )"));
    QString identity = name;
    identity.remove(alsaCard);
    identity.replace(windowsPort, QStringLiteral("("));
    return identity;
}

std::optional<qsizetype> findSavedDevice(const QStringList& present, const QString& saved) {
    if (const qsizetype exact = present.indexOf(saved); exact >= 0)
        return exact;
    const QString identity = deviceIdentity(saved);
    for (qsizetype i = 0; i < present.size(); ++i)
        if (deviceIdentity(present[i]) == identity)
            return i;
    return std::nullopt;
}

} // namespace onionvoice::media
