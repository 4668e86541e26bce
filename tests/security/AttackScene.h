// The scene of the attack tests on the private network: a victim engine that answers its
// contact (the friend) and rings nobody else through, the friend's engine, and the attacker's own
// tor, all ready before the attack starts.
#pragma once

#include "../testnet/TestnetEngine.h"
#include "call/CallEngine.h"
#include "tor/TorLauncher.h"

#include <QTest>

namespace onionvoice::testing {

// Starts the three and waits until the victim's service is published and both tors are ready.
// A failure is recorded as the test's (check QTest::currentTestFailed() after the call).
inline void setTheAttackScene(call::CallEngine& victim, call::CallEngine& friendEngine,
                              tor::TorLauncher& attacker) {
    using testnet::kStartTimeout;
    QString error;
    QVERIFY2(victim.start(&error), qPrintable(error));
    QVERIFY2(friendEngine.start(&error), qPrintable(error));
    QVERIFY(victim.contacts().add(
        {friendEngine.address(), QStringLiteral("Friend"), {}, false, false, {}, {}}, &error));
    QObject::connect(&victim, &call::CallEngine::incomingCall, &victim,
                     [&victim, &friendEngine](const QString& peer) {
                         if (peer == friendEngine.address())
                             victim.answer();
                     });
    attacker.start();
    QTRY_COMPARE_WITH_TIMEOUT(victim.service()->state(), tor::OnionService::State::Reachable,
                              kStartTimeout);
    QTRY_VERIFY_WITH_TIMEOUT(victim.service()->uploads().allSettled(), kStartTimeout);
    QTRY_COMPARE_WITH_TIMEOUT(friendEngine.torLauncher()->state(), tor::TorLauncher::State::Ready,
                              kStartTimeout);
    QTRY_COMPARE_WITH_TIMEOUT(attacker.state(), tor::TorLauncher::State::Ready, kStartTimeout);
}

} // namespace onionvoice::testing
