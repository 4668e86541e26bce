// The ringtone of an incoming call, played on the chosen output device through PortAudio: two
// tones together, two seconds on and four off, generated on the GUI thread a few frames ahead
// into the backend's ring (the audio callback only reads the ring).
#pragma once

#include "media/AudioBackend.h"
#include "media/PortAudioBackend.h"

#include <QTimer>
#include <memory>

namespace onionvoice::gui {

class Ringtone : public QObject {
    Q_OBJECT
public:
    explicit Ringtone(QObject* parent = nullptr);
    ~Ringtone() override;

    void setOutputDevice(const QString& name) { device_ = name; }
    void setRinging(bool ringing);

private:
    void fill();

    QString device_;
    std::unique_ptr<media::PortAudioBackend> backend_;
    std::unique_ptr<media::AudioRings> rings_;
    QTimer timer_;
    std::uint64_t sample_ = 0;
};

} // namespace onionvoice::gui
