// The desktop app's composition (GuiApp), offscreen and without a network or sound devices: what
// the user changes in Settings reaches the engine that is already running.
#include "GuiApp.h"
#include "OffscreenTestMain.h"

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace onionvoice;

namespace {

// What the audio the engine opens for its next call says when it cannot start here (there are
// no devices): names the device it was asked for.
QString nextCallsAudioError(const call::EngineConfig& config) {
    QString error;
    auto backend = config.audio(&error);
    if (!backend)
        return error;
    media::AudioRings rings;
    backend->start(rings, &error);
    return error;
}

} // namespace

class GuiAppTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: the audio factory copied the devices when the engine started, and a device change
    // does not restart it: a new headset chosen in Settings showed in the window, while every
    // call opened the old device (one unplugged since: every call failed at once).
    void aDeviceChosenInSettingsReachesTheNextCall() {
        QTemporaryDir data;
        {
            QSettings store(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            store.setValue("audio/input", "unplugged headset");
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        const call::EngineConfig running = app.engineConfig(); // what the engine holds
        QVERIFY2(nextCallsAudioError(running).contains("unplugged headset"),
                 qPrintable(nextCallsAudioError(running)));

        // The headset is not there any more, so Settings shows the system default: OK keeps it.
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog && dialog->objectName() == QStringLiteral("settingsDialog"));
            dialog->accept();
        });
        emit app.window()->settingsRequested();
        QCOMPARE(QSettings(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat)
                     .value("audio/input")
                     .toString(),
                 QString());
        QCOMPARE(nextCallsAudioError(running), QStringLiteral("no audio input device found"));
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(GuiAppTest)
#include "tst_guiapp.moc"
