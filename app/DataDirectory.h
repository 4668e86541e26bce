// The default data directory of both programs (onionvoice, onionvoice-cli), computed in one place
// so that the command line works on the desktop app's identity, contacts and lock unless given
// --data-dir.
#pragma once

#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>

namespace onionvoice::app {

// The platform's application data location for organization and application "OnionVoice"
// ($XDG_DATA_HOME/OnionVoice/OnionVoice, by default ~/.local/share/OnionVoice/OnionVoice on Linux),
// whatever names the asking program runs under. The desktop app has always kept its data there, so
// its users keep their identity. onionvoice-cli used to take its own
// (~/.local/share/onionvoice-cli, see CommonOptions::dataDirectory), which left the two programs on
// different identities, contact books and locks.
inline QString defaultDataDirectory() {
    // QStandardPaths names the location after the running application; asked under the desktop
    // app's names, it gives the same directory on every platform without spelling out each one's
    // rules here.
    const QString organization = QCoreApplication::organizationName();
    const QString application = QCoreApplication::applicationName();
    QCoreApplication::setOrganizationName(QStringLiteral("OnionVoice"));
    QCoreApplication::setApplicationName(QStringLiteral("OnionVoice"));
    const QString directory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QCoreApplication::setOrganizationName(organization);
    QCoreApplication::setApplicationName(application);
    return directory;
}

} // namespace onionvoice::app
