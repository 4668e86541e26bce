// GUI-thread sound outside calls.
#include "LocalAudio.h"

namespace onionvoice::gui {

LocalAudio::LocalAudio(QObject* parent)
    : QObject(parent) {
    timer_.setInterval(10);
    connect(&timer_, &QTimer::timeout, this, [this] { pump_(*rings_); });
}

LocalAudio::~LocalAudio() {
    stop();
}

bool LocalAudio::start(const QString& input, const QString& output, Pump pump, QString* error) {
    return open(media::PortAudioBackend::Streams::CaptureAndPlayback, input, output,
                std::move(pump), error);
}

bool LocalAudio::startPlayback(const QString& output, Pump pump, QString* error) {
    return open(media::PortAudioBackend::Streams::PlaybackOnly, {}, output, std::move(pump), error);
}

bool LocalAudio::open(media::PortAudioBackend::Streams streams, const QString& input,
                      const QString& output, Pump pump, QString* error) {
    stop();
    backend_ = media::PortAudioBackend::create(error);
    if (!backend_)
        return false;
    backend_->setStreams(streams);
    backend_->setInputDevice({{}, input});
    backend_->setOutputDevice({{}, output});
    rings_ = std::make_unique<media::AudioRings>();
    pump_ = std::move(pump);
    pump_(*rings_);
    if (!backend_->start(*rings_, error)) {
        backend_.reset();
        rings_.reset();
        return false;
    }
    timer_.start();
    return true;
}

void LocalAudio::stop() {
    timer_.stop();
    if (backend_)
        backend_->stop();
    backend_.reset();
    rings_.reset();
}

} // namespace onionvoice::gui
