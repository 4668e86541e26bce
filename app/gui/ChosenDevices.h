// The microphone and speaker the user chose, shared between the GUI thread, where Settings
// changes them, and the engine thread, which opens them each time a call starts: a device change
// applies to the next call without restarting tor and the engine.
#pragma once

#include "media/PortAudioBackend.h"

#include <QString>
#include <memory>
#include <mutex>

namespace onionvoice::gui {

class ChosenDevices {
public:
    void set(const QString& input, const QString& output) {
        const std::lock_guard lock(mutex_);
        input_ = input;
        output_ = output;
    }

    // A PortAudio backend on the devices chosen now (empty: the system default).
    std::unique_ptr<media::PortAudioBackend> open(QString* error) const {
        auto backend = media::PortAudioBackend::create(error);
        if (backend) {
            const std::lock_guard lock(mutex_);
            backend->setInputDevice({{}, input_});
            backend->setOutputDevice({{}, output_});
        }
        return backend;
    }

    // Whether the devices chosen now are there (PortAudioBackend::devicesPresent).
    bool present(QString* error) const {
        const auto backend = open(error);
        return backend && backend->devicesPresent(error);
    }

private:
    mutable std::mutex mutex_;
    QString input_;
    QString output_;
};

} // namespace onionvoice::gui
