// GUI tests on the offscreen platform: the real main window and call window over a real engine
// (on its own thread) on the private Tor network, and a second engine as the other party. They
// add contacts (valid and invalid), call the other party and watch the dashboard, mute, hang up,
// accept and reject incoming calls from the prompt, and check the desktop notification (on a
// private D-Bus session bus) of a call that rings while the window is not focused. They also
// measure, and print, how long the GUI event loop ever stalls, and how much a 500 ms GUI stall
// moves the engine's packet sends.
#include "../testnet/TestnetEngine.h"
#include "NotificationServer.h"
#include "WidgetLookup.h"
#include "media/WavFileBackend.h"
#include "tor/OnionAddress.h"
#include "ui/CallWindow.h"
#include "ui/DelayChart.h"
#include "ui/DesktopNotifier.h"
#include "ui/EngineHost.h"
#include "ui/IncomingCallDialog.h"
#include "ui/LinkTableModel.h"
#include "ui/MainWindow.h"
#include "ui/QualityDashboard.h"
#include "ui/TorStatusPanel.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMetaEnum>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <atomic>
#include <csignal>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

using testnet::kCallTimeout;
using testnet::kStartTimeout;

// The longest time a thread's event loop went without running a 5 ms timer. Started on the thread
// it measures; read from any thread.
class StallMeter : public QObject {
public:
    void begin() {
        auto* timer = new QTimer(this);
        timer->setTimerType(Qt::PreciseTimer);
        connect(timer, &QTimer::timeout, this, [this] {
            const qint64 gap = clock_.restart();
            if (resetRequested_.exchange(false))
                longest_ = 0;
            else
                longest_ = std::max<qint64>(longest_, gap);
        });
        clock_.start();
        timer->start(kInterval);
    }
    void reset() { resetRequested_ = true; }
    qint64 longestStallMs() const { return std::max<qint64>(0, longest_ - kInterval); }

private:
    static constexpr int kInterval = 5;
    QElapsedTimer clock_;
    std::atomic<qint64> longest_{0};
    std::atomic<bool> resetRequested_{false};
};

// Times every event the GUI thread delivers, to name the slowest one of a phase (the work behind
// a stall): its type and its receiver's class. Nested deliveries count in their outermost event.
class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;

    bool notify(QObject* receiver, QEvent* event) override {
        if (QThread::currentThread() != thread() || depth_ > 0) {
            const bool nested = QThread::currentThread() == thread();
            depth_ += nested ? 1 : 0;
            const bool handled = QApplication::notify(receiver, event);
            depth_ -= nested ? 1 : 0;
            return handled;
        }
        ++depth_;
        QElapsedTimer clock;
        clock.start();
        const QEvent::Type type = event->type(); // the event may be gone afterwards
        const char* receiverClass = receiver->metaObject()->className();
        const bool handled = QApplication::notify(receiver, event);
        --depth_;
        const qint64 us = clock.nsecsElapsed() / 1000;
        if (us > slowestUs_) {
            slowestUs_ = us;
            slowest_ =
                QStringLiteral("%1 to %2")
                    .arg(QString::fromLatin1(QMetaEnum::fromType<QEvent::Type>().valueToKey(type)),
                         QString::fromLatin1(receiverClass));
        }
        return handled;
    }
    // The slowest event since the last call, and forgets it. Called by test functions, which no
    // event delivery encloses: the nesting count starts again from zero (once it was seen stuck).
    QString takeSlowest() {
        const QString text =
            QStringLiteral("%1 ms, %2").arg(slowestUs_ / 1000.0, 0, 'f', 1).arg(slowest_);
        slowestUs_ = 0;
        slowest_.clear();
        depth_ = 0;
        return text;
    }

private:
    int depth_ = 0;
    qint64 slowestUs_ = 0;
    QString slowest_;
};

TimedApplication* timedApp() {
    return static_cast<TimedApplication*>(QCoreApplication::instance());
}

// Whether the devices of the window's engine are gone: set by the test, read on the engine's
// thread when a call rings.
std::atomic<bool> hostDevicesGone{false};
const char* const kDevicesGone = "no microphone was found (test)";

