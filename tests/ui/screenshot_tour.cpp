// onionvoice-screenshots: runs the demo app (GuiApp, as `onionvoice --testnet` composes it) and
// photographs it with QWidget::grab(): the main window once online, the call window's dashboard
// in the middle of a call to the first contact (the echo contact), and the incoming-call prompt
// when a second party (an engine in this process) calls; then the settings and the sound test.
// Used by tests/ui/screenshots.sh.
#include "../../app/TestNetworkTorrc.h"
#include "DeviceSoundCheck.h"
#include "GuiApp.h"
#include "media/WavFileBackend.h"
#include "tor/TorLauncher.h"
#include "ui/CallWindow.h"
#include "ui/IncomingCallDialog.h"
#include "ui/LinkTableModel.h"
#include "ui/QualityDashboard.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>
#include <QTreeWidget>
#include <cstdio>

using namespace onionvoice;
using namespace std::chrono_literals;

namespace {

void say(const QString& line) {
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

bool save(QWidget* widget, const QString& path) {
    const bool ok = widget->grab().save(path);
    say(ok ? QStringLiteral("wrote %1").arg(path) : QStringLiteral("cannot write %1").arg(path));
    return ok;
}

// Polls `ready` every 250 ms and runs `then` once it holds; gives up after `limit`.
void when(std::function<bool()> ready, std::function<void()> then, std::chrono::seconds limit,
          const QString& what) {
    auto* timer = new QTimer;
    auto* waited = new int(0);
    QObject::connect(timer, &QTimer::timeout, [=] {
        if (ready()) {
            timer->deleteLater();
            delete waited;
            then();
        } else if (++*waited * 250 > limit.count() * 1000) {
            say(QStringLiteral("gave up waiting for %1").arg(what));
            QCoreApplication::exit(1);
        }
    });
    timer->start(250);
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption out("out", "Directory for the PNG files.", "DIR");
    const QCommandLineOption testnet("testnet", "Private network directory.", "DIR");
    const QCommandLineOption dataDir("data-dir", "The app's data directory.", "DIR");
    const QCommandLineOption contact("contact", "The echo contact's link.", "LINK");
    const QCommandLineOption play("play", "WAV file as the microphone.", "WAV");
    const QCommandLineOption seconds("call-seconds", "Seconds into the call.", "N", "25");
    parser.addOptions({out, testnet, dataDir, contact, play, seconds});
    parser.addHelpOption();
    parser.process(app);
    const QDir outDir(parser.value(out));
    QDir().mkpath(outDir.path());

    gui::GuiOptions options;
    options.dataDirectory = QDir(parser.value(dataDir)).absolutePath();
    QString why;
    const auto network = app::readTestNetworkTorrc(parser.value(testnet), &why);
    if (!network) {
        std::fprintf(stderr, "onionvoice-screenshots: --testnet: %s\n", qPrintable(why));
        return 1;
    }
    options.testnetTorrcLines = *network;
    options.contacts = parser.values(contact);
    options.playFile = parser.value(play);
    gui::GuiApp gui(options);
    gui.start();
    ui::MainWindow* window = gui.window();
    ui::EngineHost* host = gui.host();
    window->resize(1180, 700);

    // The second party, which calls the app for the incoming-call prompt.
    ui::EngineHost caller;
    call::EngineConfig callerConfig;
    callerConfig.dataDirectory = QDir(options.dataDirectory).filePath("../caller");
    callerConfig.extraTorrcLines = *network;
    callerConfig.audio = [](QString* error) -> std::unique_ptr<media::AudioBackend> {
        return media::WavFileBackend::create({}, {}, media::Pacing::RealTime, error);
    };
    caller.start(callerConfig);

    tor::OnionService::State service = tor::OnionService::State::Unpublished;
    QObject::connect(host, &ui::EngineHost::serviceStateChanged,
                     [&](tor::OnionService::State s) { service = s; });
    int linksUp = 0;
    std::chrono::milliseconds inCall{0};
    QObject::connect(host, &ui::EngineHost::statisticsChanged, [&](const call::CallStatistics& s) {
        linksUp = s.linksUp();
        inCall = s.duration;
    });
    const int callSeconds = parser.value(seconds).toInt();

    // The settings and the sound test, as the menu opens them.
    const auto saveDialogs = [&] {
        ui::SettingsDialog settings(ui::AppSettings{}, gui::GuiApp::environment(), window);
        settings.show();
        QCoreApplication::processEvents();
        save(&settings, outDir.filePath("settings.png"));
        gui::DeviceSoundCheck check({}, {});
        ui::SoundTestDialog sound(&check,
                                  QStringLiteral("Microphone: system default · Speaker: "
                                                 "system default"),
                                  window);
        sound.show();
        QCoreApplication::processEvents();
        save(&sound, outDir.filePath("sound-test.png"));
    };
    const auto incoming = [&] {
        say("waiting for an incoming call");
        caller.dial(host->address());
        when(
            [&] {
                return window->incomingCallDialog() && window->incomingCallDialog()->isVisible();
            },
            [&] {
                QTimer::singleShot(1500, [&] {
                    save(window->incomingCallDialog(), outDir.filePath("incoming-call.png"));
                    window->incomingCallDialog()->reject();
                    QTimer::singleShot(1000, [&] {
                        saveDialogs();
                        QCoreApplication::quit();
                    });
                });
            },
            90s, QStringLiteral("the incoming call"));
    };
    const auto call = [&] {
        if (host->contacts().isEmpty()) {
            say("no contact to call");
            QCoreApplication::exit(1);
            return;
        }
        say(QStringLiteral("calling %1").arg(host->contacts().first().displayName));
        host->dial(host->contacts().first().address);
        when([&] { return linksUp >= 8 && inCall >= std::chrono::seconds(callSeconds); },
             [&] {
                 ui::CallWindow* w = window->callWindow();
                 w->resize(900, 700);
                 QTimer::singleShot(300, [&, w] {
                     save(w, outDir.filePath("call-dashboard.png"));
                     host->hangUp();
                     // After the call: the contact's row says when it was and how long.
                     QTimer::singleShot(2000, [&] {
                         save(window, outDir.filePath("main-window.png"));
                         incoming();
                     });
                 });
             },
             std::chrono::seconds(90 + callSeconds), QStringLiteral("the call"));
    };
    when(
        [&] {
            return service == tor::OnionService::State::Reachable && !host->contacts().isEmpty();
        },
        [&] {
            auto* list = window->findChild<QTreeWidget*>(QStringLiteral("contactList"));
            list->setCurrentItem(list->topLevelItem(0));
            QTimer::singleShot(1000, call);
        },
        120s, QStringLiteral("the app to come online"));
    const int status = app.exec();
    caller.stop();
    return status;
}
