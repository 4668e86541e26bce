// Unit tests of the call handshake: message round trips, refusal of garbage, an impostor caller,
// a Hello for someone else or from a skewed clock, a tampered Accept, keys that match across the
// two roles, and join tokens bound to the call.
#include "call/Handshake.h"

#include <QTest>

using namespace onionvoice::call;
using onionvoice::tor::OnionIdentity;
using namespace std::chrono_literals;

namespace {

constexpr std::chrono::milliseconds kNow{1'790'000'000'000};

OnionIdentity identity(std::uint8_t n) {
    std::array<std::uint8_t, 32> seed{};
    seed.fill(n);
    return OnionIdentity::fromSeed(seed);
}

} // namespace

class HandshakeTest : public QObject {
    Q_OBJECT
private slots:
    void messagesRoundTrip() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey ea, eb;
        const Hello hello = makeHello(alice, bob.address(), ea, {}, 0, kNow);
        const Accept accept = makeAccept(bob, hello, eb, {24000, 40, 8, 4});
        CallKeys keys = *deriveCallKeys(Role::Caller, ea, hello, accept);
        for (const HandshakeMessage& m :
             {HandshakeMessage(hello), HandshakeMessage(Ringing{}), HandshakeMessage(accept),
              HandshakeMessage(Refusal{RefusalReason::Busy}),
              HandshakeMessage(Refusal{RefusalReason::Crossed}),
              HandshakeMessage(makeJoin(keys, 7))}) {
            const SealedRecord wire = encodeHandshake(m);
            const HandshakeDecode d = decodeHandshake(wire);
            QVERIFY2(d.message.has_value(), qPrintable(d.error));
            QVERIFY(*d.message == m);
        }
    }

    void garbageIsRefusedWithAReason() {
        SealedRecord wire = encodeHandshake(Ringing{});
        wire[0] = 'Q';
        QVERIFY(!decodeHandshake(wire).error.isEmpty());
        wire = encodeHandshake(Ringing{});
        wire[1] = 9;
        QVERIFY(!decodeHandshake(wire).message.has_value());
        wire = encodeHandshake(Ringing{});
        wire[300] = 1;
        QVERIFY(!decodeHandshake(wire).message.has_value());
        wire = encodeHandshake(Refusal{});
        wire[2] = 77;
        QVERIFY(!decodeHandshake(wire).message.has_value());
        QVERIFY(!decodeHandshake(std::span(wire).first(100)).message.has_value());
    }

    void genuineHelloIsAccepted() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey e;
        const Hello hello = makeHello(alice, bob.address(), e, {}, 0, kNow);
        QCOMPARE(verifyHello(hello, bob.address(), kNow + 3s, 10min), std::nullopt);
    }

    void impostorIsRefused() {
        // Mallory signs a Hello that claims to come from Alice's (valid) address.
        const OnionIdentity alice = identity(1), bob = identity(2), mallory = identity(3);
        EphemeralKey e;
        Hello forged = makeHello(mallory, bob.address(), e, {}, 0, kNow);
        forged.caller = alice.address();
        QVERIFY(verifyHello(forged, bob.address(), kNow, 10min).has_value());
        // And a genuine Hello with a changed field no longer verifies.
        Hello tampered = makeHello(alice, bob.address(), e, {}, 0, kNow);
        tampered.proposed.links = 11;
        QVERIFY(verifyHello(tampered, bob.address(), kNow, 10min).has_value());
    }

    // The exact clock of a caller is a fingerprint: the Hello carries it to the minute only.
    void helloClockIsToTheMinute() {
        const auto alice = OnionIdentity::generate();
        const auto bob = OnionIdentity::generate();
        EphemeralKey e;
        const Hello hello = makeHello(alice, bob.address(), e, {}, 0, kNow + 12345ms);
        QCOMPARE(hello.unixMs % 60000, 0u);
        QVERIFY(std::int64_t(hello.unixMs) <= (kNow + 12345ms).count());
        QCOMPARE(verifyHello(hello, bob.address(), kNow + 12345ms, 2min), std::nullopt);
    }

    void helloForSomeoneElseOrStaleIsRefused() {
        const OnionIdentity alice = identity(1), bob = identity(2), carol = identity(4);
        EphemeralKey e;
        const Hello hello = makeHello(alice, bob.address(), e, {}, 0, kNow);
        QVERIFY(verifyHello(hello, carol.address(), kNow, 10min).has_value());
        QVERIFY(verifyHello(hello, bob.address(), kNow + 11min, 10min).has_value());
        QVERIFY(verifyHello(hello, bob.address(), kNow - 11min, 10min).has_value());
        Hello junk = hello;
        junk.caller = QString(56, 'a');
        QVERIFY(verifyHello(junk, bob.address(), kNow, 10min).has_value());
        const Hello silly = makeHello(alice, bob.address(), e, {1000, 40, 12, 4}, 0, kNow);
        QVERIFY(verifyHello(silly, bob.address(), kNow, 10min).has_value());
    }

    void acceptIsBoundToTheHelloAndTheCallee() {
        const OnionIdentity alice = identity(1), bob = identity(2), mallory = identity(3);
        EphemeralKey ea, eb;
        const Hello hello = makeHello(alice, bob.address(), ea, {}, 0, kNow);
        const CallParameters agreed = agreeParameters(hello.proposed, {24000, 40, 8, 4});
        QCOMPARE(agreed.bitrate, 24000u);
        QCOMPARE(agreed.links, std::uint8_t(8));
        const Accept accept = makeAccept(bob, hello, eb, agreed);
        QCOMPARE(verifyAccept(accept, hello), std::nullopt);
        QVERIFY(verifyAccept(makeAccept(mallory, hello, eb, agreed), hello).has_value());
        const Hello other = makeHello(alice, bob.address(), ea, {}, 0, kNow);
        QVERIFY(verifyAccept(accept, other).has_value()); // fresh nonce: another call
        Accept greedy = makeAccept(bob, hello, eb, {64000, 40, 12, 4});
        QVERIFY(verifyAccept(greedy, hello).has_value()); // more than proposed
    }

    void bothSidesDeriveMatchingKeys() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey ea, eb;
        const Hello hello = makeHello(alice, bob.address(), ea, {}, 0, kNow);
        const Accept accept = makeAccept(bob, hello, eb, hello.proposed);
        const auto caller = deriveCallKeys(Role::Caller, ea, hello, accept);
        const auto callee = deriveCallKeys(Role::Callee, eb, hello, accept);
        QVERIFY(caller && callee);
        QVERIFY(caller->send.view()[0] == callee->receive.view()[0]);
        QVERIFY(std::equal(caller->send.view().begin(), caller->send.view().end(),
                           callee->receive.view().begin()));
        QVERIFY(std::equal(caller->receive.view().begin(), caller->receive.view().end(),
                           callee->send.view().begin()));
        QVERIFY(!std::equal(caller->send.view().begin(), caller->send.view().end(),
                            caller->receive.view().begin()));
        QCOMPARE(caller->callId, callee->callId);

        // Sealed by one side, opened by the other.
        RecordSealer sealer(caller->send);
        RecordOpener opener(callee->receive);
        onionvoice::multipath::RecordBytes plain{}, out{};
        plain.fill(0x42);
        QCOMPARE(opener.open(sealer.seal(plain), out), RecordOpener::Outcome::Opened);
        QCOMPARE(out, plain);

        // A third party's ephemeral key gives other keys.
        EphemeralKey ec;
        const auto stranger = deriveCallKeys(Role::Callee, ec, hello, accept);
        QVERIFY(!std::equal(stranger->receive.view().begin(), stranger->receive.view().end(),
                            caller->send.view().begin()));
    }

    void joinTokensAreBoundToTheCall() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey ea, eb, ec, ed;
        const Hello hello = makeHello(alice, bob.address(), ea, {}, 0, kNow);
        const Accept accept = makeAccept(bob, hello, eb, hello.proposed);
        const CallKeys caller = *deriveCallKeys(Role::Caller, ea, hello, accept);
        const CallKeys callee = *deriveCallKeys(Role::Callee, eb, hello, accept);
        const Join join = makeJoin(caller, 5);
        QVERIFY(verifyJoin(callee, join));
        Join otherSlot = join;
        otherSlot.slot = 6;
        QVERIFY(!verifyJoin(callee, otherSlot));
        Join forged = join;
        forged.token[0] ^= 1;
        QVERIFY(!verifyJoin(callee, forged));
        // A join from another call between the same people is refused.
        const Hello hello2 = makeHello(alice, bob.address(), ec, {}, 0, kNow);
        const Accept accept2 = makeAccept(bob, hello2, ed, hello2.proposed);
        const CallKeys otherCall = *deriveCallKeys(Role::Caller, ec, hello2, accept2);
        QVERIFY(!verifyJoin(callee, makeJoin(otherCall, 5)));
    }

    void absurdTimeAndParametersAreRefused() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey e;
        Hello future = makeHello(alice, bob.address(), e, {}, 0, kNow);
        future.unixMs = std::uint64_t(1) << 63; // would overflow a signed count
        QVERIFY(verifyHello(future, bob.address(), kNow, 10min).has_value());
        QVERIFY(checkParameters({64000, 60, 12, 4}).has_value()); // 720-byte packets
        QVERIFY(checkParameters({32000, 40, 12, 4}) == std::nullopt);
        QVERIFY(checkParameters({32000, 40, 17, 4}).has_value());
        QVERIFY(checkParameters({32000, 40, 12, 9}).has_value());
    }

    void acceptMustKeepThePolicy() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey ea, eb;
        const Hello hello = makeHello(alice, bob.address(), ea, {32000, 40, 12, 4}, 0, kNow);
        QVERIFY(verifyAccept(makeAccept(bob, hello, eb, {32000, 40, 12, 2}), hello).has_value());
    }

    void slotOutOfRangeIsRefused() {
        const OnionIdentity alice = identity(1), bob = identity(2);
        EphemeralKey e;
        const Hello hello = makeHello(alice, bob.address(), e, {32000, 40, 4, 4}, 4, kNow);
        QVERIFY(verifyHello(hello, bob.address(), kNow, 10min).has_value());
    }

    void controlRecords() {
        const auto plain = encodeControl(ControlCode::HangUp);
        QCOMPARE(decodeControl(plain), ControlCode::HangUp);
        onionvoice::multipath::RecordBytes audio{};
        audio[0] = 1;
        QVERIFY(!decodeControl(audio).has_value());
        auto unknown = plain;
        unknown[1] = 9;
        QVERIFY(!decodeControl(unknown).has_value());
    }

    void degenerateEphemeralKeyIsRefused() {
        EphemeralKey e;
        QVERIFY(!e.sharedWith(Bytes32{}).has_value());
    }
};

QTEST_APPLESS_MAIN(HandshakeTest)
#include "tst_handshake.moc"
