// The desktop app's composition (GuiApp), offscreen and without a network or sound devices: what
// the user changes in Settings reaches the engine that is already running.
#include "../../app/TestNetworkTorrc.h"
#include "../cli/StandInTor.h"
#include "../contacts/ContactTestData.h"
#include "GuiApp.h"
#include "InstanceGuard.h"
#include "OffscreenTestMain.h"
#include "SettingsDriving.h"
#include "StartFailure.h"
#include "WidgetLookup.h"
#include "contacts/ContactBook.h"
#include "contacts/ContactUri.h"
#include "media/PortAudioBackend.h"
#include "tor/ClientAuthKey.h"
#include "ui/CallWindow.h"
#include "ui/IncomingCallDialog.h"
#include "ui/MainWindow.h"
#include "ui/Translation.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWindow>
#include <algorithm>
#include <unistd.h>

using namespace onionvoice;
using onionvoice::test::inSettings;

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

// Waits until the engine thread has run everything queued to it before this call.
void drainEngineThread(ui::EngineHost* host) {
    QObject probe;
    probe.moveToThread(host->engineThread());
    QMetaObject::invokeMethod(
        &probe, [] {}, Qt::BlockingQueuedConnection);
}

// Writes `content` to DIR/client.torrc with the given mode.
void writeClientTorrc(const QString& directory, const QByteArray& content,
                      QFileDevice::Permissions mode) {
    QFile file(QDir(directory).filePath(QStringLiteral("client.torrc")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(content), content.size());
    file.close();
    QVERIFY(file.setPermissions(mode));
}

constexpr auto kOwnerReadWrite = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

// Clicks `button` as a user does, through its window: Qt drops input to a window that a modal
// dialog blocks there. (QTest::mouseClick on the widget itself is delivered past that check.)
void clickAsTheUser(QPushButton* button) {
    QWidget* top = button->window();
    QVERIFY(top->windowHandle());
    QTest::mouseClick(top->windowHandle(), Qt::LeftButton, {},
                      button->mapTo(top, button->rect().center()));
}

// While `opened` (the app's dialog, as the menu opens it) is open, a call rings: its prompt and
// then the call window must take the user's clicks.
void answerAndHangUpWhileOpen(gui::GuiApp& app, const QString& opened) {
    const QString caller = testAddress(7);
    QTimer::singleShot(0, [&app, opened, caller] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        QVERIFY(dialog && dialog->objectName() == opened);
        const auto close = qScopeGuard([dialog] { dialog->reject(); });
        QTRY_VERIFY(dialog->isVisible());
        emit app.host()->incomingCall(caller, QStringLiteral("Alice"));
        ui::IncomingCallDialog* prompt = app.window()->incomingCallDialog();
        QTRY_VERIFY(prompt && prompt->isVisible());
        QSignalSpy answers(prompt, &ui::IncomingCallDialog::acceptRequested);
        clickAsTheUser(find<QPushButton>(prompt, "acceptCallButton"));
        QCOMPARE(answers.size(), 1);
        // The answered call gets the sound devices: the sound test stops.
        if (opened == QStringLiteral("soundTestDialog"))
            QVERIFY(!dialog->isVisible());
        ui::CallWindow* call = app.window()->callWindow();
        QTRY_VERIFY(call && call->isVisible());
        QSignalSpy hangUps(call, &ui::CallWindow::hangUpRequested);
        clickAsTheUser(find<QPushButton>(call, "hangUpButton"));
        QCOMPARE(hangUps.size(), 1);
    });
    if (opened == QStringLiteral("settingsDialog"))
        emit app.window()->settingsRequested();
    else
        emit app.window()->soundTestRequested();
    QTRY_VERIFY(!QApplication::activeModalWidget());
}

// The app in `data` runs a tor that waits: it never bootstraps.
void useWaitingTor(const QTemporaryDir& data) {
    QSettings(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat)
        .setValue("tor/path", waitingTor(data));
}

