// PortAudio backend (see PortAudioBackend.h). The two stream callbacks only move samples between
// PortAudio's buffers and the SPSC rings and bump atomic counters: no locks, allocation, logging
// or I/O.
#include "media/PortAudioBackend.h"

#include "media/DeviceNames.h"
#include "media/MediaLog.h"
#include "media/PortAudioErrors.h"

#include <QCoreApplication>
#include <algorithm>
#include <mutex>
#include <portaudio.h>
#include <span>

namespace onionvoice::media {
namespace {

int inputCallback(const void* input, void*, unsigned long frames, const PaStreamCallbackTimeInfo*,
                  PaStreamCallbackFlags, void* user) {
    auto* rings = static_cast<AudioRings*>(user);
    if (input) {
        const std::size_t written =
            rings->capture.write(std::span(static_cast<const float*>(input), frames));
        rings->captureOverruns.fetch_add(frames - written, std::memory_order_relaxed);
    }
    rings->capturedSamples.fetch_add(frames, std::memory_order_relaxed);
    return paContinue;
}

int outputCallback(const void*, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*,
                   PaStreamCallbackFlags, void* user) {
    auto* rings = static_cast<AudioRings*>(user);
    std::span out(static_cast<float*>(output), frames);
    const std::size_t read = rings->playback.read(out);
    std::fill(out.begin() + std::ptrdiff_t(read), out.end(), 0.0f);
    rings->playbackUnderruns.fetch_add(frames - read, std::memory_order_relaxed);
    rings->playedSamples.fetch_add(frames, std::memory_order_relaxed);
    return paContinue;
}

// PortAudio is not thread-safe: its initialization count and device tables are plain globals,
// and two threads initializing at once abort inside it. The GUI thread (device lists, ringtone,
// sound test) and the engine thread (a call's streams) both use it, so every call into it other
// than the stream callbacks and stream-time queries holds this lock. Recursive: closing a stream
// takes it too, also from inside start().
std::unique_lock<std::recursive_mutex> lockPortAudio() {
    static std::recursive_mutex mutex;
    return std::unique_lock(mutex);
}

// The app shows these in the call window and the sound check (`ui/CMakeLists.txt` runs lupdate
// over this file); the command line loads no translation and keeps them English.
QString text(const char* source) {
    return QCoreApplication::translate("PortAudioBackend", source);
}

} // namespace

PortAudioSession::PortAudioSession()
    : m_status([] {
        const auto lock = lockPortAudio();
        return Pa_Initialize();
    }()) {}

PortAudioSession::~PortAudioSession() {
    const auto lock = lockPortAudio();
    if (m_status == paNoError)
        Pa_Terminate();
}

QString PortAudioSession::errorString() const {
    return describePortAudioError(m_status);
}

void PortAudioBackend::StreamCloser::operator()(PaStream* stream) const {
    const auto lock = lockPortAudio();
    if (Pa_IsStreamActive(stream) == 1)
        Pa_StopStream(stream);
    Pa_CloseStream(stream);
}

std::unique_ptr<PortAudioBackend> PortAudioBackend::create(QString* error) {
    auto session = std::make_unique<PortAudioSession>();
    if (!session->isValid()) {
        *error = text(QT_TRANSLATE_NOOP("PortAudioBackend", "the sound system could not start: %1"))
                     .arg(session->errorString());
        return nullptr;
    }
    return std::unique_ptr<PortAudioBackend>(new PortAudioBackend(std::move(session)));
}

PortAudioBackend::PortAudioBackend(std::unique_ptr<PortAudioSession> session)
    : m_session(std::move(session)) {}

PortAudioBackend::~PortAudioBackend() {
    stop();
}

QList<AudioDeviceInfo> PortAudioBackend::devices() const {
    const auto lock = lockPortAudio();
    QList<AudioDeviceInfo> list;
    const int count = Pa_GetDeviceCount();
    for (int i = 0; i < count; ++i) {
        const PaDeviceInfo* info = Pa_GetDeviceInfo(i);
        const PaHostApiInfo* host = info ? Pa_GetHostApiInfo(info->hostApi) : nullptr;
        if (!info || !host)
            continue;
        list.append({QString::fromUtf8(host->name), QString::fromUtf8(info->name),
                     info->maxInputChannels, info->maxOutputChannels});
    }
    return list;
}

bool PortAudioBackend::refreshDevices(QString* error) {
    if (m_input || m_output) {
        *error = text(QT_TRANSLATE_NOOP(
            "PortAudioBackend", "audio devices cannot be refreshed while a call uses them"));
        return false;
    }
    m_session.reset();
    auto session = std::make_unique<PortAudioSession>();
    if (!session->isValid()) {
        *error =
            text(QT_TRANSLATE_NOOP("PortAudioBackend", "the sound system could not restart: %1"))
                .arg(session->errorString());
        return false;
    }
    m_session = std::move(session);
    return true;
}

int PortAudioBackend::resolve(const AudioDeviceChoice& choice, Direction direction,
                              QString* error) const {
    const bool input = direction == Direction::Input;
    if (choice.name.isEmpty()) {
        const int device = input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
        if (device == paNoDevice)
            *error = input ? text(QT_TRANSLATE_NOOP("PortAudioBackend", "no microphone found"))
                           : text(QT_TRANSLATE_NOOP("PortAudioBackend", "no speaker found"));
        return device;
    }
    QStringList names;
    QList<int> indices;
    const int count = Pa_GetDeviceCount();
    for (int i = 0; i < count; ++i) {
        const PaDeviceInfo* info = Pa_GetDeviceInfo(i);
        const PaHostApiInfo* host = info ? Pa_GetHostApiInfo(info->hostApi) : nullptr;
        if (!info || !host)
            continue;
        if (!choice.hostApi.isEmpty() && QString::fromUtf8(host->name) != choice.hostApi)
            continue;
        if ((input ? info->maxInputChannels : info->maxOutputChannels) < 1)
            continue;
        names.append(QString::fromUtf8(info->name));
        indices.append(i);
    }
    if (const auto found = findSavedDevice(names, choice.name))
        return indices[*found];
    const QString device = choice.hostApi.isEmpty()
                               ? choice.name
                               : QStringLiteral("%1 (%2)").arg(choice.name, choice.hostApi);
    *error = (input ? text(QT_TRANSLATE_NOOP("PortAudioBackend", "microphone \"%1\" not found"))
                    : text(QT_TRANSLATE_NOOP("PortAudioBackend", "speaker \"%1\" not found")))
                 .arg(device);
    return paNoDevice;
}

PortAudioBackend::Stream PortAudioBackend::open(int device, Direction direction, AudioRings& rings,
                                                QString* error) {
    const bool input = direction == Direction::Input;
    const PaDeviceInfo* info = Pa_GetDeviceInfo(device);
    PaStreamParameters params{};
    params.device = device;
    params.channelCount = 1;
    params.sampleFormat = paFloat32;
    // PortAudio's "high" latency survives a loaded machine; the engine's jitter buffer dwarfs it.
    params.suggestedLatency =
        input ? info->defaultHighInputLatency : info->defaultHighOutputLatency;
    PaStream* raw = nullptr;
    const PaError status = Pa_OpenStream(&raw, input ? &params : nullptr, input ? nullptr : &params,
                                         kSampleRate, paFramesPerBufferUnspecified, paNoFlag,
                                         input ? inputCallback : outputCallback, &rings);
    if (status != paNoError) {
        *error = (input ? text(QT_TRANSLATE_NOOP("PortAudioBackend",
                                                 "microphone \"%1\" cannot be opened: %2"))
                        : text(QT_TRANSLATE_NOOP("PortAudioBackend",
                                                 "speaker \"%1\" cannot be opened: %2")))
                     .arg(QString::fromUtf8(info->name), describePortAudioError(status));
        return nullptr;
    }
    return Stream(raw);
}

bool PortAudioBackend::devicesPresent(QString* error) const {
    const auto lock = lockPortAudio();
    if (m_streams == Streams::CaptureAndPlayback &&
        resolve(m_inputChoice, Direction::Input, error) == paNoDevice)
        return false;
    return resolve(m_outputChoice, Direction::Output, error) != paNoDevice;
}

bool PortAudioBackend::start(AudioRings& rings, QString* error) {
    stop();
    const auto lock = lockPortAudio();
    const bool capture = m_streams == Streams::CaptureAndPlayback;
    const int inputDevice = capture ? resolve(m_inputChoice, Direction::Input, error) : paNoDevice;
    if (capture && inputDevice == paNoDevice)
        return false;
    const int outputDevice = resolve(m_outputChoice, Direction::Output, error);
    if (outputDevice == paNoDevice)
        return false;
    Stream input = capture ? open(inputDevice, Direction::Input, rings, error) : nullptr;
    if (capture && !input)
        return false;
    Stream output = open(outputDevice, Direction::Output, rings, error);
    if (!output)
        return false;
    for (PaStream* stream : {input.get(), output.get()}) {
        if (!stream)
            continue;
        const PaError status = Pa_StartStream(stream);
        if (status != paNoError) {
            *error = text(QT_TRANSLATE_NOOP("PortAudioBackend",
                                            "the audio devices opened but would not run: %1"))
                         .arg(describePortAudioError(status));
            return false;
        }
    }
    m_input = std::move(input);
    m_output = std::move(output);
    const AudioLatency l = latency();
    qCInfo(lcMedia) << "PortAudio streams running, input latency" << l.input.count() / 1000.0
                    << "ms, output latency" << l.output.count() / 1000.0 << "ms";
    return true;
}

void PortAudioBackend::stop() {
    m_input.reset();
    m_output.reset();
}

AudioLatency PortAudioBackend::latency() const {
    AudioLatency l;
    const auto toMicros = [](double seconds) {
        return std::chrono::microseconds(static_cast<long long>(seconds * 1e6));
    };
    if (m_input) {
        if (const PaStreamInfo* info = Pa_GetStreamInfo(m_input.get()))
            l.input = toMicros(info->inputLatency);
    }
    if (m_output) {
        if (const PaStreamInfo* info = Pa_GetStreamInfo(m_output.get()))
            l.output = toMicros(info->outputLatency);
    }
    return l;
}

double PortAudioBackend::outputStreamTime() const {
    return m_output ? Pa_GetStreamTime(m_output.get()) : 0.0;
}

} // namespace onionvoice::media
