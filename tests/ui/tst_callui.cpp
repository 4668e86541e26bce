// The call and contact windows against the order in which the engine really reports, offscreen
// and without a network (the engine's tor is /bin/false, which fails to start; the host's signals
// are emitted as its engine would): a contact list replaced while the rename dialog is open, a tor
// restart during a call or while one rings, an incoming call's Ringing before its prompt, a
// second call in a call window that still holds the first, a call whose audio cannot start, a
// dial refused for want of audio, an incoming call's warning that no microphone is there, the call
// window closed during a call, the windows' icon, a call answered while Rename is open, the reason
// a contacts-only ID without access keys is not online, a failed tor that does not look under way,
// why Call waits, and what a contact's row says of the calls with them.
#include "../contacts/ContactTestData.h"
#include "OffscreenTestMain.h"
#include "WidgetLookup.h"
#include "ui/AddressText.h"
#include "ui/CallWindow.h"
#include "ui/ContactListPanel.h"
#include "ui/DelayChart.h"
#include "ui/EngineHost.h"
#include "ui/IncomingCallDialog.h"
#include "ui/MainWindow.h"
#include "ui/TorStatusPanel.h"

#include <QApplication>
#include <QInputDialog>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QWindow>

using namespace onionvoice;

namespace {

contacts::Contact contact(std::uint8_t n, const QString& name) {
    contacts::Contact c;
    c.address = testAddress(n);
    c.displayName = name;
    c.added = QDateTime(QDate(2026, 11, 20), QTime(12, 0), Qt::UTC);
    return c;
}

// Selects `address` in the panel's list and clicks Rename; while the dialog is open, runs
// `meanwhile` (what a phaseChanged or contactsChanged does) and then answers `name`.
void renameWhile(ui::ContactListPanel& panel, const QString& address,
                 const std::function<void()>& meanwhile, const QString& name) {
    auto* list = find<QTreeWidget>(&panel, "contactList");
    for (int i = 0; i < list->topLevelItemCount(); ++i)
        if (list->topLevelItem(i)->data(0, Qt::UserRole).toString() == address)
            list->setCurrentItem(list->topLevelItem(i));
    QCOMPARE(panel.selectedAddress(), address);
    // Polled: the dialog exists only once the click has opened it, inside its own event loop.
    QTimer poll;
    poll.setInterval(10);
    QObject::connect(&poll, &QTimer::timeout, &panel, [&] {
        auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        poll.stop();
        meanwhile();
        dialog->setTextValue(name);
        dialog->accept();
    });
    poll.start();
    QTest::mouseClick(find<QPushButton>(&panel, "renameButton"), Qt::LeftButton);
    QVERIFY(!poll.isActive());
}

// Clicks `button` as a user does, through its window: Qt drops input to a window that a modal
// dialog blocks there. (QTest::mouseClick on the widget itself is delivered past that check.)
void clickAsTheUser(QPushButton* button) {
    QWidget* top = button->window();
    QVERIFY(top->windowHandle());
    QTest::mouseClick(top->windowHandle(), Qt::LeftButton, {},
                      button->mapTo(top, button->rect().center()));
}

// A snapshot of a call with one open link, `frames` received by `at`.
call::CallStatistics snapshot(std::chrono::milliseconds at, std::uint64_t frames) {
    call::CallStatistics s;
    s.duration = at;
    s.framesReceived = frames;
    s.intervalDelayMaxMs = 120;
    call::LinkStatistics link;
    link.state = call::SlotState::Up;
    s.links = {link};
    return s;
}

} // namespace

class CallUiTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir data_;
    std::unique_ptr<ui::EngineHost> host_;
    const contacts::Contact alice_ = contact(1, QStringLiteral("Alice"));
    const contacts::Contact bob_ = contact(2, QStringLiteral("Bob"));
    const contacts::Contact carol_ = contact(3, QStringLiteral("Carol"));

    call::EngineConfig config() const {
        call::EngineConfig config;
        config.dataDirectory = data_.path();
        config.torExecutable = QStringLiteral("/bin/false");
        return config;
    }

    static QString stateText(ui::CallWindow* window) {
        return find<QLabel>(window, "callState")->text();
    }

    void emitState(call::CallState state, const QString& peer,
                   call::EndReason reason = call::EndReason::None) {
        emit host_->callStateChanged(state, peer, reason);
    }

