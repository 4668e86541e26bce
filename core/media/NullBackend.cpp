// Null audio I/O (see NullBackend.h).
#include "media/NullBackend.h"

#include <algorithm>

namespace onionvoice::media {

NullBackend::NullBackend(Pacing pacing)
    : m_device(
          pacing, [](std::span<float> frame) { std::fill(frame.begin(), frame.end(), 0.0f); },
          [](std::span<const float>) {}) {}

NullBackend::~NullBackend() {
    m_device.stop();
}

bool NullBackend::start(AudioRings& rings, QString*) {
    m_device.start(rings);
    return true;
}

void NullBackend::stop() {
    m_device.stop();
}

} // namespace onionvoice::media
