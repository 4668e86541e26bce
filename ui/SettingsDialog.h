// The settings dialog: security preset with its trade-off, who may call, audio devices, call
// parameters (advanced), bridges and the tor executable. It checks bridge lines against the
// pluggable transports installed and says plainly what is missing.
#pragma once

#include "AppSettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace onionvoice::ui {

// What the machine offers, found by the app.
struct SettingsEnvironment {
    QStringList inputDevices, outputDevices;
    QStringList policies;
    QString obfs4Executable;     // lyrebird or obfs4proxy; empty: not installed
    QString snowflakeExecutable; // empty: not installed
};

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    SettingsDialog(const AppSettings& current, SettingsEnvironment environment,
                   QWidget* parent = nullptr);

    AppSettings settings() const;
    // Opened from "Use bridges": the bridge settings get the focus.
    void setFocusToBridges();
    // Empty when every line is usable here; else a sentence saying which one is not and why.
    static QString checkBridges(const QStringList& lines, const SettingsEnvironment& environment);

signals:
    // The devices chosen in the dialog, not yet saved: those are the ones to try.
    void soundTestRequested(const QString& inputDevice, const QString& outputDevice);

private:
    void accept() override;
    void showPresetTradeoff();

    AppSettings initial_;
    SettingsEnvironment environment_;
    QComboBox* preset_;
    QLabel* tradeoff_;
    QCheckBox* contactsOnly_;
    QCheckBox* refuseUnknown_;
    QComboBox* input_;
    QComboBox* output_;
    QSpinBox* bitrate_;
    QComboBox* policy_;
    QSpinBox* links_;
    QCheckBox* useBridges_;
    QPlainTextEdit* bridges_;
    QLabel* bridgeError_;
    QLabel* problem_;
    QLineEdit* torPath_;
};

} // namespace onionvoice::ui
