// The self-test.
#include "SelfTest.h"

#include "media/PortAudioBackend.h"
#include "tor/TorLauncher.h"
#include "ui/EngineHost.h"
#include "ui/MainWindow.h"

#include <QGuiApplication>
#include <QJsonArray>
#include <QProcess>

namespace onionvoice::gui {

QJsonObject runSelfTest() {
    QJsonObject result;
    QJsonArray problems;
    result["qt_version"] = QString::fromLatin1(qVersion());
    result["qt_platform"] = QGuiApplication::platformName();
    result["qt_platform_ok"] = !QGuiApplication::platformName().isEmpty();

    QStringList searched;
    const auto tor = tor::TorLauncher::findTor(QString(), &searched);
    result["tor_path"] = tor ? *tor : QString();
    result["tor_version"] = QString();
    bool torOk = false;
    if (!tor) {
        problems.append(QStringLiteral("tor not found (looked in %1)").arg(searched.join(", ")));
    } else {
        const tor::TorLauncher::VersionCheck check = tor::TorLauncher::checkVersion(*tor);
        if (check.version)
            result["tor_version"] = check.version->toString();
        if (!check.problem.isEmpty())
            problems.append(check.problem);
        else
            torOk = true;
    }
    result["tor_ok"] = torOk;

    QJsonArray devices;
    QString audioError;
    const auto audio = media::PortAudioBackend::create(&audioError);
    if (audio) {
        for (const media::AudioDeviceInfo& d : audio->devices())
            devices.append(QJsonObject{{"host_api", d.hostApi},
                                       {"name", d.name},
                                       {"inputs", d.inputChannels},
                                       {"outputs", d.outputChannels}});
    } else {
        problems.append(QStringLiteral("audio: %1").arg(audioError));
    }
    result["audio_ok"] = bool(audio);
    result["audio_devices"] = devices;

    bool windowOk = false;
    {
        ui::EngineHost host; // not started: no tor, no network
        ui::MainWindow window(&host);
        window.show();
        QCoreApplication::processEvents();
        windowOk = window.isVisible() && window.width() > 0;
        window.close();
    }
    result["window_ok"] = windowOk;
    if (!windowOk)
        problems.append(QStringLiteral("the main window could not be shown"));
    result["problems"] = problems;
    // Audio devices may legitimately be absent (a server, a CI machine): not a failure.
    result["ok"] = result["qt_platform_ok"].toBool() && torOk && windowOk;
    return result;
}

} // namespace onionvoice::gui