private slots:
    void initTestCase() {
        host_ = std::make_unique<ui::EngineHost>();
        host_->start(config());
        QTRY_COMPARE(host_->phase(), ui::EngineHost::Phase::Running);
    }

    void cleanupTestCase() { host_.reset(); }

    // Fault: the list is sent again (every phaseChanged and contactsChanged does) while the rename
    // dialog is open. rename() looped over the old list around the dialog and read it after it
    // was freed (heap-use-after-free under ASan); the request must name the selected contact.
    void renameWhileTheListIsReplaced() {
        ui::ContactListPanel panel;
        panel.setContacts({alice_, bob_, carol_});
        QSignalSpy renames(&panel, &ui::ContactListPanel::renameRequested);
        contacts::Contact bobElsewhere = bob_;
        bobElsewhere.displayName = QStringLiteral("Robert");
        renameWhile(
            panel, bob_.address,
            [&] {
                panel.setContacts({carol_, bobElsewhere, alice_});
            },
            QStringLiteral("  Bobby "));
        QCOMPARE(renames.size(), 1);
        QCOMPARE(renames.first().at(0).toString(), bob_.address);
        QCOMPARE(renames.first().at(1).toString(), QStringLiteral("Bobby"));
    }

    // Fault: the contact is removed (by the engine, another window's request) while the dialog is
    // open: no rename may be asked for an address the book no longer holds.
    void renameOfAContactRemovedMeanwhile() {
        ui::ContactListPanel panel;
        panel.setContacts({alice_, bob_, carol_});
        QSignalSpy renames(&panel, &ui::ContactListPanel::renameRequested);
        renameWhile(
            panel, bob_.address,
            [&] {
                panel.setContacts({alice_, carol_});
            },
            QStringLiteral("Bobby"));
        QCOMPARE(renames.size(), 0);
    }

    // Fault: tor restarts (Retry, a settings change) during a call and while one rings. The old
    // engine's end never reached the GUI: the call window stayed "In call", the prompt stayed
    // up, the ringtone kept ringing and the tor panel still said the ID was online.
    void restartEndsTheCallUi() {
        ui::MainWindow window(host_.get());
        bool ringing = false;
        window.setRinger([&](bool on) { ringing = on; });
        emit host_->serviceStateChanged(tor::OnionService::State::Reachable);
        auto* service = find<QLabel>(window.torStatus(), "serviceState");
        const QString online = service->text();

        emitState(call::CallState::Dialing, alice_.address);
        emitState(call::CallState::Active, alice_.address);
        QVERIFY(window.callWindow() && window.callWindow()->isVisible());
        QCOMPARE(stateText(window.callWindow()), QStringLiteral("In call"));
        host_->start(config()); // the restart path of GuiApp: Retry, a settings change
        QCOMPARE(host_->phase(), ui::EngineHost::Phase::Starting);
        QVERIFY(stateText(window.callWindow()) != QStringLiteral("In call"));
        QVERIFY(!find<QPushButton>(window.callWindow(), "hangUpButton")->isEnabled());
        QVERIFY(service->text() != online);
        QTRY_COMPARE(host_->phase(), ui::EngineHost::Phase::Running);

        emitState(call::CallState::Ringing, bob_.address);
        emit host_->incomingCall(bob_.address, bob_.displayName);
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        QVERIFY(ringing);
        host_->start(config());
        QVERIFY(!window.incomingCallDialog()->isVisible());
        QVERIFY(!ringing);
        QTRY_COMPARE(host_->phase(), ui::EngineHost::Phase::Running);
    }

    // Fault: the engine announces an incoming call's Ringing before incomingCall, so the prompt
    // was not up yet and the call window opened beside it. Only our own call shows while it rings.
    void incomingRingingShowsOnlyThePrompt() {
        ui::MainWindow window(host_.get());
        emitState(call::CallState::Ringing, bob_.address);
        emit host_->incomingCall(bob_.address, bob_.displayName);
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        QVERIFY(!window.callWindow() || !window.callWindow()->isVisible());
        emitState(call::CallState::Ended, bob_.address, call::EndReason::Cancelled);
        QVERIFY(!window.incomingCallDialog()->isVisible());
        // The window says who called (before: "Call ended: the caller hung up…", for 10 s).
        const QString missed = window.statusBar()->currentMessage();
        QVERIFY2(missed.startsWith(QStringLiteral("Missed call from ")) &&
                     missed.contains(ui::shortAddress(bob_.address)),
                 qPrintable(missed));

        emitState(call::CallState::Dialing, alice_.address);
        emitState(call::CallState::Ringing, alice_.address);
        QVERIFY(window.callWindow() && window.callWindow()->isVisible());
        QCOMPARE(stateText(window.callWindow()), QStringLiteral("Ringing…"));
        QVERIFY(!window.incomingCallDialog()->isVisible());
        emitState(call::CallState::Ended, alice_.address, call::EndReason::NoAnswer);
    }

    // Fault: only Dialing cleared the call window, and an incoming call goes Ringing → Active: the
    // answered call started muted (the engine keeps the microphone state) with the previous
    // call's chart and frame history (so "nothing has arrived" never showed).
    void answeredCallStartsAfresh() {
        ui::MainWindow window(host_.get());
        emitState(call::CallState::Dialing, alice_.address);
        emitState(call::CallState::Active, alice_.address);
        ui::CallWindow* callWindow = window.callWindow();
        QVERIFY(callWindow);
        emit host_->statisticsChanged(snapshot(std::chrono::seconds(60), 3000));
        auto* chart = find<ui::DelayChart>(callWindow, "delayChart");
        QCOMPARE(chart->pointCount(), 1);
        QSignalSpy mutes(callWindow, &ui::CallWindow::muteToggled);
        QTest::mouseClick(find<QPushButton>(callWindow, "muteButton"), Qt::LeftButton);
        QVERIFY(callWindow->isMuted());
        emitState(call::CallState::Ended, alice_.address, call::EndReason::HungUpByPeer);

        emitState(call::CallState::Ringing, bob_.address);
        emit host_->incomingCall(bob_.address, bob_.displayName);
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        QTest::mouseClick(find<QPushButton>(window.incomingCallDialog(), "acceptCallButton"),
                          Qt::LeftButton);
        emitState(call::CallState::Active, bob_.address);
        QCOMPARE(window.callWindow(), callWindow);
        QVERIFY(callWindow->isVisible());
        // The answered call's window has the keyboard (Mute, Hang up): before, no window had it.
        QTRY_COMPARE(QApplication::activeWindow(), callWindow);
        QCOMPARE(stateText(callWindow), QStringLiteral("In call"));
        QVERIFY(!callWindow->isMuted());
        // The engine was told, too: its microphone state outlives a call.
        QCOMPARE(mutes.size(), 2);
        QCOMPARE(mutes.last().first().toBool(), false);
        QCOMPARE(chart->pointCount(), 0);
        // Nothing arrives in the new call: the diagnosis must compare with this call's frames,
        // not with the previous call's last count.
        emit host_->statisticsChanged(snapshot(std::chrono::seconds(1), 0));
        emit host_->statisticsChanged(snapshot(std::chrono::seconds(4), 0));
        QVERIFY(find<QLabel>(callWindow, "diagnosisLabel")
                    ->text()
                    .startsWith(QStringLiteral("Other side: nothing has arrived")));
        emitState(call::CallState::Ended, bob_.address, call::EndReason::HungUpLocally);
    }

    // Fault: the Rename dialog (like Remove, Share with an access key, About) was
    // application-modal and the prompt a child of the main window: while the user renamed a
    // contact, a call rang and Accept did nothing. The prompt takes the click over the dialog.
    void aCallIsAnsweredWhileRenameIsOpen() {
        ui::MainWindow window(host_.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* panel = window.findChild<ui::ContactListPanel*>();
        QVERIFY(panel);
        panel->setContacts({alice_, bob_});
        int answered = -1;
        renameWhile(
            *panel, bob_.address,
            [&] {
                emitState(call::CallState::Ringing, carol_.address);
                emit host_->incomingCall(carol_.address, carol_.displayName);
                ui::IncomingCallDialog* prompt = window.incomingCallDialog();
                QTRY_VERIFY(prompt && prompt->isVisible());
                QSignalSpy answers(prompt, &ui::IncomingCallDialog::acceptRequested);
                clickAsTheUser(find<QPushButton>(prompt, "acceptCallButton"));
                answered = int(answers.size());
            },
            QStringLiteral("Bobby"));
        QCOMPARE(answered, 1);
        emitState(call::CallState::Ended, carol_.address, call::EndReason::HungUpLocally);
    }

    // Fault: contacts-only while no contact holds an access key. The engine withholds the
    // service (it would be open to everyone) and said so once, in a status-bar message gone after
    // 15 s; the Tor panel said "Your ID is not online yet." for ever, as if waiting would help.
    // The service reports Withheld and the panel says why, also after tor stops.
    void contactsOnlyWithoutKeysSaysWhyNobodyReachesYou() {
        QTemporaryDir data;
        ui::EngineHost host;
        ui::MainWindow window(&host);
        QSignalSpy torStates(&host, &ui::EngineHost::torStateChanged);
        call::EngineConfig withheld = config();
        withheld.dataDirectory = data.path();
        withheld.access = call::ServiceAccess::ContactsOnly;
        host.start(withheld);
        QTRY_COMPARE(host.phase(), ui::EngineHost::Phase::Running);
        auto* service = find<QLabel>(window.torStatus(), "serviceState");
        QTRY_VERIFY2(service->text().startsWith(QStringLiteral("Nobody can reach you yet")),
                     qPrintable(service->text()));
        QTRY_VERIFY(std::any_of(torStates.begin(), torStates.end(), [](const auto& args) {
            return args.at(0).template value<tor::TorLauncher::State>() ==
                   tor::TorLauncher::State::Failed;
        }));
        QVERIFY2(service->text().startsWith(QStringLiteral("Nobody can reach you yet")),
                 qPrintable(service->text()));
    }

    // Fault: Accept was the prompt's default button and the prompt takes the focus when it shows:
    // an Enter typed for another window answered the call, and the caller heard the room.
    void aStrayEnterDoesNotAnswer() {
        ui::IncomingCallDialog prompt;
        prompt.setCaller(QString(), alice_.address, false);
        QSignalSpy answers(&prompt, &ui::IncomingCallDialog::acceptRequested);
        QSignalSpy rejections(&prompt, &ui::IncomingCallDialog::rejectRequested);
        prompt.show();
        QVERIFY(QTest::qWaitForWindowExposed(&prompt));
        for (QWidget* focus :
             {static_cast<QWidget*>(&prompt),
              static_cast<QWidget*>(find<QPushButton>(&prompt, "acceptCallButton"))}) {
            focus->setFocus();
            QTest::keyClick(focus, Qt::Key_Return);
            QTest::keyClick(focus, Qt::Key_Enter);
        }
        QVERIFY(prompt.isVisible());
        QCOMPARE(answers.count(), 0);
        QCOMPARE(rejections.count(), 0);
        // The keyboard still answers on purpose.
        QTest::keyClick(find<QPushButton>(&prompt, "acceptCallButton"), Qt::Key_Space);
        QCOMPARE(answers.count(), 1);
    }

    // Fault: a tor that fails inside the engine's start (not found, no version, too old) failed
    // before the host listened to it: the window said "Tor stopped working." with no reason, so
    // nothing told the user what to fix.
    void aTorThatFailsAtOnceSaysWhy() {
        QTemporaryDir data;
        ui::EngineHost host;
        ui::MainWindow window(&host);
        call::EngineConfig failing = config(); // tor is /bin/false: it reports no version
        failing.dataDirectory = data.path();
        host.start(failing);
        auto* hint = find<QLabel>(window.torStatus(), "torHint");
        QTRY_VERIFY2(hint->text().contains(QStringLiteral("did not report a tor version")),
                     qPrintable(hint->text()));
    }

    // A tor that died or hung is started again by the launcher: the panel said "Starting tor…" as
    // at launch, and a user whose call had just broken learnt nothing of why. The reason stays
    // until tor is connected again, with no Retry (the app is already retrying).
    void aRestartedTorSaysWhyUntilItIsBack() {
        ui::TorStatusPanel panel;
        panel.show();
        panel.setTorState(tor::TorLauncher::State::Ready, 100, {});
        auto* hint = find<QLabel>(&panel, "torHint");
        QVERIFY(!hint->isVisible());
        panel.setRestarting(QStringLiteral("tor was killed or crashed"));
        panel.setTorState(tor::TorLauncher::State::Starting, 0, {});
        QVERIFY(hint->isVisible());
        QVERIFY2(hint->text().contains(QStringLiteral("tor was killed or crashed")),
                 qPrintable(hint->text()));
        QVERIFY(!find<QPushButton>(&panel, "torRetryButton")->isVisible());
        panel.setTorState(tor::TorLauncher::State::Bootstrapping, 50, {});
        QVERIFY(hint->isVisible());
        panel.setTorState(tor::TorLauncher::State::Ready, 100, {});
        QVERIFY(!hint->isVisible());
        // A failure that follows the restarts is what the user must act on: it wins.
        panel.setRestarting(QStringLiteral("tor was killed or crashed"));
        panel.setTorState(tor::TorLauncher::State::Failed, 0, {});
        panel.setFailure(QStringLiteral("tor failed 6 times in a row"));
        QVERIFY(hint->text().contains(QStringLiteral("6 times")));
        QVERIFY(find<QPushButton>(&panel, "torRetryButton")->isVisible());
    }

    // Fault: after tor failed, the progress bar stayed at its last value and the panel said "Your
    // ID is not online yet.", as if it were on its way.
    void aFailedTorDoesNotLookUnderWay() {
        ui::TorStatusPanel panel;
        panel.setTorState(tor::TorLauncher::State::Bootstrapping, 50, {});
        panel.setTorState(tor::TorLauncher::State::Failed, 50, {});
        QVERIFY(!find<QProgressBar>(&panel, "torProgress")->isVisibleTo(&panel));
        const QString service = find<QLabel>(&panel, "serviceState")->text();
        QVERIFY2(!service.contains(QStringLiteral("yet")), qPrintable(service));
        panel.setTorState(tor::TorLauncher::State::Starting, 0, {}); // Retry
        QVERIFY(find<QProgressBar>(&panel, "torProgress")->isVisibleTo(&panel));
        QCOMPARE(find<QLabel>(&panel, "serviceState")->text(),
                 QStringLiteral("Your ID is not online yet."));
    }

    // A contact's row says what happened with them in this session: who is calling, a missed
    // call in bold until the user calls back, then the last call and its length; a blocked
    // contact's row says blocked.
    void contactRowsSayWhatHappened() {
        host_->addContact(bob_);
        ui::MainWindow window(host_.get());
        auto* list = find<QTreeWidget>(&window, "contactList");
        QTRY_COMPARE(list->topLevelItemCount(), 1);
        const auto status = [list] {
            return list->topLevelItem(0)->text(2);
        };
        const auto bold = [list] {
            return list->topLevelItem(0)->font(0).bold();
        };
        QCOMPARE(status(), QString());

        emitState(call::CallState::Ringing, bob_.address);
        emit host_->incomingCall(bob_.address, bob_.displayName);
        QCOMPARE(status(), QStringLiteral("calling you…"));
        emitState(call::CallState::Ended, bob_.address, call::EndReason::Cancelled);
        QVERIFY2(status().startsWith(QStringLiteral("missed call ")), qPrintable(status()));
        QVERIFY(bold());
        // The list sent again (a rename, a block elsewhere) keeps the note.
        emit host_->contactsChanged();
        QVERIFY2(status().startsWith(QStringLiteral("missed call ")), qPrintable(status()));
        QVERIFY(bold());

        emitState(call::CallState::Dialing, bob_.address);
        QCOMPARE(status(), QStringLiteral("calling…"));
        QVERIFY(!bold());
        emitState(call::CallState::Ringing, bob_.address);
        QCOMPARE(status(), QStringLiteral("ringing…"));
        emitState(call::CallState::Active, bob_.address);
        QCOMPARE(status(), QStringLiteral("in call"));
        emitState(call::CallState::Ended, bob_.address, call::EndReason::HungUpByPeer);
        QVERIFY2(QRegularExpression(QStringLiteral("^last call .+, \\d+:\\d\\d$"))
                     .match(status())
                     .hasMatch(),
                 qPrintable(status()));

        emitState(call::CallState::Dialing, bob_.address);
        emitState(call::CallState::Ended, bob_.address, call::EndReason::Unreachable);
        QVERIFY2(status().startsWith(QStringLiteral("not reached ")), qPrintable(status()));

        // Bob called while we were in another call and heard "busy": a missed call too.
        emit host_->callRefused(bob_.address, call::EndReason::Busy);
        QVERIFY2(status().startsWith(QStringLiteral("missed call ")), qPrintable(status()));
        QVERIFY(bold());

        host_->setBlocked(bob_.address, true);
        QTRY_COMPARE(status(), QStringLiteral("blocked"));
        QVERIFY(!bold());
        host_->removeContact(bob_.address);
        QTRY_COMPARE(list->topLevelItemCount(), 0);
    }

    // Fault: nothing set a window icon and the icon was no resource of the app: the windows, the
    // taskbar entry and the tray icon (made from the main window's icon) were blank.
    void windowsHaveTheAppIcon() {
        ui::MainWindow window(host_.get());
        QVERIFY(!window.windowIcon().isNull());
        QVERIFY(!window.windowIcon().pixmap(32, 32).isNull());
        emitState(call::CallState::Dialing, alice_.address);
        QVERIFY(window.callWindow());
        QVERIFY(!window.callWindow()->windowIcon().pixmap(32, 32).isNull());
        emitState(call::CallState::Ended, alice_.address, call::EndReason::Unreachable);
    }

    // Fault: the audio device cannot start (a machine without a microphone). The engine reports
    // the error and then ends the call; the end said "you hung up" and overwrote the error in the
    // status bar, so nothing told the user what to fix. Now the end says audio could not start
    // and both the status bar and the call window show the error.
    void audioThatCannotStartIsShownWithTheEnd() {
        ui::MainWindow window(host_.get());
        emitState(call::CallState::Dialing, alice_.address);
        emitState(call::CallState::Ringing, alice_.address);
        const QString error = QStringLiteral("Audio could not start: no input device");
        emit host_->errorOccurred(error);
        emitState(call::CallState::Ended, alice_.address, call::EndReason::AudioFailed);
        QTRY_VERIFY(window.statusBar()->currentMessage().contains(error));
        ui::CallWindow* callWindow = window.callWindow();
        QCOMPARE(stateText(callWindow), QStringLiteral("Call ended: audio could not start"));
        auto* detail = find<QLabel>(callWindow, "callEndDetail");
        QVERIFY(detail->isVisible());
        QCOMPARE(detail->text(), error);

        // The next call starts without it, and an ordinary end brings none.
        emitState(call::CallState::Dialing, bob_.address);
        QVERIFY(!detail->isVisible());
        emitState(call::CallState::Ended, bob_.address, call::EndReason::NoAnswer);
        QVERIFY(!detail->isVisible());
        QVERIFY(!window.statusBar()->currentMessage().contains(error));
    }

    // Fault: after a call had ended, a stranger rang and the ring ended unanswered: its end was
    // written into the ended call's window ("the caller hung up before the call was answered"),
    // and the audio error that was the only hint of what to fix was wiped.
    void anotherRingsEndLeavesTheLastCallsWindowAlone() {
        ui::MainWindow window(host_.get());
        emitState(call::CallState::Dialing, alice_.address);
        emitState(call::CallState::Active, alice_.address);
        const QString error = QStringLiteral("The microphone stopped working.");
        emit host_->errorOccurred(error);
        emitState(call::CallState::Ended, alice_.address, call::EndReason::AudioFailed);
        ui::CallWindow* callWindow = window.callWindow();
        QVERIFY(callWindow);
        const QString ended = stateText(callWindow);
        const QString title = callWindow->windowTitle();
        auto* detail = find<QLabel>(callWindow, "callEndDetail");
        QCOMPARE(detail->text(), error);

        emitState(call::CallState::Ringing, bob_.address);
        emit host_->incomingCall(bob_.address, bob_.displayName);
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        emitState(call::CallState::Ended, bob_.address, call::EndReason::Cancelled);
        QCOMPARE(stateText(callWindow), ended);
        QVERIFY(detail->isVisible());
        QCOMPARE(detail->text(), error);
        QCOMPARE(callWindow->windowTitle(), title);
        callWindow->close();
    }

    // Fault: a machine without a microphone rang the peer, and the call ended the moment they
    // answered. The engine refuses the dial before anything rings (this one has no tor either:
    // the microphone is what it names), and the window says so at once.
    void aCallWithoutAMicrophoneSaysWhyBeforeItRings() {
        QTemporaryDir data;
        call::EngineConfig config = this->config();
        config.dataDirectory = data.path();
        config.audioDevicesPresent = [](QString* error) {
            *error = QStringLiteral("no microphone found");
            return false;
        };
        ui::EngineHost host;
        host.start(config);
        QTRY_COMPARE(host.phase(), ui::EngineHost::Phase::Running);
        ui::MainWindow window(&host);
        host.dial(alice_.address);
        QTRY_COMPARE(window.statusBar()->currentMessage(),
                     QStringLiteral("Cannot call: no microphone found"));
        QVERIFY(!window.callWindow());
    }

    // Fault: a call rang while no microphone was there; the prompt said nothing, and the answer
    // ended the call at once ("Audio could not start"), the caller hearing a hang-up. The prompt
    // now says so while it rings, and the next call's prompt, with the devices back, does not.
    void anIncomingCallWithoutAMicrophoneSaysSoWhileItRings() {
        ui::MainWindow window(host_.get());
        emitState(call::CallState::Ringing, bob_.address);
        emit host_->incomingCall(bob_.address, bob_.displayName,
                                 QStringLiteral("no microphone found"));
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        auto* warning = find<QLabel>(window.incomingCallDialog(), "incomingAudioProblem");
        QVERIFY(warning->isVisible());
        QVERIFY2(warning->text().contains(QStringLiteral("no microphone found")),
                 qPrintable(warning->text()));
        QVERIFY(find<QPushButton>(window.incomingCallDialog(), "acceptCallButton")->isEnabled());
        emitState(call::CallState::Ended, bob_.address, call::EndReason::Cancelled);

        emitState(call::CallState::Ringing, carol_.address);
        emit host_->incomingCall(carol_.address, carol_.displayName);
        QTRY_VERIFY(window.incomingCallDialog()->isVisible());
        QVERIFY(!warning->isVisible());
        emitState(call::CallState::Ended, carol_.address, call::EndReason::Cancelled);
    }

    // Fault: closing the call window (✕) during a call only hid it, and it shows again only on a
    // state change: for the rest of the call Hang up and Mute were out of reach. Closing it hangs
    // up; the window of an ended call just closes.
    void closingTheCallWindowHangsUp() {
        ui::MainWindow window(host_.get());
        emitState(call::CallState::Dialing, alice_.address);
        emitState(call::CallState::Active, alice_.address);
        ui::CallWindow* callWindow = window.callWindow();
        QVERIFY(callWindow && callWindow->isVisible());
        QSignalSpy hangUps(callWindow, &ui::CallWindow::hangUpRequested);
        QVERIFY(callWindow->close());
        QTRY_COMPARE(hangUps.size(), 1);
        emitState(call::CallState::Ended, alice_.address, call::EndReason::HungUpLocally);
        QVERIFY(!callWindow->isVisible());

        emitState(call::CallState::Dialing, bob_.address);
        QVERIFY(callWindow->isVisible());
        emitState(call::CallState::Ended, bob_.address, call::EndReason::NoAnswer);
        QVERIFY(callWindow->close());
        QVERIFY(!callWindow->isVisible());
        QCOMPARE(hangUps.size(), 1);
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(CallUiTest)
#include "tst_callui.moc"