// The process whose command line has `argument` (the engine's tor: its torrc path), or 0.
qint64 processWithArgument(const QString& argument) {
    const QByteArray wanted = QFile::encodeName(argument);
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(entry));
        if (numeric && cmdline.open(QIODevice::ReadOnly) &&
            cmdline.readAll().split('\0').contains(wanted))
            return pid;
    }
    return 0;
}

call::EngineConfig engineConfig(const QString& name) {
    call::EngineConfig config = testnet::engineConfig(name);
    config.ringTimeout = 20s;
    config.dialTimeout = 40s;
    // Silence paced in real time: the call's audio path runs as with a sound card.
    config.audio = [](QString* error) -> std::unique_ptr<media::AudioBackend> {
        return media::WavFileBackend::create({}, {}, media::Pacing::RealTime, error);
    };
    return config;
}

} // namespace

class GuiTest : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<ui::EngineHost> host_, peer_;
    call::EngineConfig hostConfig_;
    std::unique_ptr<ui::MainWindow> window_;
    std::unique_ptr<QSignalSpy> peerStates_;
    std::unique_ptr<StallMeter> stalls_;
    std::unique_ptr<NotificationServer> notifications_;
    // The same meter on an idle thread: what the machine's load alone does to a thread.
    QThread controlThread_;
    StallMeter* control_ = nullptr;
    QList<QPair<QString, qint64>> stallReport_;

    void resetStalls() {
        stalls_->reset();
        control_->reset();
        timedApp()->takeSlowest();
    }
    void recordStall(const QString& phase) {
        QTest::qWait(20); // both meters see the reset before they are read
        stallReport_.append({phase, stalls_->longestStallMs()});
        qInfo("GUI event loop: longest stall during %s: %lld ms (an idle thread: %lld ms; slowest "
              "GUI event: %s)",
              qPrintable(phase), stalls_->longestStallMs(), control_->longestStallMs(),
              qPrintable(timedApp()->takeSlowest()));
        resetStalls();
    }
    call::EndReason peerEnd() const {
        for (const auto& args : *peerStates_)
            if (args.at(0).value<call::CallState>() == call::CallState::Ended)
                return args.at(2).value<call::EndReason>();
        return call::EndReason::None;
    }
    bool peerReached(call::CallState state) const {
        return std::any_of(peerStates_->begin(), peerStates_->end(), [&](const auto& args) {
            return args.at(0).template value<call::CallState>() == state;
        });
    }
    void waitIdle() {
        QTRY_COMPARE_WITH_TIMEOUT(host_->callState(), call::CallState::Idle, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(peer_->callState(), call::CallState::Idle, 10000);
        peerStates_->clear();
    }
    QTreeWidget* contactList() { return find<QTreeWidget>(window_.get(), "contactList"); }
    void typeIntoAddField(const QString& text) {
        auto* field = find<QLineEdit>(window_.get(), "addContactField");
        field->clear();
        QTest::keyClicks(field, text);
        QTest::mouseClick(find<QPushButton>(window_.get(), "addContactButton"), Qt::LeftButton);
    }
    QString addError() {
        auto* label = find<QLabel>(window_.get(), "addContactError");
        return label->isVisible() ? label->text() : QString();
    }
    ui::CallWindow* callWindow() { return window_->callWindow(); }

private slots:
    void initTestCase() {
        if (testnet::networkDirectory().isEmpty())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        testnet::dieWithParent();
        // Before anything in this process uses the session bus.
        notifications_ = std::make_unique<NotificationServer>();
        QString busError;
        QVERIFY2(notifications_->start(&busError), qPrintable(busError));
        stalls_ = std::make_unique<StallMeter>();
        stalls_->begin();
        control_ = new StallMeter;
        control_->moveToThread(&controlThread_);
        connect(&controlThread_, &QThread::finished, control_, &QObject::deleteLater);
        controlThread_.start();
        QMetaObject::invokeMethod(control_, [this] { control_->begin(); });
        host_ = std::make_unique<ui::EngineHost>();
        window_ = std::make_unique<ui::MainWindow>(host_.get());
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        peer_ = std::make_unique<ui::EngineHost>();
        peerStates_ = std::make_unique<QSignalSpy>(peer_.get(), &ui::EngineHost::callStateChanged);
        QSignalSpy hostService(host_.get(), &ui::EngineHost::serviceStateChanged);
        QSignalSpy peerService(peer_.get(), &ui::EngineHost::serviceStateChanged);
        resetStalls();
        hostConfig_ = engineConfig("gui");
        hostConfig_.audioDevicesPresent = [](QString* error) {
            if (!hostDevicesGone)
                return true;
            *error = QString::fromLatin1(kDevicesGone);
            return false;
        };
        host_->start(hostConfig_);
        peer_->start(engineConfig("gui-peer"));
        const auto reachable = [](const QSignalSpy& spy) {
            return !spy.isEmpty() && spy.last().at(0).value<tor::OnionService::State>() ==
                                         tor::OnionService::State::Reachable;
        };
        QTRY_VERIFY_WITH_TIMEOUT(reachable(hostService), kStartTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(reachable(peerService), kStartTimeout);
        recordStall("tor start, bootstrap and publishing");
        QCOMPARE(find<QLabel>(window_.get(), "ownAddress")->text().remove(' '), host_->address());
    }

    void invalidAddressShowsItsReason() {
        // Not a v3 address: the reason is the address check's, and nothing is added.
        const QString bad = peer_->address().left(55) + "1";
        typeIntoAddField(bad);
        QCOMPARE(addError(), tor::checkOnionAddress(bad).reason);
        typeIntoAddField(QStringLiteral("hello"));
        QCOMPARE(addError(), tor::checkOnionAddress(QStringLiteral("hello")).reason);
        // The user's own ID is refused, also when pasted in the groups the ID card shows.
        typeIntoAddField(find<QLabel>(window_.get(), "ownAddress")->text());
        QVERIFY2(addError().contains(QStringLiteral("your own ID")), qPrintable(addError()));
        QTest::qWait(200);
        QCOMPARE(host_->contacts().size(), 0);
        QCOMPARE(contactList()->topLevelItemCount(), 0);
    }

    void addValidContact() {
        find<QLineEdit>(window_.get(), "addContactName")->setText(QStringLiteral("Echo"));
        typeIntoAddField(QStringLiteral("onionvoice:") + peer_->address());
        QCOMPARE(addError(), QString());
        QTRY_COMPARE(contactList()->topLevelItemCount(), 1);
        QCOMPARE(contactList()->topLevelItem(0)->text(0), QStringLiteral("Echo"));
        QCOMPARE(host_->contacts().first().address, peer_->address());
        // The same address again is refused with its reason.
        typeIntoAddField(peer_->address().toUpper());
        QVERIFY2(addError().contains(QStringLiteral("already in your contacts")),
                 qPrintable(addError()));
        QTest::qWait(200);
        QCOMPARE(host_->contacts().size(), 1);
        // Their link with a new access key: the key is taken, the contact stays as it was.
        const QByteArray key(32, '\x05');
        auto* field = find<QLineEdit>(window_.get(), "addContactField");
        field->setText(QStringLiteral("onionvoice:%1?auth=%2")
                           .arg(peer_->address(),
                                QString::fromLatin1(key.toBase64(QByteArray::Base64UrlEncoding |
                                                                 QByteArray::OmitTrailingEquals))));
        QVERIFY2(addError().contains(QStringLiteral("new access key")), qPrintable(addError()));
        QTest::mouseClick(find<QPushButton>(window_.get(), "addContactButton"), Qt::LeftButton);
        QTRY_COMPARE(host_->contacts().first().outboundAuthPrivateKey, key);
        QCOMPARE(host_->contacts().size(), 1);
        QCOMPARE(host_->contacts().first().displayName, QStringLiteral("Echo"));
        QCOMPARE(field->text(), QString());
    }

    void callContactWatchDashboardMuteHangUp() {
        QVERIFY(!host_->contacts().isEmpty());
        connect(peer_.get(), &ui::EngineHost::incomingCall, peer_.get(), &ui::EngineHost::answer,
                Qt::SingleShotConnection);
        QSignalSpy statistics(host_.get(), &ui::EngineHost::statisticsChanged);
        QSignalSpy peerStatistics(peer_.get(), &ui::EngineHost::statisticsChanged);
        resetStalls();
        contactList()->setCurrentItem(contactList()->topLevelItem(0));
        QTRY_VERIFY(find<QPushButton>(window_.get(), "callButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>(window_.get(), "callButton"), Qt::LeftButton);
        QTRY_VERIFY(callWindow() && callWindow()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(peerReached(call::CallState::Active), kCallTimeout);
        auto* state = find<QLabel>(callWindow(), "callState");
        QTRY_COMPARE_WITH_TIMEOUT(state->text(), ui::CallWindow::tr("In call"), 10000);
        QVERIFY(!find<QPushButton>(window_.get(), "callButton")->isEnabled()); // one at a time

        // The dashboard's link table: at least 8 links up, and at least 8 rows whose records
        // sent + received, as the table shows them, rise over a window of the call.
        const ui::LinkTableModel* model = callWindow()->dashboard()->linkModel();
        const auto linksUp = [model] {
            return int(std::count_if(
                model->links().begin(), model->links().end(),
                [](const call::LinkStatistics& l) { return l.state == call::SlotState::Up; }));
        };
        const auto shownRecords = [model] {
            QList<qulonglong> records;
            for (int row = 0; row < model->rowCount(); ++row)
                records.append(
                    model->data(model->index(row, ui::LinkTableModel::Sent), Qt::DisplayRole)
                        .toULongLong() +
                    model->data(model->index(row, ui::LinkTableModel::Received), Qt::DisplayRole)
                        .toULongLong());
            return records;
        };
        QTRY_VERIFY_WITH_TIMEOUT(linksUp() >= 8, 30000);
        QCOMPARE(model->rowCount(), 12);
        QCOMPARE(model->data(model->index(0, ui::LinkTableModel::Slot), Qt::DisplayRole).toInt(),
                 0);
        const QList<qulonglong> before = shownRecords();
        const auto rowsRising = [&] {
            const QList<qulonglong> now = shownRecords();
            int rising = 0;
            for (qsizetype row = 0; row < std::min(now.size(), before.size()); ++row)
                rising += now[row] > before[row] ? 1 : 0;
            return rising;
        };
        const auto rowsShown = [&] {
            QStringList rows;
            const QList<qulonglong> now = shownRecords();
            for (qsizetype row = 0; row < std::min(now.size(), before.size()); ++row)
                rows.append(QStringLiteral("%1: %2 -> %3").arg(row).arg(before[row]).arg(now[row]));
            return QStringLiteral("sent + received per row: ") + rows.join(QStringLiteral(", "));
        };
        QTRY_VERIFY2_WITH_TIMEOUT(rowsRising() >= 8, qPrintable(rowsShown()), 15000);
        // How many rise in all: every open link is meant to carry traffic (nothing asserted).
        static_cast<void>(QTest::qWaitFor([&] { return rowsRising() >= linksUp(); }, 10000));
        qInfo("dashboard rows with rising record counts: %d of %lld (%d up)", rowsRising(),
              qlonglong(model->rowCount()), linksUp());
        recordStall("dialling, ringing and the first seconds of the call");

        // A 1 s stall of the GUI thread must not stop the engine (the call has settled while the
        // rows rose): its snapshots keep coming, and its send lateness is printed.
        statistics.clear();
        QTest::qWait(2000);
        double baseline = 0;
        for (const auto& args : statistics)
            baseline =
                std::max(baseline, args.at(0).value<call::CallStatistics>().sendLatenessMaxMs);
        statistics.clear();
        QThread::msleep(1000); // the GUI thread is busy; the engine thread is not
        // One pass delivers what the engine thread queued meanwhile: at four snapshots a second,
        // three or four. An engine on this thread could make one at most (its overdue timer
        // fires once), so two prove it ran while this thread slept.
        QCoreApplication::processEvents();
        const qsizetype queuedDuringStall = statistics.size();
        QTest::qWait(1000);
        double duringStall = 0;
        for (const auto& args : statistics)
            duringStall =
                std::max(duringStall, args.at(0).value<call::CallStatistics>().sendLatenessMaxMs);
        qInfo("packet send lateness, largest per snapshot: %.0f ms in the 2 s before, %.0f ms "
              "around a 1 s GUI stall (%lld snapshots queued during it)",
              baseline, duringStall, qlonglong(queuedDuringStall));
        QVERIFY2(queuedDuringStall >= 2, qPrintable(QString::number(queuedDuringStall)));
        resetStalls();

        // The rest of the dashboard is filled.
        QVERIFY(find<QLabel>(callWindow(), "ratingLabel")->text().contains("MOS"));
        QVERIFY(find<QLabel>(callWindow(), "lossLabel")->text().contains("concealed"));
        QVERIFY(find<ui::DelayChart>(callWindow(), "delayChart")->pointCount() > 0);
        QVERIFY(!find<QLabel>(callWindow(), "diagnosisLabel")->text().isEmpty());

        // Mute: the call goes on (records keep flowing: mute sends silence, not nothing).
        auto* mute = find<QPushButton>(callWindow(), "muteButton");
        QTest::mouseClick(mute, Qt::LeftButton);
        QVERIFY(mute->isChecked());
        QVERIFY(callWindow()->isMuted());
        peerStatistics.clear();
        QTRY_VERIFY_WITH_TIMEOUT(peerStatistics.size() >= 2, 5000);
        const auto peerFrames = [&] {
            return peerStatistics.last().at(0).value<call::CallStatistics>().framesReceived;
        };
        const std::uint64_t peerBefore = peerFrames();
        QTRY_VERIFY_WITH_TIMEOUT(peerFrames() > peerBefore + 20, 5000);
        QTest::mouseClick(mute, Qt::LeftButton);
        QVERIFY(!mute->isChecked());

        QTest::mouseClick(find<QPushButton>(callWindow(), "hangUpButton"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(peerEnd(), call::EndReason::HungUpByPeer, 10000);
        QTRY_VERIFY(state->text().startsWith(ui::CallWindow::tr("Call ended: %1").arg(QString())));
        QVERIFY(!find<QPushButton>(callWindow(), "hangUpButton")->isEnabled());
        QTRY_VERIFY(find<QPushButton>(window_.get(), "callButton")->isEnabled());
        recordStall("the rest of the call and hanging up");
        waitIdle();
    }

    void incomingCallAcceptedFromThePrompt() {
        // The user is in another window: the call is announced on the desktop as well.
        QWidget elsewhere;
        elsewhere.show();
        elsewhere.activateWindow();
        QTRY_VERIFY(!window_->isActiveWindow());
        QSignalSpy delivered(window_->notifier(), &ui::DesktopNotifier::delivered);
        notifications_->shown.clear();
        resetStalls();
        peer_->dial(host_->address());
        QTRY_VERIFY_WITH_TIMEOUT(window_->incomingCallDialog() &&
                                     window_->incomingCallDialog()->isVisible(),
                                 kCallTimeout);
        QTRY_COMPARE(notifications_->shown.size(), 1);
        QCOMPARE(notifications_->shown.first().first, ui::MainWindow::tr("Incoming call"));
        QCOMPARE(notifications_->shown.first().second, QStringLiteral("Echo"));
        QTRY_COMPARE(delivered.size(), 1);
        QCOMPARE(delivered.first().at(2).value<ui::DesktopNotifier::Channel>(),
                 ui::DesktopNotifier::Channel::DBus);
        ui::IncomingCallDialog* prompt = window_->incomingCallDialog();
        // The caller is a contact: its name, and its address as the handshake verified it.
        QCOMPARE(find<QLabel>(prompt, "incomingCaller")->text(), QStringLiteral("Echo"));
        QVERIFY(
            find<QLabel>(prompt, "incomingAddress")->text().contains(peer_->address().left(10)));
        QTest::mouseClick(find<QPushButton>(prompt, "acceptCallButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(peerReached(call::CallState::Active), 20000);
        QVERIFY(!prompt->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(find<QLabel>(callWindow(), "callState")->text(),
                                  ui::CallWindow::tr("In call"), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(callWindow()->dashboard()->linkModel()->rowCount() > 0, 10000);
        QTest::mouseClick(find<QPushButton>(callWindow(), "hangUpButton"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(peerEnd(), call::EndReason::HungUpByPeer, 10000);
        recordStall("an incoming call, accepted");
        waitIdle();
    }

    void incomingCallRejectedFromThePrompt() {
        // The window has the focus: the prompt is enough, no desktop notification.
        window_->activateWindow();
        QTRY_VERIFY(window_->isActiveWindow());
        notifications_->shown.clear();
        resetStalls();
        peer_->dial(host_->address());
        QTRY_VERIFY_WITH_TIMEOUT(window_->incomingCallDialog() &&
                                     window_->incomingCallDialog()->isVisible(),
                                 kCallTimeout);
        // A marker sent now crosses the bus after any notification of this call (one connection
        // delivers in order): once it is shown, an "Incoming call" would have been shown first.
        const QString marker = QStringLiteral("marker after the prompt");
        window_->notifier()->notify(marker, QString());
        QTRY_VERIFY(!notifications_->shown.isEmpty());
        QCOMPARE(notifications_->shown.first().first, marker);
        QCOMPARE(notifications_->shown.size(), 1);
        QTest::mouseClick(find<QPushButton>(window_->incomingCallDialog(), "rejectCallButton"),
                          Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(peerEnd(), call::EndReason::RejectedByPeer, 20000);
        QVERIFY(!window_->incomingCallDialog()->isVisible());
        recordStall("an incoming call, rejected");
        waitIdle();
    }

    // The engine finds no microphone as a call rings: the prompt says so before the user answers
    // (the warning travels from the engine's thread through EngineHost to the window).
    void incomingCallWarnsThatTheDevicesAreGone() {
        hostDevicesGone = true;
        const auto restore = qScopeGuard([] { hostDevicesGone = false; });
        peer_->dial(host_->address());
        QTRY_VERIFY_WITH_TIMEOUT(window_->incomingCallDialog() &&
                                     window_->incomingCallDialog()->isVisible(),
                                 kCallTimeout);
        auto* warning = find<QLabel>(window_->incomingCallDialog(), "incomingAudioProblem");
        QVERIFY(warning->isVisible());
        QVERIFY2(warning->text().contains(QLatin1String(kDevicesGone)),
                 qPrintable(warning->text()));
        QTest::mouseClick(find<QPushButton>(window_->incomingCallDialog(), "rejectCallButton"),
                          Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(peerEnd(), call::EndReason::RejectedByPeer, 20000);
        waitIdle();
    }

    // Fault: tor restarted (Retry, a changed setting) while our call was ringing. What the old
    // engine had queued for the window just before the restart arrived after the window had ended
    // the call: the Ringing of our own dial, the dial forgotten by then, looked like the peer
    // calling us, and the old engine's Ended turned it into a missed call from them.
    void aRestartWhileCallingLeavesNoMissedCall() {
        QSignalSpy hostStates(host_.get(), &ui::EngineHost::callStateChanged);
        QSignalSpy hostService(host_.get(), &ui::EngineHost::serviceStateChanged);
        host_->dial(peer_->address());
        QTRY_COMPARE_WITH_TIMEOUT(host_->callState(), call::CallState::Dialing, 10000);
        QCOMPARE(hostStates.size(), 1);
        // The GUI thread busy (as under a burst of events) while the peer's ring comes back to
        // our engine: its Ringing waits in this thread's queue when the restart begins. The
        // private network rings in a few seconds; the dial gives up after 40.
        QThread::sleep(20);
        contactList()->setCurrentItem(contactList()->topLevelItem(0));
        auto* callButton = find<QPushButton>(window_.get(), "callButton");
        QVERIFY(!callButton->isEnabled()); // a call is under way
        host_->start(hostConfig_);
        // The old tor is going: the panel says so at once, and Call waits for the new tor (the
        // old tor's last words, dropped with the rest of its engine's news, used to say so).
        QCOMPARE(find<QLabel>(window_->torStatus(), "torHeadline")->text(),
                 ui::TorStatusPanel::tr("Tor is not running."));
        QVERIFY(!callButton->isEnabled());
        QVERIFY2(callButton->toolTip().contains(QStringLiteral("not connected yet")),
                 qPrintable(callButton->toolTip()));
        QTRY_VERIFY_WITH_TIMEOUT(!hostService.isEmpty() &&
                                     hostService.last().at(0).value<tor::OnionService::State>() ==
                                         tor::OnionService::State::Reachable,
                                 kStartTimeout);
        // The peer's ring, if it came, ends with the old engine.
        const bool rang = peerReached(call::CallState::Ringing);
        if (rang)
            QTRY_VERIFY_WITH_TIMEOUT(peerReached(call::CallState::Ended), kCallTimeout);
        QTRY_VERIFY(callButton->isEnabled());
        QVERIFY(!window_->incomingCallDialog() || !window_->incomingCallDialog()->isVisible());
        const QString status = contactList()->topLevelItem(0)->text(2);
        QVERIFY2(status.startsWith(QStringLiteral("cancelled ")), qPrintable(status));
        QVERIFY(!contactList()->topLevelItem(0)->font(0).bold());
        QCOMPARE(hostStates.size(), 1); // nothing from the old engine after the restart
        QVERIFY(find<QLabel>(callWindow(), "callState")
                    ->text()
                    .startsWith(QStringLiteral("Call ended")));
        resetStalls(); // the stall above was the test's own
        waitIdle();
        if (!rang)
            QSKIP("the peer never rang (a dial slower than 20 s): the race was not made");
    }

    void torThatCannotBootstrapIsExplained() {
        // A tor that can reach nothing (its only bridge is a closed port on this machine): the
        // window says so in words, offers Retry and bridges, and shows tor's own notices.
        ui::EngineHost offline;
        ui::MainWindow window(&offline);
        window.torStatus()->setSlowBootstrapAfter(1s);
        window.show();
        call::EngineConfig config = engineConfig("gui-offline");
        config.extraTorrcLines = {QStringLiteral("UseBridges 1"),
                                  QStringLiteral("Bridge 127.0.0.1:9 "
                                                 "0123456789ABCDEF0123456789ABCDEF01234567")};
        offline.start(config);
        auto* hint = find<QLabel>(&window, "torHint");
        QTRY_VERIFY_WITH_TIMEOUT(hint->isVisible(), 30000);
        QVERIFY2(hint->text().contains(QStringLiteral("block Tor")), qPrintable(hint->text()));
        QVERIFY(find<QPushButton>(&window, "torRetryButton")->isVisible());
        QVERIFY(find<QPushButton>(&window, "torBridgesButton")->isVisible());
        auto* log = find<QPlainTextEdit>(&window, "torLog");
        QVERIFY(log->isVisible());
        QTRY_VERIFY(log->toPlainText().contains(QStringLiteral("Bootstrapped")));
        offline.stop();
    }

    // Fault, with a real tor: the app's tor dies. The launcher starts another, and the window said
    // only "Starting tor…", as at launch; now it says what happened until tor is back.
    void aTorThatDiesIsExplained() {
        ui::EngineHost host;
        ui::MainWindow window(&host);
        window.torStatus()->setSlowBootstrapAfter(1h); // its hint would hide the one looked for
        window.show();
        call::EngineConfig config = engineConfig("gui-tor-dies");
        config.extraTorrcLines = {QStringLiteral("DisableNetwork 1")};
        host.start(config);
        auto* headline = find<QLabel>(&window, "torHeadline");
        QTRY_VERIFY_WITH_TIMEOUT(headline->text().startsWith(QStringLiteral("Connecting")), 30000);
        const qint64 tor = processWithArgument(config.dataDirectory + QStringLiteral("/tor/torrc"));
        QVERIFY(tor > 0);
        auto* hint = find<QLabel>(&window, "torHint");
        QVERIFY(!hint->isVisible());
        QCOMPARE(::kill(pid_t(tor), SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(hint->isVisible(), 10000);
        QVERIFY2(hint->text().contains(QStringLiteral("killed or crashed")),
                 qPrintable(hint->text()));
        QTRY_VERIFY_WITH_TIMEOUT(headline->text().startsWith(QStringLiteral("Connecting")), 30000);
        QVERIFY(hint->isVisible());
        host.stop();
    }

    void cleanupTestCase() {
        if (!host_)
            return;
        window_.reset();
        host_->stop();
        peer_->stop();
        qint64 worst = 0;
        for (const auto& [phase, ms] : stallReport_)
            worst = std::max(worst, ms);
        qInfo("GUI event loop: longest stall over all phases: %lld ms", worst);
        controlThread_.quit();
        controlThread_.wait();
    }
};

int main(int argc, char** argv) {
    TimedApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    GuiTest test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_gui.moc"
