// Torrc lines for the files that ship next to a bundled tor.
#include "BundledTor.h"

#include "TorLog.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace onionvoice::tor {
namespace {

struct Transport {
    const char* executable;
    const char* transports;
};

// First match per transport wins: lyrebird is obfs4proxy's successor in the Tor Expert Bundle and
// the only one of the two that runs webtunnel.
constexpr Transport kTransports[] = {
    {"lyrebird", "obfs4,meek_lite,webtunnel"},
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

// The characters tor's parse_transport_line splits on (smartlist_split_string, TOR_ISSPACE).
bool hasTorWhitespace(const QString& text) {
    return std::any_of(text.begin(), text.end(), [](QChar c) {
        return c == u' ' || c == u'\t' || c == u'\n' || c == u'\r' || c == u'\v' || c == u'\f';
    });
}

// Whether dir, a tor's directory, holds an executable that runs any of transports.
bool bundlesPlugin(const QDir& dir, const QStringList& transports) {
    return std::any_of(std::begin(kTransports), std::end(kTransports), [&](const Transport& t) {
        const QStringList provided = QString::fromLatin1(t.transports).split(u',');
        return std::any_of(transports.begin(), transports.end(),
                           [&](const QString& name) { return provided.contains(name); }) &&
               !executableIn(dir, QLatin1String(t.executable)).isEmpty();
    });
}

} // namespace

QStringList pluginTransports(const QString& executable) {
    QString name = QFileInfo(executable).fileName();
    if (name.endsWith(QLatin1String(".exe"), Qt::CaseInsensitive))
        name.chop(4);
    for (const Transport& transport : kTransports)
        if (name == QLatin1String(transport.executable))
            return QString::fromLatin1(transport.transports).split(u',');
    return {};
}

QString transportPluginLine(const QString& transports, const QString& executable,
                            const QString& torExecutable) {
    if (executable.isEmpty())
        return {};
    const auto line = [&](const QString& name) {
        return QStringLiteral("ClientTransportPlugin %1 exec %2").arg(transports, name);
    };
    const QFileInfo info(executable);
    if (!hasTorWhitespace(info.absoluteFilePath()))
        return line(info.absoluteFilePath());
    if (!torExecutable.isEmpty()) {
        const QDir torDir = QFileInfo(torExecutable).absoluteDir();
        const QString torDirPath = torDir.canonicalPath();
        if (!torDirPath.isEmpty() && QDir(info.absolutePath()).canonicalPath() == torDirPath &&
            !hasTorWhitespace(info.fileName()))
            return line(QDir::toNativeSeparators(QStringLiteral("./") + info.fileName()));
        if (bundlesPlugin(torDir, transports.split(u',')))
            return {};
    }
    qCWarning(lcTor).noquote()
        << QStringLiteral("bridges of %1 cannot work: tor splits its ClientTransportPlugin line "
                          "at whitespace and cannot run %2; move it to a path without spaces, or "
                          "next to tor")
               .arg(transports, info.absoluteFilePath());
    return {};
}

QStringList bundledTorrcLines(const QString& torExecutable, const QStringList& configuredLines) {
    const QDir dir = QFileInfo(torExecutable).absoluteDir();
    QStringList lines;
    for (const auto& [file, option] :
         {std::pair{"geoip", "GeoIPFile"}, {"geoip6", "GeoIPv6File"}}) {
        const QFileInfo info(dir.filePath(QLatin1String(file)));
        if (info.isFile())
            lines << QStringLiteral("%1 %2").arg(QLatin1String(option), info.absoluteFilePath());
    }
    // Transports that have their plugin: configured elsewhere ("ClientTransportPlugin
    // obfs4,meek_lite exec …"), or by an executable found before (lyrebird's obfs4 wins over
    // obfs4proxy's).
    QStringList configured;
    for (const QString& line : configuredLines) {
        const QStringList words = line.simplified().split(QLatin1Char(' '));
        if (words.size() > 1 && words.first() == QLatin1String("ClientTransportPlugin"))
            configured << words.at(1).split(QLatin1Char(','));
    }
    for (const Transport& transport : kTransports) {
        const QString names = QLatin1String(transport.transports);
        const QStringList transports = names.split(QLatin1Char(','));
        if (std::any_of(transports.begin(), transports.end(),
                        [&](const QString& t) { return configured.contains(t); }))
            continue;
        const QString path = executableIn(dir, QLatin1String(transport.executable));
        if (path.isEmpty())
            continue;
        configured << transports;
        if (const QString line = transportPluginLine(names, path, torExecutable); !line.isEmpty())
            lines << line;
    }
    return lines;
}

QStringList bridgeTorrcLines(const QStringList& bridgeLines, const QStringList& pluginExecutables,
                             const QString& torExecutable) {
    QStringList lines{QStringLiteral("UseBridges 1")};
    for (const QString& executable : pluginExecutables) {
        const QString transports = pluginTransports(executable).join(u',');
        if (transports.isEmpty())
            continue;
        if (const QString line = transportPluginLine(transports, executable, torExecutable);
            !line.isEmpty())
            lines << line;
    }
    for (const QString& line : bridgeLines)
        lines << QStringLiteral("Bridge ") + line;
    return lines;
}

} // namespace onionvoice::tor
