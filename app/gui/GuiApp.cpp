// The onionvoice program's composition.
#include "GuiApp.h"

#include "DeviceSoundCheck.h"
#include "call/SavedAppChoices.h"
#include "media/PortAudioBackend.h"
#include "media/WavFileBackend.h"
#include "multipath/SchedulingPolicy.h"
#include "tor/BundledTor.h"
#include "tor/TorLauncher.h"
#include "ui/ContactInput.h"
#include "ui/TorStatusPanel.h"
#include "ui/WindowModal.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <utility>

namespace onionvoice::gui {
namespace {

Q_LOGGING_CATEGORY(lcGuiApp, "onionvoice.gui")

QString findExecutable(const QStringList& names) {
    // A bundle's transports sit next to the executable, like its tor.
    for (const QString& name : names) {
        const QFileInfo bundled(QDir(QCoreApplication::applicationDirPath()).filePath(name));
        if (bundled.isFile() && bundled.isExecutable())
            return bundled.absoluteFilePath();
    }
    const QStringList extra{QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin"),
                            QStringLiteral("/usr/local/bin")};
    for (const QString& name : names) {
        QString path = QStandardPaths::findExecutable(name);
        if (path.isEmpty())
            path = QStandardPaths::findExecutable(name, extra);
        if (!path.isEmpty())
            return path;
    }
    return {};
}

// The pluggable-transport programs installed, which bridges need.
ui::SettingsEnvironment installedTransports() {
    ui::SettingsEnvironment env;
    env.obfs4Executable =
        findExecutable({QStringLiteral("lyrebird"), QStringLiteral("obfs4proxy")});
    env.snowflakeExecutable = findExecutable({QStringLiteral("snowflake-client")});
    return env;
}

ui::AppSettings loadSettings(const QString& file, QStringList* problems, QString* unreadable) {
    QSettings store(file, QSettings::IniFormat);
    *unreadable = ui::AppSettings::unreadable(store);
    return ui::AppSettings::load(store, problems);
}

} // namespace

GuiApp::GuiApp(GuiOptions options, QObject* parent)
    : QObject(parent)
    , options_(std::move(options))
    , settingsFile_(QDir(options_.dataDirectory).filePath(call::kSettingsFileName))
    , settings_(loadSettings(settingsFile_, &settingsProblems_, &settingsUnreadable_)) {
    devices_->set(settings_.chosen().inputDevice, settings_.chosen().outputDevice);
    window_ = std::make_unique<ui::MainWindow>(&host_);
    window_->setRinger([this](bool on) { ringtone_.setRinging(on); });
    connect(window_.get(), &ui::MainWindow::settingsRequested, this,
            [this] { openSettings(false); });
    connect(window_.get(), &ui::MainWindow::bridgesRequested, this, [this] { openSettings(true); });
    connect(window_.get(), &ui::MainWindow::soundTestRequested, this, [this] {
        openSoundTest(settings_.chosen().inputDevice, settings_.chosen().outputDevice,
                      window_.get());
    });
    // A call answered from its prompt while the sound test runs (the prompt takes clicks over
    // it) gets the sound devices: the test stops before the engine opens them for the call.
    connect(window_.get(), &ui::MainWindow::answering, this, [this] {
        if (!soundTest_)
            return;
        soundCheck_->stop();
        soundTest_->reject();
    });
    connect(window_.get(), &ui::MainWindow::retryRequested, this, [this] { startEngine(); });
    // A restart put off during a call is made when it ends. Queued: the engine is replaced
    // outside the delivery of its own signal.
    connect(&host_, &ui::EngineHost::callStateChanged, this, [this] {
        if (host_.callState() == call::CallState::Idle && settings_.restartDue())
            QMetaObject::invokeMethod(this, &GuiApp::restartIfDue, Qt::QueuedConnection);
    });
    connect(&host_, &ui::EngineHost::phaseChanged, this, [this](auto phase, const QString& why) {
        if (phase == ui::EngineHost::Phase::Running)
            addStartupContacts();
        if (phase == ui::EngineHost::Phase::Failed)
            window_->torStatus()->setFailure(why);
    });
}

GuiApp::~GuiApp() {
    window_.reset();
    host_.stop();
}

void GuiApp::start() {
    ringtone_.setOutputDevice(settings_.chosen().outputDevice);
    window_->setPresetDescription(presetDescription());
    window_->setDeviceDescription(deviceDescription());
    startEngine();
    window_->show();
    if (!settingsProblems_.isEmpty())
        window_->statusBar()->showMessage(settingsProblems_.join(QLatin1Char(' ')), 60000);
    if (!options_.openUri.isEmpty())
        window_->openAddContact(options_.openUri);
}

void GuiApp::activate(const QString& uri) {
    if (!uri.isEmpty()) {
        window_->openAddContact(uri);
        return;
    }
    window_->showNormal();
    window_->raise();
    window_->activateWindow();
}

QString GuiApp::presetDescription() const {
    const tor::PresetDescription d = tor::describePreset(settings_.chosen().preset);
    return d.name;
}

call::EngineConfig GuiApp::engineConfig() const {
    const ui::AppSettings& chosen = settings_.chosen();
    call::EngineConfig config;
    config.dataDirectory = options_.dataDirectory;
    config.torExecutable = chosen.torPath;
    config.access = chosen.access;
    config.unknownCallers = chosen.unknownCallers;
    config.parameters = chosen.callParameters();
    config.preset = chosen.preset; // the engine adds its tor options and runs the hotline
    if (chosen.useBridges && !chosen.bridgeLines.isEmpty()) {
        // Not environment(): a start needs no list of sound devices, and making one on this
        // (the GUI) thread initialises PortAudio, which scans every device while the window
        // waits.
        const ui::SettingsEnvironment env = installedTransports();
        // The tor the launcher will pick: a transport in its directory is named relative to it.
        QStringList searched;
        const QString tor =
            tor::TorLauncher::findTor(chosen.torPath, &searched).value_or(QString());
        config.extraTorrcLines.append(tor::bridgeTorrcLines(
            chosen.bridgeLines, {env.obfs4Executable, env.snowflakeExecutable}, tor));
    }
    config.extraTorrcLines.append(options_.testnetTorrcLines);
    // The devices as chosen when a call starts, not when the engine started: they change without
    // a restart.
    config.audio = [options = options_,
                    devices = devices_](QString* error) -> std::unique_ptr<media::AudioBackend> {
        if (!options.playFile.isEmpty())
            return media::WavFileBackend::create(options.playFile, options.recordFile,
                                                 media::Pacing::RealTime, error);
        return devices->open(error);
    };
    if (options_.playFile.isEmpty())
        config.audioDevicesPresent = [devices = devices_](QString* error) {
            return devices->present(error);
        };
    return config;
}

ui::SettingsEnvironment GuiApp::environment() {
    ui::SettingsEnvironment env = installedTransports();
    for (const auto name : multipath::policyNames())
        env.policies.append(QString::fromLatin1(name.data(), qsizetype(name.size())));
    QString error;
    if (auto backend = media::PortAudioBackend::create(&error)) {
        for (const media::AudioDeviceInfo& d : backend->devices()) {
            if (d.inputChannels > 0)
                env.inputDevices.append(d.name);
            if (d.outputChannels > 0)
                env.outputDevices.append(d.name);
        }
    }
    return env;
}

void GuiApp::openSettings(bool focusBridges) {
    // While the engine refuses strangers on its own (contacts were lost), the box shows that, and
    // only changing it answers the question: OK on the dialog for a new microphone must not lift
    // the refusal, nor make the engine forget that blocks may be lost.
    ui::AppSettings shown = settings_.chosen();
    shown.unknownCallers = host_.unknownCallers().value_or(shown.unknownCallers);
    ui::SettingsDialog dialog(shown, environment(), window_.get());
    connect(&dialog, &ui::SettingsDialog::soundTestRequested, this,
            [this, &dialog](const QString& input, const QString& output) {
                openSoundTest(input, output, &dialog);
            });
    if (focusBridges)
        dialog.setFocusToBridges();
    if (ui::execWindowModal(dialog) != QDialog::Accepted)
        return;
    ui::AppSettings chosen = dialog.settings();
    const bool callersChosen = chosen.unknownCallers != shown.unknownCallers;
    if (!callersChosen)
        chosen.unknownCallers = settings_.chosen().unknownCallers;
    applySettings(chosen, callersChosen);
}

void GuiApp::openSoundTest(const QString& inputDevice, const QString& outputDevice,
                           QWidget* parent) {
    if (host_.callState() != call::CallState::Idle) {
        ui::informWindowModal(parent, tr("Sound test"),
                              tr("The sound test needs the sound devices: finish the call "
                                 "first."));
        return;
    }
    DeviceSoundCheck check(inputDevice, outputDevice);
    ui::SoundTestDialog dialog(&check, deviceDescription(inputDevice, outputDevice), parent);
    soundCheck_ = &check;
    soundTest_ = &dialog;
    ui::execWindowModal(dialog);
    soundCheck_ = nullptr;
}

QString GuiApp::deviceDescription() const {
    return deviceDescription(settings_.chosen().inputDevice, settings_.chosen().outputDevice);
}

QString GuiApp::deviceDescription(const QString& inputDevice, const QString& outputDevice) const {
    if (!options_.playFile.isEmpty())
        return tr("Microphone: the file %1").arg(QFileInfo(options_.playFile).fileName());
    return tr("Microphone: %1 · Speaker: %2")
        .arg(inputDevice.isEmpty() ? tr("system default") : inputDevice,
             outputDevice.isEmpty() ? tr("system default") : outputDevice);
}

void GuiApp::applySettings(const ui::AppSettings& settings, bool unknownCallersChosen) {
    settings_.choose(settings);
    // Saving over the unreadable file would lose what it still holds: it is kept beside.
    if (!settingsUnreadable_.isEmpty()) {
        const QFileInfo old(settingsFile_);
        const QString kept = settingsFile_ + QStringLiteral(".unreadable-") +
                             QDateTime::currentDateTimeUtc().toString("yyyyMMddThhmmss");
        if ((old.isFile() || old.isSymLink()) && !QFile::rename(settingsFile_, kept)) {
            ui::informWindowModal(window_.get(), tr("Settings not saved"),
                                  tr("%1 could not be moved aside to %2, so the new settings "
                                     "were not saved, and tor is not started.")
                                      .arg(settingsFile_, kept));
            return;
        }
    }
    // A fresh store each time: QSettings keeps reporting the first error it met, so one failure
    // would be reported again after every later save that worked.
    QSettings store(settingsFile_, QSettings::IniFormat);
    QString error;
    const bool saved = settings.save(store, &error);
    if (!saved && !settingsUnreadable_.isEmpty())
        ui::informWindowModal(window_.get(), tr("Settings not saved"),
                              tr("The settings could not be saved: %1. Tor is not started "
                                 "until they are.")
                                  .arg(error));
    else if (!saved)
        // Said in a box, not the status bar: the restart below overwrites the bar, and a choice
        // such as "contacts only" silently going back to open at the next start is what the user
        // must learn of.
        ui::informWindowModal(
            window_.get(), tr("Settings not saved"),
            tr("The settings could not be saved: %1. They apply until OnionVoice quits; at the "
               "next start the settings saved before apply again.")
                .arg(error));
    devices_->set(settings.inputDevice, settings.outputDevice);
    ringtone_.setOutputDevice(settings.outputDevice);
    if (unknownCallersChosen)
        host_.setUnknownCallers(settings.unknownCallers);
    window_->setPresetDescription(presetDescription());
    window_->setDeviceDescription(deviceDescription());
    if (!settingsUnreadable_.isEmpty()) {
        if (!saved)
            return;
        settingsUnreadable_.clear(); // the user has seen and confirmed every setting
        startEngine();
        return;
    }
    restartIfDue();
}

void GuiApp::restartIfDue() {
    if (!settings_.restartDue())
        return;
    if (host_.callState() != call::CallState::Idle) {
        // Window-modal: the call window's Hang up and Mute stay usable while it is asked.
        const bool yes = ui::askWindowModal(
            window_.get(), tr("Restart tor"),
            tr("These settings take effect when tor restarts, which ends the current call. "
               "Restart now?"));
        // The question runs an event loop: if the call ended meanwhile, the restart put off for
        // it has been made there, and a Yes would restart tor a second time.
        if (!settings_.restartDue())
            return;
        if (!yes) {
            window_->statusBar()->showMessage(
                tr("The new settings take effect when the call ends."), 10000);
            return;
        }
    }
    window_->statusBar()->showMessage(tr("Restarting tor to apply the new settings…"), 10000);
    startEngine();
}

void GuiApp::startEngine() {
    if (!settingsUnreadable_.isEmpty()) {
        ui::informWindowModal(
            window_.get(), tr("Settings not read"),
            tr("%1. OnionVoice does not connect with the default settings in their place: they "
               "could undo bridges, \"contacts only\" or refusing unknown callers. Check the "
               "settings and press OK; the unreadable file is kept beside the new one.")
                .arg(settingsUnreadable_));
        // Said where tor's state is, too, once the box is gone: "Tor is not running" alone would
        // leave the user waiting.
        window_->torStatus()->setFailure(
            tr("%1. Check the settings (OnionVoice → Settings…) and press OK.")
                .arg(settingsUnreadable_));
        return;
    }
    settings_.started();
    host_.start(engineConfig());
}

// At the first start that runs, not at every one: a restart (Retry, a changed setting) would bring
// back a contact removed since, and the link's key over the one the contact sent since.
void GuiApp::addStartupContacts() {
    for (const QString& link : std::exchange(options_.contacts, {})) {
        const ui::ContactInput input =
            ui::ContactInputCheck::check(link, host_.address(), host_.contacts());
        if (input.isValid())
            host_.addContact(input.contact);
        else if (input.verdict == ui::ContactInput::Verdict::NewAccessKey)
            host_.setContactAccessKey(input.contact.address, input.contact.outboundAuthPrivateKey);
        else if (input.verdict != ui::ContactInput::Verdict::AlreadyContact)
            qCWarning(lcGuiApp).noquote() << "contact link refused:" << input.reason;
    }
}

} // namespace onionvoice::gui
