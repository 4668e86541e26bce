// The onionvoice program's composition: settings (QSettings) turned into the engine's
// configuration, the engine on its thread, the main window, the ringtone, and the reactions to
// Settings, Retry and bridges (a change that needs tor restarted restarts it).
#pragma once

#include "ChosenDevices.h"
#include "Ringtone.h"
#include "ui/AppSettings.h"
#include "ui/EngineHost.h"
#include "ui/MainWindow.h"
#include "ui/SettingsDialog.h"
#include "ui/SoundTestDialog.h"

#include <QPointer>
#include <memory>

namespace onionvoice::gui {

class DeviceSoundCheck;

struct GuiOptions {
    QString dataDirectory;
    // The client options of a private network of tests/testnet (demo mode: --testnet DIR, read by
    // main()); empty on the real Tor network. Never taken from the environment.
    QStringList testnetTorrcLines;
    QStringList contacts; // contact links put into the book at start (demo mode)
    QString playFile;     // a WAV file as the microphone instead of the sound card
    QString recordFile;   // where to record what is heard, with playFile
    QString openUri;      // an onionvoice: link to show in the add-contact field
};

class GuiApp : public QObject {
    Q_OBJECT
public:
    explicit GuiApp(GuiOptions options, QObject* parent = nullptr);
    ~GuiApp() override;

    void start();
    // Another start for the same data directory: show the window, with the add-contact dialog
    // filled in when it brought an onionvoice: link.
    void activate(const QString& uri);
    ui::MainWindow* window() { return window_.get(); }
    ui::EngineHost* host() { return &host_; }
    call::EngineConfig engineConfig() const;
    static ui::SettingsEnvironment environment();

private:
    void openSettings(bool focusBridges);
    // unknownCallersChosen: the user changed who may ring (the engine then forgets lost entries).
    void applySettings(const ui::AppSettings& settings, bool unknownCallersChosen);
    // Restarts tor and the engine when the chosen settings need it; during a call only if the
    // user agrees, else when the call ends.
    void restartIfDue();
    void startEngine();
    void addStartupContacts();
    // Modal to `parent`'s window: the main window, or Settings when opened from there.
    void openSoundTest(const QString& inputDevice, const QString& outputDevice, QWidget* parent);
    QString deviceDescription() const;
    QString deviceDescription(const QString& inputDevice, const QString& outputDevice) const;
    QString presetDescription() const;

    GuiOptions options_;
    QString settingsFile_; // settings.ini in the data directory
    // What loading the settings had to correct (a garbled value), shown when the window opens.
    QStringList settingsProblems_;
    // Why settings.ini could not be read whole, or empty. While set, tor is not started (the
    // defaults are the least private choices); settings saved from the dialog end it.
    QString settingsUnreadable_;
    ui::SettingsInEffect settings_;
    // Read by the engine's audio factory at every call; shared so that it outlives an engine
    // that is still stopping.
    std::shared_ptr<ChosenDevices> devices_ = std::make_shared<ChosenDevices>();
    ui::EngineHost host_;
    std::unique_ptr<ui::MainWindow> window_;
    Ringtone ringtone_;
    // The sound test while it is open (both live on openSoundTest's stack).
    QPointer<ui::SoundTestDialog> soundTest_;
    DeviceSoundCheck* soundCheck_ = nullptr;
};

} // namespace onionvoice::gui
