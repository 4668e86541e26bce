// The call handshake and link joining. Before a call's keys exist, a link carries handshake
// messages, each padded to exactly one relay-cell payload like every record:
//   caller → callee  Hello   (caller and callee addresses, nonce, ephemeral X25519 key, time,
//                             proposed parameters; signed by the caller's identity key)
//   callee → caller  Ringing, then Accept (nonce, ephemeral key, agreed parameters; signed by
//                             the callee's identity key over the whole Hello) or Refusal
//   extra links      Join    (call id, slot, token bound to the call's keys)
// The callee is already authenticated by tor (the caller dialled its onion address); its
// signature binds the keys to the address all the same. Keys per direction come from both
// ephemeral keys and both messages through libsodium's KDF.
#pragma once

#include "CallTypes.h"
#include "RecordSealer.h"
#include "tor/OnionIdentity.h"

#include <QString>
#include <array>
#include <chrono>
#include <optional>
#include <span>
#include <variant>

namespace onionvoice::call {

using Bytes32 = std::array<std::uint8_t, 32>;
using Signature = std::array<std::uint8_t, 64>;
using CallId = std::array<std::uint8_t, 16>;

struct CallParameters {
    std::uint32_t bitrate = 32000;
    std::uint16_t packetMs = 40;
    std::uint8_t links = 12;
    std::uint8_t policy = 4; // index into multipath::policyNames()
    friend bool operator==(const CallParameters&, const CallParameters&) = default;
};

struct Hello {
    QString caller, callee; // onion addresses, 56 characters
    Bytes32 nonce{};
    Bytes32 ephemeral{};
    std::uint64_t unixMs = 0;
    CallParameters proposed;
    std::uint8_t slot = 0; // the link slot this Hello travels on
    Signature signature{};
    friend bool operator==(const Hello&, const Hello&) = default;
};

struct Ringing {
    friend bool operator==(const Ringing&, const Ringing&) = default;
};

struct Accept {
    Bytes32 nonce{};
    Bytes32 ephemeral{};
    CallParameters agreed;
    Signature signature{};
    friend bool operator==(const Accept&, const Accept&) = default;
};

enum class RefusalReason : std::uint8_t {
    Rejected = 1,
    Busy = 2,
    NotAccepted = 3,
    BadRequest = 4,
    NoAnswer = 5,
    Cancelled = 6, // sent by the caller: it hung up before the answer
    // Our calls crossed (each dialled the other at once): the lower address's call goes on, and
    // the caller that hears this answers it instead of waiting for its own (CallEngine).
    Crossed = 7,
};
struct Refusal {
    RefusalReason reason = RefusalReason::Rejected;
    friend bool operator==(const Refusal&, const Refusal&) = default;
};
// How a call ends when the peer sends this refusal.
EndReason endReasonFor(RefusalReason reason);

struct Join {
    CallId callId{};
    std::uint8_t slot = 0;
    Bytes32 token{};
    friend bool operator==(const Join&, const Join&) = default;
};

using HandshakeMessage = std::variant<Hello, Ringing, Accept, Refusal, Join>;

SealedRecord encodeHandshake(const HandshakeMessage& message);

struct HandshakeDecode {
    std::optional<HandshakeMessage> message;
    QString error;
};
// Any byte string: a message, or a reason (never a crash).
HandshakeDecode decodeHandshake(std::span<const std::uint8_t> bytes);

// An ephemeral X25519 key pair, wiped when it goes away.
class EphemeralKey {
public:
    EphemeralKey();
    const Bytes32& publicKey() const { return publicKey_; }
    // The X25519 shared secret with a peer's public key; nullopt for a degenerate peer key.
    std::optional<SessionKey> sharedWith(const Bytes32& peerPublic) const;

private:
    Bytes32 publicKey_{};
    tor::SecretBytes<32> secretKey_;
};

Hello makeHello(const tor::OnionIdentity& caller, const QString& callee,
                const EphemeralKey& ephemeral, const CallParameters& proposed, std::uint8_t slot,
                std::chrono::milliseconds unixTime);
// Checks the caller's signature against its claimed address, that the Hello is for `ourAddress`,
// and that its time is within `maxSkew` of ours. Returns a reason when it fails.
std::optional<QString> verifyHello(const Hello& hello, const QString& ourAddress,
                                   std::chrono::milliseconds unixTime,
                                   std::chrono::milliseconds maxSkew);

Accept makeAccept(const tor::OnionIdentity& callee, const Hello& hello,
                  const EphemeralKey& ephemeral, const CallParameters& agreed);
std::optional<QString> verifyAccept(const Accept& accept, const Hello& hello);

// Whether parameters are usable at all (ranges, and the largest packet fits one record); a reason
// when not.
std::optional<QString> checkParameters(const CallParameters& parameters);

// What the callee agrees to: the caller's proposal within the callee's own limits.
CallParameters agreeParameters(const CallParameters& proposed, const CallParameters& limits);

enum class Role { Caller, Callee };

struct CallKeys {
    SessionKey send, receive, join;
    CallId callId{};
};
std::optional<CallKeys> deriveCallKeys(Role role, const EphemeralKey& mine, const Hello& hello,
                                       const Accept& accept);

// Control records travel sealed like audio records; their first byte tells them apart from
// multipath records (RecordType::Audio = 1).
inline constexpr std::uint8_t kControlRecordType = 2;
enum class ControlCode : std::uint8_t { HangUp = 1 };
multipath::RecordBytes encodeControl(ControlCode code);
// nullopt when `plain` is not a control record.
std::optional<ControlCode> decodeControl(std::span<const std::uint8_t> plain);

Join makeJoin(const CallKeys& keys, std::uint8_t slot);
bool verifyJoin(const CallKeys& keys, const Join& join);

} // namespace onionvoice::call
