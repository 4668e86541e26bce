// The test as a caller over raw links, for tests where the caller does what the engine never
// would (garbles, replays, joins a slot twice): the handshake with a given identity on a control
// link, answered by the callee.
#pragma once

#include "../testnet/TestnetEngine.h"
#include "call/CallSession.h"
#include "call/Handshake.h"
#include "net/OnionLink.h"
#include "tor/OnionIdentity.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>
#include <optional>

namespace onionvoice::call::testing {

// Sends a Hello as `caller` to `callee` on `control` and returns the call's keys once the callee
// answered (Ringing, then Accept); nullopt when it did not within the call timeout or answered
// something else.
inline std::optional<CallKeys> rawHandshake(net::OnionLink& control,
                                            const tor::OnionIdentity& caller, const QString& callee,
                                            const CallParameters& proposed) {
    QSignalSpy heard(&control, &net::OnionLink::recordReceived);
    EphemeralKey e;
    const Hello hello = makeHello(caller, callee, e, proposed, 0,
                                  std::chrono::milliseconds(QDateTime::currentMSecsSinceEpoch()));
    control.sendRecord(encodeHandshake(hello));
    // The callee's audio records may follow the Accept in the same poll interval.
    if (!QTest::qWaitFor([&] { return heard.size() >= 2; }, testnet::kCallTimeout))
        return std::nullopt;
    const auto accept = decodeHandshake(bytesOf(heard.at(1).at(0).toByteArray()));
    if (!accept.message || !std::holds_alternative<Accept>(*accept.message))
        return std::nullopt;
    return deriveCallKeys(Role::Caller, e, hello, std::get<Accept>(*accept.message));
}

} // namespace onionvoice::call::testing
