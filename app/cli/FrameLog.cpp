// Frame timestamps for end-to-end measurement (see FrameLog.h).
#include "FrameLog.h"

#include "tor/PrivateFile.h"

#include <QLoggingCategory>

namespace onionvoice::cli {
namespace {
Q_LOGGING_CATEGORY(lcFrameLog, "onionvoice.cli.framelog")
}

FrameLog::FrameLog(QString path)
    : path_(std::move(path)) {
    lines_.reserve(1 << 20);
    lines_ += "# onionvoice-frame-log v1 (microseconds of CLOCK_MONOTONIC)\n";
}

FrameLog::~FrameLog() {
    QString error;
    if (!save(&error))
        qCWarning(lcFrameLog).noquote() << "frame log not written:" << error;
}

// steady_clock is CLOCK_MONOTONIC on Linux: one clock for every process of the host.
std::int64_t FrameLog::micros(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

std::int64_t FrameLog::nowMicros() {
    return micros(std::chrono::steady_clock::now());
}

void FrameLog::event(const char* name, std::int64_t tUs) {
    lines_ += "event " + QByteArray(name) + ' ' + QByteArray::number(tUs) + '\n';
}

void FrameLog::packetSent(std::uint32_t sequence, std::uint8_t slot) {
    lines_ += "sent " + QByteArray::number(sequence) + ' ' + QByteArray::number(slot) + ' ' +
              QByteArray::number(nowMicros()) + '\n';
}

void FrameLog::frameArrived(std::uint32_t sequence, std::uint8_t slot) {
    lines_ += "recv " + QByteArray::number(sequence) + ' ' + QByteArray::number(slot) + ' ' +
              QByteArray::number(nowMicros()) + '\n';
}

bool FrameLog::save(QString* error) {
    if (path_.isEmpty())
        return true;
    if (!tor::writePrivateFile(path_, lines_, error))
        return false;
    path_.clear(); // written once
    return true;
}

} // namespace onionvoice::cli
