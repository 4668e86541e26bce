// Human-readable names of call states and end reasons.
#include "CallTypes.h"

namespace onionvoice::call {

QString describe(EndReason reason) {
    switch (reason) {
    case EndReason::None:
        return QStringLiteral("not ended");
    case EndReason::HungUpLocally:
        return QStringLiteral("you hung up");
    case EndReason::HungUpByPeer:
        return QStringLiteral("the other side hung up");
    case EndReason::RejectedLocally:
        return QStringLiteral("you rejected the call");
    case EndReason::RejectedByPeer:
        return QStringLiteral("the call was rejected");
    case EndReason::Busy:
        return QStringLiteral("busy");
    case EndReason::NoAnswer:
        return QStringLiteral("no answer");
    case EndReason::Cancelled:
        return QStringLiteral("the caller hung up before the call was answered");
    case EndReason::NotAccepted:
        return QStringLiteral("the call was not accepted");
    case EndReason::Unreachable:
        return QStringLiteral("the other side could not be reached");
    case EndReason::NetworkFailure:
        return QStringLiteral("the connection was lost");
    case EndReason::ProtocolError:
        return QStringLiteral("the other side sent invalid data");
    }
    return QStringLiteral("unknown");
}

QString describe(CallState state) {
    switch (state) {
    case CallState::Idle:
        return QStringLiteral("idle");
    case CallState::Dialing:
        return QStringLiteral("dialing");
    case CallState::Ringing:
        return QStringLiteral("ringing");
    case CallState::Active:
        return QStringLiteral("active");
    case CallState::Ended:
        return QStringLiteral("ended");
    }
    return QStringLiteral("unknown");
}

} // namespace onionvoice::call
