// The desktop app's composition (GuiApp) on the private Tor network: a setting that needs tor
// restarted, saved during a call, and the call ending while the "Restart now?" question is open;
// and an engine stopped before its start was reported.
#include "../cli/StandInTor.h"
#include "../testnet/TestnetEngine.h"
#include "GuiApp.h"
#include "OffscreenTestMain.h"
#include "media/WavFile.h"
#include "media/WavFileBackend.h"
#include "ui/EngineHost.h"

#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <vector>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

using testnet::kCallTimeout;
using testnet::kStartTimeout;

bool reachable(const QSignalSpy& service) {
    return !service.isEmpty() && service.last().at(0).value<tor::OnionService::State>() ==
                                     tor::OnionService::State::Reachable;
}

int starts(const QSignalSpy& phases) {
    return int(std::count_if(phases.begin(), phases.end(), [](const QList<QVariant>& args) {
        return args.at(0).value<ui::EngineHost::Phase>() == ui::EngineHost::Phase::Starting;
    }));
}

} // namespace

class GuiRestartTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testnet::networkDirectory().isEmpty())
            QSKIP("needs the private Tor network (ctest fixture testnet)");
        testnet::dieWithParent();
    }

    // Fault (a review found it): stop() did not move the generation on, so the news of a start
    // still queued when the blocking stop returned (Running) arrived after it and turned the
    // stopped host back to Running, with no engine behind it.
    void aStopRightAfterAStartStaysStopped() {
        QTemporaryDir dir;
        ui::EngineHost host;
        call::EngineConfig config;
        config.dataDirectory = dir.filePath(QStringLiteral("data"));
        config.torExecutable = waitingTor(dir);
        host.start(config);
        host.stop();
        QCOMPARE(host.phase(), ui::EngineHost::Phase::Stopped);
        QTest::qWait(500); // the start's news, queued on this thread meanwhile, is delivered
        QCOMPARE(host.phase(), ui::EngineHost::Phase::Stopped);
    }

    // Fault: the question runs its own event loop. The peer hung up while it was open, the
    // restart put off for the call was made there, and the Yes that followed restarted tor a
    // second time (the user's ID offline twice for nothing).
    void aCallEndingDuringTheRestartQuestionRestartsTorOnce() {
        QTemporaryDir dir;
        const QString microphone = dir.filePath(QStringLiteral("silence.wav"));
        const std::vector<float> silence(48000, 0.0f);
        QString error;
        QVERIFY2(media::writeWavFile(microphone, silence, 48000, &error), qPrintable(error));
        gui::GuiApp app(gui::GuiOptions{testnet::clientConfig("guirestart").dataDirectory,
                                        testnet::clientTorrcLines(),
                                        {},
                                        microphone,
                                        {},
                                        {}});
        QSignalSpy phases(app.host(), &ui::EngineHost::phaseChanged);
        QSignalSpy service(app.host(), &ui::EngineHost::serviceStateChanged);
        app.start();

        ui::EngineHost peer;
        call::EngineConfig config = testnet::engineConfig("guirestart-peer");
        config.audio = [](QString* error) -> std::unique_ptr<media::AudioBackend> {
            return media::WavFileBackend::create({}, {}, media::Pacing::RealTime, error);
        };
        QSignalSpy peerService(&peer, &ui::EngineHost::serviceStateChanged);
        peer.start(config);
        QTRY_VERIFY_WITH_TIMEOUT(reachable(service), kStartTimeout);
        QTRY_VERIFY_WITH_TIMEOUT(reachable(peerService), kStartTimeout);

        peer.dial(app.host()->address());
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->callState(), call::CallState::Ringing, kCallTimeout);
        app.host()->answer(peer.address());
        QTRY_COMPARE_WITH_TIMEOUT(app.host()->callState(), call::CallState::Active, kCallTimeout);
        const int startsBefore = starts(phases);

        // Settings: another bitrate (the engine's configuration: a restart), OK. Then, while the
        // question is open, the peer hangs up; once the call has ended there, Yes.
        enum class Step { Settings, Question, CallEnding, Answered };
        Step step = Step::Settings;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, this, [&] {
            QWidget* modal = QApplication::activeModalWidget();
            if (step == Step::Settings && modal &&
                modal->objectName() == QStringLiteral("settingsDialog")) {
                auto* bitrate = modal->findChild<QSpinBox*>(QStringLiteral("bitrateSpin"));
                bitrate->setValue(bitrate->value() == bitrate->minimum() ? bitrate->minimum() + 1
                                                                         : bitrate->minimum());
                qobject_cast<QDialog*>(modal)->accept();
                step = Step::Question;
            } else if (step == Step::Question && qobject_cast<QMessageBox*>(modal)) {
                peer.hangUp();
                step = Step::CallEnding;
            } else if (step == Step::CallEnding && qobject_cast<QMessageBox*>(modal) &&
                       app.host()->callState() == call::CallState::Idle &&
                       starts(phases) > startsBefore) {
                service.clear(); // the restart publishes the ID again
                qobject_cast<QMessageBox*>(modal)->button(QMessageBox::Yes)->click();
                step = Step::Answered;
                poll.stop();
            }
        });
        poll.start();
        emit app.window()->settingsRequested();
        QTRY_COMPARE_WITH_TIMEOUT(step, Step::Answered, kCallTimeout);
        QTest::qWait(500); // anything the answer set off has started
        QCOMPARE(starts(phases) - startsBefore, 1);
        QTRY_VERIFY_WITH_TIMEOUT(reachable(service), kStartTimeout);
        peer.stop();
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(GuiRestartTest)
#include "tst_guirestart.moc"
