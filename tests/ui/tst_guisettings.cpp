// The desktop app's settings file (GuiApp, offscreen, no network or sound devices): a save that
// fails is said, a file that cannot be read whole starts no tor, a garbled choice of who may call
// refuses, the bridges reach tor's configuration with their transport's plugin, and a saved device
// that is unplugged stays the choice.
#include "../cli/StandInTor.h"
#include "GuiApp.h"
#include "OffscreenTestMain.h"
#include "SettingsDriving.h"
#include "ui/MainWindow.h"
#include "ui/SettingsDialog.h"
#include "ui/TorStatusPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QScopeGuard>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <unistd.h>

using namespace onionvoice;
using onionvoice::test::inSettings;

namespace {

// What the app's message boxes say.
QStringList boxesOf(gui::GuiApp& app) {
    QStringList said;
    for (QMessageBox* box : app.window()->findChildren<QMessageBox*>())
        said.append(box->text());
    return said;
}

} // namespace

class GuiSettingsTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: the settings were saved without a look at the result: with a settings file the user
    // cannot write, "refuse unknown callers" or "contacts only" held for this session and were
    // gone at the next start, without a word. A box says so now (the status bar would be
    // overwritten by the restart some settings make).
    void settingsThatCannotBeSavedAreSaid_data() {
        QTest::addColumn<QString>("obstacle");
        QTest::newRow("none") << QString();
        QTest::newRow("read-only file") << QStringLiteral("read-only");
        QTest::newRow("a directory in its place") << QStringLiteral("directory");
    }
    void settingsThatCannotBeSavedAreSaid() {
        QFETCH(QString, obstacle);
        QTemporaryDir data;
        const QString file = data.filePath(QStringLiteral("settings.ini"));
        if (obstacle == QStringLiteral("directory")) {
            QVERIFY(QDir().mkdir(file));
        } else if (obstacle == QStringLiteral("read-only")) {
            if (::geteuid() == 0)
                QSKIP("root writes a read-only file");
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("[security]\nunknownCallers=ring\n");
            f.close();
            QVERIFY(f.setPermissions(QFileDevice::ReadOwner));
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        inSettings(app, [](QDialog* dialog) {
            dialog->findChild<QCheckBox*>("refuseUnknownCheck")->setChecked(true);
            dialog->accept();
        });
        const QStringList said = boxesOf(app);
        if (obstacle.isEmpty()) {
            QVERIFY2(said.isEmpty(), qPrintable(said.join('|')));
            QCOMPARE(QSettings(file, QSettings::IniFormat).value("security/unknownCallers"),
                     QVariant(QStringLiteral("refuse")));
            return;
        }
        QCOMPARE(said.size(), 1);
        QVERIFY2(said.first().contains(QStringLiteral("could not be saved")) &&
                     said.first().contains(file),
                 qPrintable(said.first()));
    }

    // Fault (a review found it): the unreadable file is set aside when the user saves new
    // settings; when that save failed (a full disk), the next start found no settings.ini, took
    // it for a first start, and started tor with the least private defaults without a word.
    void unreadableSettingsSetAsideAndNeverReplacedStartNoTor() {
        QTemporaryDir data;
        QFile aside(data.filePath(QStringLiteral("settings.ini.unreadable-20261129T100000")));
        QVERIFY(aside.open(QIODevice::WriteOnly));
        aside.write("[tor]\nuseBridges tr\xc3ue\n");
        aside.close();
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        app.start();
        QCOMPARE(app.host()->phase(), ui::EngineHost::Phase::Stopped);
        const QStringList said = boxesOf(app);
        QCOMPARE(said.size(), 1);
        QVERIFY2(said.first().contains(QStringLiteral("is missing")) &&
                     said.first().contains(aside.fileName()),
                 qPrintable(said.first()));
    }

    // Fault: a settings.ini that could not be read whole (a line Qt cannot parse; a file restored
    // root-owned from a backup) read as the defaults, and tor started with them: no bridges, an
    // open service, strangers ringing, without a word. Tor now waits for the user to check and
    // save the settings, and the unreadable file is kept.
    void anUnreadableSettingsFileStartsNoTor_data() {
        QTest::addColumn<bool>("linkToNothing");
        QTest::newRow("a line Qt cannot parse") << false;
        QTest::newRow("a link to nothing") << true;
    }
    void anUnreadableSettingsFileStartsNoTor() {
        QFETCH(bool, linkToNothing);
        QTemporaryDir data;
        const QString file = data.filePath(QStringLiteral("settings.ini"));
        const QByteArray content = "[security]\ncontactsOnly=true\nunknownCallers=refuse\n"
                                   "[tor]\nuseBridges tr\xc3ue\npath=" +
                                   QFile::encodeName(waitingTor(data)) + "\n";
        if (linkToNothing) {
            QVERIFY(QFile::link(data.filePath(QStringLiteral("unmounted/settings.ini")), file));
        } else {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        app.start();
        QCOMPARE(app.host()->phase(), ui::EngineHost::Phase::Stopped);
        const QStringList said = boxesOf(app);
        QCOMPARE(said.size(), 1);
        QVERIFY2(said.first().contains(file + (linkToNothing ? QStringLiteral(" cannot be read")
                                                             : QStringLiteral(" is damaged"))),
                 qPrintable(said.first()));
        if (linkToNothing)
            return; // with no tor of its own to name, an OK would start the public network's
        const auto* hint = app.window()->torStatus()->findChild<QLabel*>("torHint");
        QVERIFY2(hint && hint->text().contains(QStringLiteral("Check the settings")),
                 qPrintable(hint ? hint->text() : QString()));
        emit app.window()->retryRequested(); // Retry alone does not start it either
        QCOMPARE(app.host()->phase(), ui::EngineHost::Phase::Stopped);

        inSettings(app, [](QDialog* dialog) { dialog->accept(); });
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Running, 20000);
        const QStringList kept =
            QDir(data.path()).entryList({QStringLiteral("settings.ini.unreadable-*")});
        QCOMPARE(kept.size(), 1);
        QFile keptFile(data.filePath(kept.first()));
        QVERIFY(keptFile.open(QIODevice::ReadOnly));
        QCOMPARE(keptFile.readAll(), content);
        QSettings saved(file, QSettings::IniFormat);
        QCOMPARE(saved.value("security/contactsOnly").toBool(), true);
        QCOMPARE(saved.value("security/unknownCallers").toString(), QStringLiteral("refuse"));
        QCOMPARE(saved.status(), QSettings::NoError);
    }

    // The garbled choice of who may call (tst_uiunits aGarbledChoiceOfWhoMayCallDoesNotOpenTheDoor)
    // reaches the engine as a refusal, and the window says why.
    void aGarbledChoiceOfWhoMayCallRefusesAndSaysSo() {
        QTemporaryDir data;
        {
            QSettings store(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            store.setValue("security/unknownCallers", "refus");
            store.setValue("tor/path", waitingTor(data));
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        QCOMPARE(app.engineConfig().unknownCallers, call::UnknownCallers::Refuse);
        app.start();
        const QString shown = app.window()->statusBar()->currentMessage();
        QVERIFY2(shown.contains(QStringLiteral("\"refus\"")), qPrintable(shown));
    }

    // The bridges reach tor's configuration with their transport's plugin, found on PATH (here a
    // stand-in obfs4proxy the test puts first). A start no longer makes the list of sound devices
    // for this, which initialised PortAudio on the GUI thread; no test here can see that.
    void bridgesReachTorWithTheirPlugin() {
        QTemporaryDir data, bin;
        const QString plugin = bin.filePath(QStringLiteral("obfs4proxy"));
        {
            QFile f(plugin);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("#!/bin/sh\nexit 1\n");
            f.close();
            QVERIFY(f.setPermissions(f.permissions() | QFileDevice::ExeOwner));
        }
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", QFile::encodeName(bin.path()) + ':' + path);
        const auto restore = qScopeGuard([&path] { qputenv("PATH", path); });
        const QString bridge = QStringLiteral(
            "obfs4 192.0.2.1:443 0123456789ABCDEF0123456789ABCDEF01234567 cert=AAAA iat-mode=0");
        {
            QSettings store(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            store.setValue("tor/useBridges", true);
            store.setValue("tor/bridges", QStringList{bridge});
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        const QStringList lines = app.engineConfig().extraTorrcLines;
        const auto has = [&lines](const QString& start, const QString& part) {
            return std::any_of(lines.begin(), lines.end(), [&](const QString& line) {
                return line.startsWith(start) && line.contains(part);
            });
        };
        QVERIFY2(has(QStringLiteral("ClientTransportPlugin"), plugin), qPrintable(lines.join('|')));
        QVERIFY2(has(QStringLiteral("Bridge "), bridge), qPrintable(lines.join('|')));
    }

    // Fault (a review found it): a saved headset that is unplugged showed as "System default",
    // and OK (for any other change) replaced the choice with it.
    void anUnpluggedDeviceStaysChosen() {
        ui::SettingsEnvironment environment;
        environment.inputDevices = {"Mic A"};
        ui::AppSettings saved;
        saved.inputDevice = "USB Headset";
        ui::SettingsDialog dialog(saved, environment);
        auto* input = dialog.findChild<QComboBox*>("inputDeviceCombo");
        QVERIFY(input);
        QVERIFY2(input->currentText().contains(QStringLiteral("USB Headset")) &&
                     input->currentText().contains(QStringLiteral("not connected")),
                 qPrintable(input->currentText()));
        QCOMPARE(dialog.settings().inputDevice, QStringLiteral("USB Headset"));
    }

    // Plugged into another USB port, ALSA gives the headset another card index; it is still the
    // one chosen, and OK saves it under its new name.
    void aHeadsetInAnotherPortStaysChosen() {
        ui::SettingsEnvironment environment;
        environment.outputDevices = {"HDA Intel PCH: ALC3246 Analog (hw:0,0)",
                                     "USB Headset: Audio (hw:3,0)"};
        ui::AppSettings saved;
        saved.outputDevice = "USB Headset: Audio (hw:2,0)";
        ui::SettingsDialog dialog(saved, environment);
        auto* output = dialog.findChild<QComboBox*>("outputDeviceCombo");
        QVERIFY(output);
        QCOMPARE(output->currentText(), QStringLiteral("USB Headset: Audio (hw:3,0)"));
        QCOMPARE(output->count(), 3);
        QCOMPARE(dialog.settings().outputDevice, QStringLiteral("USB Headset: Audio (hw:3,0)"));
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(GuiSettingsTest)
#include "tst_guisettings.moc"
