// The ringtone of an incoming call on the chosen output device: two tones together, two seconds
// on and four off, generated a little ahead into the playback ring.
#pragma once

#include "LocalAudio.h"

namespace onionvoice::gui {

class Ringtone : public QObject {
    Q_OBJECT
public:
    explicit Ringtone(QObject* parent = nullptr);

    void setOutputDevice(const QString& output);
    void setRinging(bool ringing);

private:
    void fill(media::AudioRings& rings);

    QString output_;
    LocalAudio audio_;
    std::uint64_t sample_ = 0;
};

} // namespace onionvoice::gui
