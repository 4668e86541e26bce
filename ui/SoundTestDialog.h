// The sound test, before any call: a microphone level meter and a record-and-play-back check.
// The dialog shows and asks; a SoundCheck (the app's, on the real devices) does the audio.
#pragma once

#include <QDialog>
#include <QTimer>
#include <chrono>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace onionvoice::ui {

class SoundCheck : public QObject {
    Q_OBJECT
public:
    enum class Phase { Stopped, Listening, Recording, Processing, Playing };
    Q_ENUM(Phase)

    using QObject::QObject;
    // Opens the devices and starts metering the microphone.
    virtual bool start(QString* error) = 0;
    virtual void stop() = 0;
    // Peak microphone level (0 to 1) since the last call.
    virtual double takeLevel() = 0;
    // Records `duration` of the microphone, then plays it back; phaseChanged reports each step.
    virtual void recordAndPlayBack(std::chrono::seconds duration) = 0;
    // The same, but what is played back went through the call pipeline over a simulated Tor
    // path of a trace profile (calm, default, congested, hostile); report() tells how it went.
    virtual void recordThroughTorPath(std::chrono::seconds duration, const QString& profile) = 0;

signals:
    void phaseChanged(onionvoice::ui::SoundCheck::Phase phase);
    void report(const QString& text);
};

class SoundTestDialog : public QDialog {
    Q_OBJECT
public:
    SoundTestDialog(SoundCheck* check, const QString& devices, QWidget* parent = nullptr);
    ~SoundTestDialog() override;

private:
    void showPhase(SoundCheck::Phase phase);

    SoundCheck* check_;
    QProgressBar* level_;
    QLabel* status_;
    QPushButton* record_;
    QComboBox* profile_;
    QPushButton* torPath_;
    QLabel* report_;
    QTimer meter_;
};

} // namespace onionvoice::ui