// An app running on a tor that waits (it never bootstraps), with one contact, testAddress(8).
std::unique_ptr<gui::GuiApp> startedWithAContact(const QTemporaryDir& data) {
    useWaitingTor(data);
    auto app = std::make_unique<gui::GuiApp>(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
    app->start();
    if (!QTest::qWaitFor([&] { return app->host()->phase() == ui::EngineHost::Phase::Running; },
                         20000))
        return nullptr;
    app->host()->addContact({testAddress(8), QStringLiteral("Cy"), {}, false, false, {}, {}});
    if (!QTest::qWaitFor([&] { return app->host()->contact(testAddress(8)).has_value(); }, 5000))
        return nullptr;
    return app;
}

} // namespace

class GuiAppTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: the German app showed why audio could not start in English ("Audio konnte nicht
    // starten: cannot open audio input …"): the sound system's sentences were not translatable.
    void audioErrorsAreInTheAppsLanguage() {
        const auto german = ui::installTranslations(QLocale(QLocale::German, QLocale::Germany));
        QVERIFY(!german.empty());
        QString error;
        auto backend = media::PortAudioBackend::create(&error);
        QVERIFY2(backend, qPrintable(error));
        backend->setInputDevice({{}, QStringLiteral("Headset")});
        media::AudioRings rings;
        QVERIFY(!backend->start(rings, &error));
        QCOMPARE(error, QStringLiteral("Mikrofon „Headset“ nicht gefunden"));
    }

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
        // A dial looks for the same device before it rings anyone.
        QString missing;
        QVERIFY(running.audioDevicesPresent && !running.audioDevicesPresent(&missing));
        QVERIFY2(missing.contains("unplugged headset"), qPrintable(missing));

        // The headset is not there any more: Settings shows it as not connected (it stays the
        // choice), and the user picks the system default.
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog && dialog->objectName() == QStringLiteral("settingsDialog"));
            auto* input = dialog->findChild<QComboBox*>(QStringLiteral("inputDeviceCombo"));
            QVERIFY(input && input->currentText().contains(QStringLiteral("unplugged headset")));
            input->setCurrentIndex(0);
            dialog->accept();
        });
        emit app.window()->settingsRequested();
        QCOMPARE(QSettings(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat)
                     .value("audio/input")
                     .toString(),
                 QString());
        QCOMPARE(nextCallsAudioError(running), QStringLiteral("no microphone found"));
    }

    // Attack on fail-closed: contacts were lost (a blocked one may be among them), so the engine
    // refuses strangers until the user chooses again. Settings showed the saved choice (strangers
    // ring), and OK after changing only the microphone applied it: strangers rang again, and the
    // book forgot that entries were lost, so the next start did not refuse either.
    void settingsOkDoesNotLiftTheRefusalAfterLostContacts() {
        QTemporaryDir data;
        const QString book = data.filePath(QStringLiteral("contacts.json"));
        {
            QFile f(book);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"version": 1, "contacts": [{"address": "lost", "blocked": true}]})");
            useWaitingTor(data);
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        app.start();
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Running, 20000);
        QTRY_VERIFY(app.host()->unknownCallers() == call::UnknownCallers::Refuse);

        bool shownRefused = false;
        inSettings(app, [&](QDialog* dialog) {
            shownRefused = dialog->findChild<QCheckBox*>("refuseUnknownCheck")->isChecked();
            dialog->accept();
        });
        QVERIFY(shownRefused); // what is in force, not the saved choice
        drainEngineThread(app.host());
        QVERIFY(contacts::ContactBook(book).load().mayHaveLostEntries());
        QCOMPARE(app.host()->unknownCallers(), call::UnknownCallers::Refuse);
        QCOMPARE(QSettings(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat)
                     .value("security/unknownCallers")
                     .toString(),
                 QStringLiteral("ring")); // nor is the saved choice changed behind the user's back

        // Unticking the box is the answer: strangers ring again, and the book is whole from now.
        inSettings(app, [](QDialog* dialog) {
            dialog->findChild<QCheckBox*>("refuseUnknownCheck")->setChecked(false);
            dialog->accept();
        });
        QTRY_COMPARE(app.host()->unknownCallers(), call::UnknownCallers::Ring);
        QVERIFY(!contacts::ContactBook(book).load().mayHaveLostEntries());
    }

    // Attack on the contact book (a review found it; the suite was green): a start that fails
    // before the book is read (here a key file others can read, as restored from a backup) left
    // the window taking contact edits, and the first one saved the engine's empty book over the
    // real one: every contact, block and access key gone, blocked callers ringing again.
    void aStartThatFailedBeforeReadingTheBookLosesNoContact() {
        QTemporaryDir data;
        const QString book = data.filePath(QStringLiteral("contacts.json"));
        {
            contacts::ContactBook blocked(book);
            blocked.load();
            QString error;
            QVERIFY(blocked.add({testAddress(3), QStringLiteral("Pest"), {}, true, false, {}, {}},
                                &error));
            QVERIFY2(blocked.save(&error), qPrintable(error));
            QFile key(data.filePath(QStringLiteral("identity.key")));
            QVERIFY(key.open(QIODevice::WriteOnly));
            key.write(QByteArray(64, 'k'));
            key.close();
            QVERIFY(key.setPermissions(kOwnerReadWrite | QFileDevice::ReadGroup |
                                       QFileDevice::ReadOther));
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        app.start();
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Failed, 20000);
        QSignalSpy errors(app.host(), &ui::EngineHost::errorOccurred);
        app.host()->setUnknownCallers(call::UnknownCallers::Refuse);
        app.host()->addContact({testAddress(4), QStringLiteral("Ana"), {}, false, false, {}, {}});
        drainEngineThread(app.host());

        contacts::ContactBook onDisk(book);
        onDisk.load();
        QVERIFY(onDisk.find(testAddress(3)) && onDisk.find(testAddress(3))->blocked);
        QCOMPARE(onDisk.contacts().size(), 1);
        QTRY_VERIFY(!errors.isEmpty()); // the user is told the edit was not kept
    }

    // Fault (a review found it): the contact links given at start (`--contact`) were applied at
    // every start of the engine, so a restart (Retry, a changed setting) brought back a contact
    // the user had removed, and the link's old access key over the one the contact sent since.
    void startupContactsAreTakenOnceNotAtEveryRestart() {
        QTemporaryDir data;
        useWaitingTor(data);
        const contacts::ContactUri keyed{testAddress(5), QStringLiteral("Ana"),
                                         QByteArray(32, '\x01')};
        const contacts::ContactUri plain{testAddress(6), QStringLiteral("Bo"), {}};
        gui::GuiApp app(
            gui::GuiOptions{data.path(), {}, {keyed.toString(), plain.toString()}, {}, {}, {}});
        QSignalSpy phases(app.host(), &ui::EngineHost::phaseChanged);
        app.start();
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Running, 20000);
        QTRY_VERIFY(app.host()->contact(testAddress(6)).has_value());
        QTRY_COMPARE(app.host()->contact(testAddress(5))->outboundAuthPrivateKey,
                     QByteArray(32, '\x01'));

        // The contact sent a fresh link; the other one was removed.
        app.host()->setContactAccessKey(testAddress(5), QByteArray(32, '\x02'));
        app.host()->removeContact(testAddress(6));
        QTRY_VERIFY(!app.host()->contact(testAddress(6)).has_value());
        phases.clear();
        emit app.window()->retryRequested();
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(phases.begin(), phases.end(),
                                             [](const QList<QVariant>& p) {
                                                 return p.at(0).value<ui::EngineHost::Phase>() ==
                                                        ui::EngineHost::Phase::Running;
                                             }),
                                 20000);
        drainEngineThread(app.host());
        QCoreApplication::processEvents();
        drainEngineThread(app.host());

        contacts::ContactBook onDisk(data.filePath(QStringLiteral("contacts.json")));
        onDisk.load();
        QVERIFY(!onDisk.find(testAddress(6)));
        QVERIFY(onDisk.find(testAddress(5)));
        QCOMPARE(onDisk.find(testAddress(5))->outboundAuthPrivateKey, QByteArray(32, '\x02'));
    }

    // Share → "Copy a link with an access key": the contact is allowlisted with the key's public
    // half, on disk, and the link carries the private half.
    void anAccessLinkIsGrantedOnDisk() {
        QTemporaryDir data;
        const auto started = startedWithAContact(data);
        QVERIFY(started);
        gui::GuiApp& app = *started;
        QSignalSpy links(app.host(), &ui::EngineHost::accessLinkReady);
        app.host()->createAccessLink(testAddress(8));
        QTRY_COMPARE(links.size(), 1);
        const auto parsed = contacts::parseContactUri(links.at(0).at(1).toString());
        QVERIFY2(parsed.uri && parsed.uri->clientAuthKey.size() == 32, qPrintable(parsed.error));
        const auto key = tor::ClientAuthKey::fromPrivateKey(std::span<const std::uint8_t, 32>(
            reinterpret_cast<const std::uint8_t*>(parsed.uri->clientAuthKey.constData()), 32));
        contacts::ContactBook onDisk(data.filePath(QStringLiteral("contacts.json")));
        onDisk.load();
        QVERIFY(onDisk.find(testAddress(8)) && onDisk.find(testAddress(8))->allowlisted);
        QCOMPARE(onDisk.find(testAddress(8))->inboundAuthPublicKey,
                 QByteArray(reinterpret_cast<const char*>(key.publicKey().data()), 32));
    }

    // Fault (a review found it): when the grant could not be saved (a full or read-only disk),
    // the link was copied all the same and its "copied" message covered the save error. The
    // contact then used a key the next start no longer knew, and contacts-only refused them.
    void anAccessLinkThatCouldNotBeSavedIsNotHandedOut() {
        QTemporaryDir data;
        const auto started = startedWithAContact(data);
        QVERIFY(started);
        gui::GuiApp& app = *started;
        QSignalSpy links(app.host(), &ui::EngineHost::accessLinkReady);
        QSignalSpy errors(app.host(), &ui::EngineHost::errorOccurred);
        // A directory where the book is: its save fails, as root's would on a full disk.
        const QString book = data.filePath(QStringLiteral("contacts.json"));
        QVERIFY(QFile::remove(book));
        QVERIFY(QDir().mkdir(book));
        app.host()->createAccessLink(testAddress(8));
        QTRY_VERIFY(!errors.isEmpty());
        drainEngineThread(app.host());
        QCoreApplication::processEvents();
        QCOMPARE(links.size(), 0);
        // Said once, and with what it means: the change lasts until the app quits (the
        // message said "could not be saved" twice and left that out).
        const QString said = errors.last().at(0).toString();
        QVERIFY2(said.count(QStringLiteral("could not be saved")) == 1 &&
                     said.contains(QStringLiteral("until OnionVoice quits")),
                 qPrintable(said));
    }

    // Fault (a review found it): a damaged book is kept aside and the user told where, but the
    // refusal of strangers that follows came as a second message at once and replaced the first
    // in the status bar: where the damaged copy went was never seen.
    void aDamagedBookSaysWhereItWasKeptAndThatStrangersAreRefused() {
        QTemporaryDir data;
        {
            QFile book(data.filePath(QStringLiteral("contacts.json")));
            QVERIFY(book.open(QIODevice::WriteOnly));
            book.write(R"({"version": 1, "contacts": [{"address": )");
            useWaitingTor(data);
        }
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        QSignalSpy errors(app.host(), &ui::EngineHost::errorOccurred);
        app.start();
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Running, 20000);
        QTRY_VERIFY(app.host()->unknownCallers() == call::UnknownCallers::Refuse);
        QVERIFY(!errors.isEmpty());
        const QString last = errors.last().at(0).toString();
        QVERIFY2(last.contains(QStringLiteral("contacts.json.corrupt-")), qPrintable(last));
        QVERIFY2(last.contains(QStringLiteral("refused")), qPrintable(last));
    }

    // Fault (a review found it): a data directory that had been used, restored without its
    // identity.key (or cleaned of it), got a new identity without a word: another address, which
    // no contact has. A first start says nothing.
    void aLostIdentityIsNotReplacedSilently_data() {
        QTest::addColumn<bool>("usedBefore");
        QTest::newRow("used before") << true;
        QTest::newRow("first start") << false;
    }
    void aLostIdentityIsNotReplacedSilently() {
        QFETCH(bool, usedBefore);
        QTemporaryDir data;
        if (usedBefore) {
            QFile book(data.filePath(QStringLiteral("contacts.json")));
            QVERIFY(book.open(QIODevice::WriteOnly));
            book.write(R"({"version": 1, "contacts": []})");
        }
        useWaitingTor(data);
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        QSignalSpy errors(app.host(), &ui::EngineHost::errorOccurred);
        app.start();
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Running, 20000);
        QStringList said;
        for (const auto& e : errors)
            said << e.at(0).toString();
        const bool told = said.join('|').contains(QStringLiteral("identity.key"));
        QCOMPARE(told, usedBefore);
        if (usedBefore)
            QVERIFY2(said.join('|').contains(app.host()->address()), qPrintable(said.join('|')));
    }

    // What a hotline that never stopped (a crash) left of the identity's key goes at the next
    // start without the hotline.
    void aHotlinesLeftoverKeyIsRemoved() {
        QTemporaryDir data;
        const QString secret = data.filePath(QStringLiteral("hotline/hotline-service/"
                                                            "hs_ed25519_secret_key"));
        QVERIFY(QDir().mkpath(QFileInfo(secret).path()));
        QFile leftover(secret);
        QVERIFY(leftover.open(QIODevice::WriteOnly));
        leftover.write(QByteArray(96, 's'));
        leftover.close();
        useWaitingTor(data);
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        app.start();
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->phase(), ui::EngineHost::Phase::Running, 20000);
        QTRY_VERIFY(!QFile::exists(secret));
    }

    // Fault: a start that fails (the data directory held by `onionvoice-cli serve`, or one that
    // cannot be created) only wrote to stderr, and a start from the desktop has none: the app
    // silently did nothing. main() hands the claim's reason to reportStartFailure.
    void aStartFailureIsShownInAMessageBox() {
        QTemporaryDir dir;
        QFile plainFile(dir.filePath(QStringLiteral("file")));
        QVERIFY(plainFile.open(QIODevice::WriteOnly));
        app::InstanceGuard instance(dir.filePath(QStringLiteral("file/data"))); // cannot exist
        QCOMPARE(instance.claim({}), app::InstanceGuard::Role::Failed);
        const QString reason = instance.errorString();
        QVERIFY(reason.contains(QStringLiteral("file/data")));

        QString shown;
        QMessageBox::Icon icon = QMessageBox::NoIcon;
        QTimer poll;
        poll.setInterval(10);
        connect(&poll, &QTimer::timeout, this, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box || box->objectName() != QStringLiteral("startFailureBox"))
                return;
            poll.stop();
            shown = box->text();
            icon = box->icon();
            box->close();
        });
        poll.start();
        std::FILE* err = std::tmpfile();
        QVERIFY(err);
        const auto closeErr = qScopeGuard([err] { std::fclose(err); });
        gui::reportStartFailure(reason, true, err);
        QVERIFY2(shown.contains(reason), qPrintable(shown));
        QCOMPARE(icon, QMessageBox::Critical);
        // stderr keeps it too, for a start from a terminal.
        std::rewind(err);
        char line[1024] = {};
        QVERIFY(std::fgets(line, sizeof line, err));
        QCOMPARE(QString::fromLocal8Bit(line).trimmed(), QStringLiteral("onionvoice: ") + reason);
        // main() shows no box where nobody could close it.
        QVERIFY(!gui::windowsAreSeen());
    }

    // Fault: Settings and the sound test ran application-modal (exec()), and the incoming-call
    // prompt and the call window were children of the main window. Qt blocks input to every
    // window outside the modal dialog: the prompt showed and the ringtone rang, but Accept did
    // nothing until Settings was closed (testing the microphone while waiting for a call).
    void aCallIsAnsweredAndHungUpWhileADialogIsOpen_data() {
        QTest::addColumn<QString>("dialog");
        QTest::newRow("settings") << QStringLiteral("settingsDialog");
        QTest::newRow("sound test") << QStringLiteral("soundTestDialog");
    }
    void aCallIsAnsweredAndHungUpWhileADialogIsOpen() {
        QFETCH(QString, dialog);
        QTemporaryDir data;
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        app.window()->show(); // no engine: the test plays its reports
        QVERIFY(QTest::qWaitForWindowExposed(app.window()));
        answerAndHangUpWhileOpen(app, dialog);
    }

    // Attack: the installed app read $ONIONVOICE_TESTNET without --testnet, and the test network's
    // README had developers export it naming a directory in /tmp, which another local user could
    // create first. Whoever controlled it put a foreign directory authority and a SOCKS port open
    // to the network into the real app's torrc. Only --testnet (GuiOptions::testnetTorrcLines,
    // read by main()) brings a test network now.
    void theEnvironmentBringsNoTestNetwork() {
        QTemporaryDir data, network;
        writeClientTorrc(network.path(),
                         "TestingTorNetwork 1\nDirAuthority evil orport=1 v3ident=X 192.0.2.1:2 Y\n"
                         "SocksPort 0.0.0.0:9999\n",
                         kOwnerReadWrite);
        qputenv("ONIONVOICE_TESTNET", QFile::encodeName(network.path()));
        const auto unset = qScopeGuard([] { qunsetenv("ONIONVOICE_TESTNET"); });
        gui::GuiApp app(gui::GuiOptions{data.path(), {}, {}, {}, {}, {}});
        const QStringList lines = app.engineConfig().extraTorrcLines;
        for (const QString& line : lines)
            QVERIFY2(!line.startsWith(QStringLiteral("TestingTorNetwork")) &&
                         !line.startsWith(QStringLiteral("DirAuthority")) &&
                         !line.startsWith(QStringLiteral("SocksPort")),
                     qPrintable(line));
        // What --testnet brings does reach tor (the demo).
        gui::GuiApp demo(
            gui::GuiOptions{data.path(), {QStringLiteral("TestingTorNetwork 1")}, {}, {}, {}, {}});
        QVERIFY(
            demo.engineConfig().extraTorrcLines.contains(QStringLiteral("TestingTorNetwork 1")));
    }

    // Attack: a client.torrc another user may write (a group- or world-writable file, or the
    // network directory made by someone else in /tmp) went into tor's configuration as it was.
    void aClientTorrcOthersCouldChangeIsRefused_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("reason");
        QTest::newRow("group-writable")
            << int(kOwnerReadWrite | QFileDevice::WriteGroup)
            << QStringLiteral("can be changed by other users (mode 0620)");
        QTest::newRow("world-writable")
            << int(kOwnerReadWrite | QFileDevice::WriteOther)
            << QStringLiteral("can be changed by other users (mode 0602)");
    }
    void aClientTorrcOthersCouldChangeIsRefused() {
        QFETCH(int, mode);
        QFETCH(QString, reason);
        QTemporaryDir network;
        writeClientTorrc(network.path(), "TestingTorNetwork 1\n", kOwnerReadWrite);
        QString why;
        QCOMPARE(app::readTestNetworkTorrc(network.path(), &why),
                 std::optional(QStringList{QStringLiteral("TestingTorNetwork 1")}));
        QVERIFY(QFile::setPermissions(network.filePath(QStringLiteral("client.torrc")),
                                      QFileDevice::Permissions(mode)));
        QVERIFY(!app::readTestNetworkTorrc(network.path(), &why));
        QVERIFY2(why.contains(reason), qPrintable(why));
    }
    void aClientTorrcOfAnotherUserIsRefused() {
        if (::geteuid() != 0)
            QSKIP("needs root to give the file to another user");
        QTemporaryDir network;
        writeClientTorrc(network.path(), "TestingTorNetwork 1\n", kOwnerReadWrite);
        const QByteArray path = QFile::encodeName(network.filePath(QStringLiteral("client.torrc")));
        QCOMPARE(::chown(path.constData(), 65534, 65534), 0); // nobody
        QString why;
        QVERIFY(!app::readTestNetworkTorrc(network.path(), &why));
        QVERIFY2(why.contains(QStringLiteral("belongs to another user")), qPrintable(why));
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(GuiAppTest)
#include "tst_guiapp.moc"
