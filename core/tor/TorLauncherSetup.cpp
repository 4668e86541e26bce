// tor's discovery (which executable, which version) and the torrc the launcher writes for it:
// the parts of TorLauncher that need no running tor.
#include "TorLauncher.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

namespace onionvoice::tor {
namespace {

const QString kSocksSocketName = QStringLiteral("/socks.sock");

#ifndef Q_OS_WIN
// A path as a torrc QuotedString (tor reads C escapes in a quoted unix socket path): spaces
// stay part of it, quotes and backslashes are escaped.
QString quotedForTorrc(const QString& path) {
    QString quoted = path;
    quoted.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    quoted.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}
#endif

} // namespace

QString TorVersion::toString() const {
    return QStringLiteral("%1.%2.%3.%4").arg(major).arg(minor).arg(micro).arg(patch);
}

std::optional<QString> TorLauncher::findTor(const QString& setting, QStringList* searched,
                                            const QString& bundleDirectory) {
    QStringList candidates;
    if (!setting.isEmpty())
        candidates << setting;
    if (!bundleDirectory.isEmpty())
        candidates << bundleDirectory + QStringLiteral("/tor");
    else if (QCoreApplication::instance())
        candidates << QCoreApplication::applicationDirPath() + QStringLiteral("/tor");
    const QString fromEnvironment = qEnvironmentVariable("ONIONVOICE_TOR");
    if (!fromEnvironment.isEmpty())
        candidates << fromEnvironment;
    for (const QString& candidate : candidates) {
        searched->append(candidate);
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return info.absoluteFilePath();
    }
    searched->append(QStringLiteral("PATH"));
    QString found = QStandardPaths::findExecutable(QStringLiteral("tor"));
    if (found.isEmpty()) {
        const QStringList sbin{QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/sbin")};
        searched->append(sbin);
        found = QStandardPaths::findExecutable(QStringLiteral("tor"), sbin);
    }
    if (found.isEmpty())
        return std::nullopt;
    return found;
}

TorLauncher::VersionCheck TorLauncher::checkVersion(const QString& path) {
    constexpr auto kVersionTimeout = std::chrono::milliseconds(10000);
    QProcess process;
    process.start(path, {QStringLiteral("--version")});
    if (!process.waitForFinished(int(kVersionTimeout.count()))) {
        process.kill();
        process.waitForFinished();
        return {std::nullopt, tr("%1 --version did not answer").arg(path)};
    }
    const std::optional<TorVersion> version =
        parseVersion(QString::fromUtf8(process.readAllStandardOutput()));
    if (!version)
        return {std::nullopt, tr("%1 did not report a tor version").arg(path)};
    if (*version < kMinimumVersion)
        return {version, tr("%1 is tor %2; OnionVoice needs tor %3 or newer")
                             .arg(path, version->toString(), kMinimumVersion.toString())};
    return {version, {}};
}

std::optional<TorVersion> TorLauncher::parseVersion(const QString& versionOutput) {
    static const QRegularExpression pattern(
        QStringLiteral(R"(Tor version (\d+)\.(\d+)\.(\d+)(?:\.(\d+))?)"));
    const QRegularExpressionMatch match = pattern.match(versionOutput);
    if (!match.hasMatch())
        return std::nullopt;
    TorVersion version;
    version.major = match.captured(1).toInt();
    version.minor = match.captured(2).toInt();
    version.micro = match.captured(3).toInt();
    version.patch = match.captured(4).toInt();
    return version;
}

QString TorLauncher::socksSocketPathFor(const TorLaunchConfig& config) {
    return (config.socksSocketDirectory.isEmpty() ? config.dataDirectory + QStringLiteral("/tor")
                                                  : config.socksSocketDirectory) +
           kSocksSocketName;
}

// tor's SOCKS port is a unix socket in a 0700 directory wherever the platform has them: only our
// user can connect to it. A TCP port on 127.0.0.1 is open to every local user, who could dial a
// contacts-only contact through our tor with the client authorization we gave it, or probe it
// (ExtendedErrors) for whom we hold one. Windows keeps 127.0.0.1: tor has no unix SocksPort there.
QString TorLauncher::generateTorrc(const TorLaunchConfig& config, qint64 owningPid) {
    const QString dir = config.dataDirectory + QStringLiteral("/tor");
#ifdef Q_OS_WIN
    const QString socksPort = QStringLiteral("127.0.0.1:auto");
#else
    const QString socksPort = QStringLiteral("unix:") + quotedForTorrc(socksSocketPathFor(config));
#endif
    QStringList lines{
        QStringLiteral("# Written by OnionVoice at every start; edits are overwritten."),
        QStringLiteral("DataDirectory %1").arg(dir),
        config.socksMode == TorLaunchConfig::SocksMode::Isolated
            ? QStringLiteral("SocksPort %1 IsolateSOCKSAuth OnionTrafficOnly ExtendedErrors")
                  .arg(socksPort)
            : QStringLiteral("SocksPort 0"),
        QStringLiteral("ControlPort 127.0.0.1:auto"),
        QStringLiteral("ControlPortWriteToFile %1/control-port").arg(dir),
        QStringLiteral("CookieAuthentication 1"),
        QStringLiteral("CookieAuthFile %1/control_auth_cookie").arg(dir),
        QStringLiteral("__OwningControllerProcess %1").arg(owningPid),
        QStringLiteral("AvoidDiskWrites 1"),
        QStringLiteral("Log notice stdout"),
    };
    lines << config.extraTorrcLines;
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

std::optional<QString> TorLauncher::checkTorrcValues(const TorLaunchConfig& config,
                                                     const QStringList& addedLines) {
    // One option per line: a line break or NUL would smuggle in further options, '#' would cut a
    // value short, and tor joins the next line to one that ends in a backslash (a bridge line
    // pasted with one swallowed the option after it).
    const auto problem = [](const QString& text) -> std::optional<QString> {
        if (text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r')) ||
            text.contains(QChar(0)))
            return tr("contains a line break or NUL");
        if (text.contains(QLatin1Char('#')))
            return tr("contains '#'");
        if (text.endsWith(QLatin1Char('\\')))
            return tr("ends in a backslash (tor would join the next line to it)");
        return std::nullopt;
    };
    if (const auto bad = problem(config.dataDirectory))
        return tr("The data directory path %1.").arg(*bad);
    // Only the option's name is shown: the rest may be a bridge address or a path.
    for (const QStringList& lines : {config.extraTorrcLines, addedLines})
        for (const QString& line : lines)
            if (const auto bad = problem(line))
                return tr("The tor option %1 %2.")
                    .arg(line.simplified().section(QLatin1Char(' '), 0, 0).left(40), *bad);
    return std::nullopt;
}

} // namespace onionvoice::tor
