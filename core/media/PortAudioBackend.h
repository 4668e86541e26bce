// PortAudio audio I/O: separate input and output streams at 48 kHz mono float, devices chosen by
// host API and name (or the system default, re-resolved each time the streams start), a device
// list that can be refreshed, and the stream latency PortAudio reports once the streams run.
#pragma once

#include "media/AudioBackend.h"

#include <QList>
#include <memory>

typedef void PaStream;

namespace onionvoice::media {

struct AudioDeviceInfo {
    QString hostApi;
    QString name;
    int inputChannels = 0;
    int outputChannels = 0;
};

// An empty name means the system default device at the time the call starts.
struct AudioDeviceChoice {
    QString hostApi;
    QString name;
};

// Owns one Pa_Initialize / Pa_Terminate pair; PortAudio counts them, so several may coexist.
class PortAudioSession {
public:
    PortAudioSession();
    ~PortAudioSession();
    PortAudioSession(const PortAudioSession&) = delete;
    PortAudioSession& operator=(const PortAudioSession&) = delete;
    bool isValid() const { return m_status == 0; }
    QString errorString() const;

private:
    int m_status;
};

class PortAudioBackend : public AudioBackend {
public:
    static std::unique_ptr<PortAudioBackend> create(QString* error);
    ~PortAudioBackend() override;

    QList<AudioDeviceInfo> devices() const;
    // PortAudio only enumerates devices when it initializes, so a refresh re-initializes it.
    // Only while stopped; returns false with *error otherwise or on failure.
    bool refreshDevices(QString* error);
    // A ringtone plays and listens to nothing: it must not open (and light up) the microphone.
    enum class Streams { CaptureAndPlayback, PlaybackOnly };
    void setStreams(Streams streams) { m_streams = streams; }
    void setInputDevice(const AudioDeviceChoice& choice) { m_inputChoice = choice; }
    void setOutputDevice(const AudioDeviceChoice& choice) { m_outputChoice = choice; }

    // Whether start() would find its devices, without opening them.
    bool devicesPresent(QString* error) const;
    bool start(AudioRings& rings, QString* error) override;
    void stop() override;
    AudioLatency latency() const override;
    // Seconds on the output stream's own clock (the audio clock), for pacing checks.
    double outputStreamTime() const;

private:
    struct StreamCloser {
        void operator()(PaStream* stream) const;
    };
    using Stream = std::unique_ptr<PaStream, StreamCloser>;
    enum class Direction { Input, Output };

    explicit PortAudioBackend(std::unique_ptr<PortAudioSession> session);
    int resolve(const AudioDeviceChoice& choice, Direction direction, QString* error) const;
    Stream open(int device, Direction direction, AudioRings& rings, QString* error);

    std::unique_ptr<PortAudioSession> m_session;
    Streams m_streams = Streams::CaptureAndPlayback;
    AudioDeviceChoice m_inputChoice;
    AudioDeviceChoice m_outputChoice;
    Stream m_input;
    Stream m_output;
};

} // namespace onionvoice::media
