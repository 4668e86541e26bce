// onionvoice: the desktop app. Without options it uses the real Tor network; --testnet runs it
// on the private network of tests/testnet (demo mode); --self-test checks the machine.
#include "../DataDirectory.h"
#include "../NoCoreDumps.h"
#include "../PrivateFileMode.h"
#include "../ProcessListSecrets.h"
#include "../TestNetworkTorrc.h"
#include "GuiApp.h"
#include "InstanceGuard.h"
#include "InterruptWatcher.h"
#include "SelfTest.h"
#include "StartFailure.h"
#include "ui/AppIcon.h"
#include "ui/Translation.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <cstdio>
#include <cstring>

using namespace onionvoice;
using onionvoice::app::InstanceGuard;

int main(int argc, char** argv) {
    onionvoice::app::restrictFileCreationMask();
    onionvoice::app::disableCoreDumps();
    // The self-test must run without a display, so the platform is chosen before Qt starts.
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--self-test") == 0 &&
            qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // Debug output names onion addresses and repeats tor's log: only when asked for.
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(QStringLiteral("onionvoice.*.debug=false"));
    QApplication::setApplicationName(QStringLiteral("OnionVoice"));
    QApplication::setOrganizationName(QStringLiteral("OnionVoice"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    QApplication::setDesktopFileName(QStringLiteral("org.onionvoice.OnionVoice"));
    QApplication::setWindowIcon(ui::appIcon());
    // In the user's language where OnionVoice has it (German so far), English otherwise.
    const auto translations = ui::installTranslations(QLocale());

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("main", "Anonymous voice calls over Tor onion services."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption selfTest(
        "self-test", QApplication::translate("main", "Check Qt, tor, audio and the window; print "
                                                     "one JSON object; exit 0 when all is well."));
    const QString defaultDataDir = app::defaultDataDirectory();
    const QCommandLineOption dataDir(
        "data-dir",
        QApplication::translate("main", "Keep identity, contacts and settings in DIR (default: %1, "
                                        "shared with onionvoice-cli).")
            .arg(defaultDataDir),
        "DIR");
    const QCommandLineOption testnet(
        "testnet",
        QApplication::translate("main", "Use the private Tor network started by tests/testnet "
                                        "(testnet.py up DIR)."),
        "DIR");
    const QCommandLineOption contact(
        "contact", QApplication::translate("main", "Add this onionvoice: link to the contacts."),
        "LINK");
    const QCommandLineOption play(
        "play", QApplication::translate("main", "Use a 48 kHz WAV file as the microphone."), "WAV");
    const QCommandLineOption record(
        "record",
        QApplication::translate("main", "With --play: record what is heard to a WAV file."), "WAV");
    parser.addOptions({selfTest, dataDir, testnet, contact, play, record});
    parser.addPositionalArgument(
        "link", QApplication::translate("main", "An onionvoice: link to add as a contact."),
        "[link]");
    parser.process(app);
    onionvoice::app::hideAccessKeysFromProcessList(argc, argv);

    if (parser.isSet(selfTest)) {
        const QJsonObject result = gui::runSelfTest();
        std::puts(QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
        return result["ok"].toBool() ? 0 : 1;
    }

    gui::GuiOptions options;
    options.dataDirectory =
        parser.isSet(dataDir) ? QDir(parser.value(dataDir)).absolutePath() : defaultDataDir;
    // 0700 by the umask; a failure is reported by the claim below. An existing directory is not
    // changed here: a loose one behind a symbolic link (maybe shared on purpose) is the engine's
    // to refuse with its reason, and chmod through the link took the group's access silently.
    QDir().mkpath(options.dataDirectory);
    if (parser.isSet(testnet)) {
        // Read once, here: a file that cannot be used stops the start, rather than the app going
        // onto the real Tor network (or a network someone else described) in demo mode.
        const QString network = QDir(parser.value(testnet)).absolutePath();
        QString why;
        const auto lines = app::readTestNetworkTorrc(network, &why);
        if (!lines) {
            gui::reportStartFailure(
                QApplication::translate("main", "--testnet %1: %2").arg(network, why),
                gui::windowsAreSeen());
            return 1;
        }
        options.testnetTorrcLines = *lines;
    }
    options.contacts = parser.values(contact);
    options.playFile = parser.value(play);
    options.recordFile = parser.value(record);
    if (!parser.positionalArguments().isEmpty())
        options.openUri = parser.positionalArguments().first();

    // One OnionVoice per data directory: a second start (e.g. the desktop opening an onionvoice:
    // link) hands its link to the running one and ends here.
    InstanceGuard instance(options.dataDirectory);
    switch (instance.claim(options.openUri)) {
    case InstanceGuard::Role::Forwarded:
        return 0;
    case InstanceGuard::Role::Failed:
        gui::reportStartFailure(instance.errorString(), gui::windowsAreSeen());
        return 1;
    case InstanceGuard::Role::Unclaimed:
    case InstanceGuard::Role::Primary:
        break;
    }

    gui::GuiApp gui(options);
    QObject::connect(&instance, &InstanceGuard::activationRequested, &gui, &gui::GuiApp::activate);
    // SIGTERM (a logout, a shutdown) or Ctrl-C quits as the Quit action does: the call is hung
    // up, a ring is told it went unanswered, tor is stopped and the instance files go (killed
    // outright, the peer read "connection lost"). The watcher goes before `gui`, so that a second
    // signal during that stop ends the program at once.
    app::InterruptWatcher interrupts;
    QObject::connect(&interrupts, &app::InterruptWatcher::interrupted, &app, &QApplication::quit);
    gui.start();
    return app.exec();
}
