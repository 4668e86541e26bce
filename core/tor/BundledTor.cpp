// Torrc lines for the files that ship next to a bundled tor.
#include "BundledTor.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace onionvoice::tor {
namespace {

struct Transport {
    const char* executable;
    const char* transports;
};

// First match per transport list wins: lyrebird is obfs4proxy's successor in the Tor Expert Bundle.
constexpr Transport kTransports[] = {
    {"lyrebird", "obfs4,meek_lite"},
    {"obfs4proxy", "obfs4,meek_lite"},
    {"snowflake-client", "snowflake"},
};

QString executableIn(const QDir& dir, const QString& name) {
    for (const QString& candidate : {name, name + QStringLiteral(".exe")}) {
        const QFileInfo info(dir.filePath(candidate));
        if (info.isFile() && info.isExecutable())
            return info.absoluteFilePath();
    }
    return {};
}

} // namespace

QStringList bundledTorrcLines(const QString& torExecutable, const QStringList& configuredLines) {
    const QDir dir = QFileInfo(torExecutable).absoluteDir();
    QStringList lines;
    for (const auto& [file, option] :
         {std::pair{"geoip", "GeoIPFile"}, {"geoip6", "GeoIPv6File"}}) {
        const QFileInfo info(dir.filePath(QLatin1String(file)));
        if (info.isFile())
            lines << QStringLiteral("%1 %2").arg(QLatin1String(option), info.absoluteFilePath());
    }
    // Transports configured elsewhere: "ClientTransportPlugin obfs4,meek_lite exec …".
    QStringList configured;
    for (const QString& line : configuredLines) {
        const QStringList words = line.simplified().split(QLatin1Char(' '));
        if (words.size() > 1 && words.first() == QLatin1String("ClientTransportPlugin"))
            configured << words.at(1).split(QLatin1Char(','));
    }
    QStringList covered;
    for (const Transport& transport : kTransports) {
        const QString names = QLatin1String(transport.transports);
        const QStringList transports = names.split(QLatin1Char(','));
        if (covered.contains(names) ||
            std::any_of(transports.begin(), transports.end(),
                        [&](const QString& t) { return configured.contains(t); }))
            continue;
        const QString path = executableIn(dir, QLatin1String(transport.executable));
        if (path.isEmpty())
            continue;
        covered << names;
        lines << QStringLiteral("ClientTransportPlugin %1 exec %2").arg(names, path);
    }
    return lines;
}

} // namespace onionvoice::tor
