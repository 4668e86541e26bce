// Sound on the GUI thread outside calls (the ringtone, the sound test): a PortAudio backend on
// the chosen devices, its rings, and a timer that services the rings every 10 ms. The audio
// callbacks only touch the rings; the timer does the work.
#pragma once

#include "media/AudioBackend.h"
#include "media/PortAudioBackend.h"

#include <QTimer>
#include <functional>
#include <memory>

namespace onionvoice::gui {

class LocalAudio : public QObject {
    Q_OBJECT
public:
    using Pump = std::function<void(media::AudioRings& rings)>;

    explicit LocalAudio(QObject* parent = nullptr);
    ~LocalAudio() override;

    // Opens the devices (empty names: the system defaults) and calls `pump` every 10 ms, and
    // once before the streams start so that playback begins with data.
    bool start(const QString& input, const QString& output, Pump pump, QString* error);
    // The same with the output device alone; the microphone stays closed.
    bool startPlayback(const QString& output, Pump pump, QString* error);
    void stop();
    bool isRunning() const { return backend_ != nullptr; }

private:
    bool open(media::PortAudioBackend::Streams streams, const QString& input, const QString& output,
              Pump pump, QString* error);

    std::unique_ptr<media::PortAudioBackend> backend_;
    std::unique_ptr<media::AudioRings> rings_;
    Pump pump_;
    QTimer timer_;
};

} // namespace onionvoice::gui
