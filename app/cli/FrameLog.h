// `--frame-log FILE`: per-frame timestamps for the end-to-end benchmark. Two instances on one
// host share CLOCK_MONOTONIC, so the sender's "sent" line and the receiver's "recv" line of the
// same frame give its one-way delay, and the events give setup times. Format, one per line:
//   # onionvoice-frame-log v1 (microseconds of CLOCK_MONOTONIC)
//   event NAME T_US            dial, ringing, answer, active, audio_start, ended, impair_t0
//   sent SEQ SLOT T_US         a packet left the encoder and went on link SLOT
//   recv SEQ SLOT T_US         first copy of frame SEQ arrived on link SLOT
// Lines are buffered in memory and written once, atomically, when the log is closed.
#pragma once

#include "call/CallTypes.h"

#include <QByteArray>
#include <QString>
#include <chrono>

namespace onionvoice::cli {

class FrameLog : public call::FrameObserver {
public:
    explicit FrameLog(QString path);
    ~FrameLog() override;

    static std::int64_t nowMicros();
    static std::int64_t micros(std::chrono::steady_clock::time_point t);

    void event(const char* name, std::int64_t tUs = nowMicros());
    void packetSent(std::uint32_t sequence, std::uint8_t slot) override;
    void frameArrived(std::uint32_t sequence, std::uint8_t slot) override;
    // Writes the file (QSaveFile); false with *error on failure.
    bool save(QString* error);

private:
    QString path_;
    QByteArray lines_;
};

} // namespace onionvoice::cli
