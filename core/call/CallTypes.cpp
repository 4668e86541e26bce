// Human-readable names of call states and end reasons, and what the statistics snapshot derives.
// The app translates the names (its German translation holds them, `ui/CMakeLists.txt` runs
// lupdate over this file); the command line loads no translation, so its JSON keeps the English
// text.
#include "CallTypes.h"

#include <QCoreApplication>
#include <algorithm>

namespace onionvoice::call {
namespace {

QString text(const char* source) {
    return QCoreApplication::translate("CallTypes", source);
}

} // namespace

QString describe(EndReason reason) {
    switch (reason) {
    case EndReason::None:
        return text(QT_TRANSLATE_NOOP("CallTypes", "not ended"));
    case EndReason::HungUpLocally:
        return text(QT_TRANSLATE_NOOP("CallTypes", "you hung up"));
    case EndReason::HungUpByPeer:
        return text(QT_TRANSLATE_NOOP("CallTypes", "the other side hung up"));
    case EndReason::RejectedLocally:
        return text(QT_TRANSLATE_NOOP("CallTypes", "you rejected the call"));
    case EndReason::RejectedByPeer:
        return text(QT_TRANSLATE_NOOP("CallTypes", "the call was rejected"));
    case EndReason::Busy:
        return text(QT_TRANSLATE_NOOP("CallTypes", "busy"));
    case EndReason::NoAnswer:
        return text(QT_TRANSLATE_NOOP("CallTypes", "no answer"));
    case EndReason::Cancelled:
        return text(
            QT_TRANSLATE_NOOP("CallTypes", "the caller hung up before the call was answered"));
    case EndReason::NotAccepted:
        return text(QT_TRANSLATE_NOOP("CallTypes", "the call was not accepted"));
    case EndReason::Unreachable:
        return text(QT_TRANSLATE_NOOP("CallTypes", "the other side could not be reached"));
    case EndReason::NetworkFailure:
        return text(QT_TRANSLATE_NOOP("CallTypes", "the connection was lost"));
    case EndReason::ProtocolError:
        return text(QT_TRANSLATE_NOOP("CallTypes", "the other side sent invalid data"));
    case EndReason::AudioFailed:
        return text(QT_TRANSLATE_NOOP("CallTypes", "audio could not start"));
    }
    return text(QT_TRANSLATE_NOOP("CallTypes", "unknown"));
}

QString describe(CallState state) {
    switch (state) {
    case CallState::Idle:
        return text(QT_TRANSLATE_NOOP("CallTypes", "idle"));
    case CallState::Dialing:
        return text(QT_TRANSLATE_NOOP("CallTypes", "dialing"));
    case CallState::Ringing:
        return text(QT_TRANSLATE_NOOP("CallTypes", "ringing"));
    case CallState::Active:
        return text(QT_TRANSLATE_NOOP("CallTypes", "active"));
    case CallState::Ended:
        return text(QT_TRANSLATE_NOOP("CallTypes", "ended"));
    }
    return text(QT_TRANSLATE_NOOP("CallTypes", "unknown"));
}

int CallStatistics::linksUp() const {
    return int(std::count_if(links.begin(), links.end(),
                             [](const LinkStatistics& l) { return l.state == SlotState::Up; }));
}

} // namespace onionvoice::call
