// Handshake messages, their signatures, and the derivation of the call's keys.
#include "Handshake.h"

#include "media/VoiceCodec.h"
#include "multipath/SchedulingPolicy.h"
#include "multipath/WireIo.h"
#include "tor/OnionAddress.h"

#include <cstring>
#include <limits>
#include <sodium.h>
#include <stdexcept>

namespace onionvoice::call {
namespace {

using multipath::ByteReader;
using multipath::ByteWriter;

constexpr std::uint8_t kVersion = 1;
enum class Tag : std::uint8_t {
    Hello = 'H',
    Ringing = 'R',
    Accept = 'A',
    Refusal = 'X',
    Join = 'J'
};

constexpr char kKdfContext[crypto_kdf_CONTEXTBYTES] = {'O', 'V', 'c', 'a', 'l', 'l', '0', '1'};
enum KeyId : std::uint64_t { CallerToCallee = 1, CalleeToCaller = 2, JoinKey = 3, CallIdKey = 4 };

// The parts of a message a signature covers: everything before the signature itself.
constexpr std::size_t kHelloSigned = 2 + 56 + 56 + 32 + 32 + 8 + 8 + 1;
constexpr std::size_t kAcceptSigned = 2 + 32 + 32 + 8;

bool writeAddress(ByteWriter& w, const QString& address) {
    Q_ASSERT(address.size() == tor::kOnionAddressLength);
    const QByteArray latin = address.toLatin1();
    return latin.size() == tor::kOnionAddressLength &&
           w.bytes({reinterpret_cast<const std::uint8_t*>(latin.constData()),
                    std::size_t(latin.size())});
}

bool readAddress(ByteReader& r, QString& address) {
    std::array<std::uint8_t, tor::kOnionAddressLength> raw{};
    if (!r.bytes(raw))
        return false;
    address = QString::fromLatin1(reinterpret_cast<const char*>(raw.data()), qsizetype(raw.size()));
    return true;
}

bool writeParameters(ByteWriter& w, const CallParameters& p) {
    return w.u32(p.bitrate) && w.u16(p.packetMs) && w.u8(p.links) && w.u8(p.policy);
}

bool readParameters(ByteReader& r, CallParameters& p) {
    return r.u32(p.bitrate) && r.u16(p.packetMs) && r.u8(p.links) && r.u8(p.policy);
}

} // namespace

std::optional<QString> checkParameters(const CallParameters& p) {
    if (p.bitrate < 6000 || p.bitrate > 64000 || p.packetMs % 20 != 0 || p.packetMs == 0 ||
        p.packetMs > 60 || p.links == 0 || p.links > multipath::kMaxLinks ||
        p.policy >= multipath::policyNames().size())
        return QStringLiteral("call parameters out of range");
    // The largest packet the encoder may make must fit one record (score reports give way).
    const std::size_t peak =
        media::VoiceEncoder::maxPacketBytes(int(p.bitrate), std::chrono::milliseconds(p.packetMs));
    if (peak + multipath::kFrameEntryOverhead > multipath::frameSpace(0))
        return QStringLiteral(
            "bitrate too high for the packet period: packets would not fit a cell");
    return std::nullopt;
}

namespace {

template <typename Tail> SealedRecord writeMessage(Tag tag, Tail&& tail) {
    SealedRecord out{};
    ByteWriter w(out);
    w.u8(std::uint8_t(tag));
    w.u8(kVersion);
    tail(w);
    w.padWithZeros();
    return out;
}

struct Encoder {
    SealedRecord operator()(const Hello& h) const {
        return writeMessage(Tag::Hello, [&](ByteWriter& w) {
            writeAddress(w, h.caller) && writeAddress(w, h.callee) && w.bytes(h.nonce) &&
                w.bytes(h.ephemeral) && w.u64(h.unixMs) && writeParameters(w, h.proposed) &&
                w.u8(h.slot) && w.bytes(h.signature);
        });
    }
    SealedRecord operator()(const Ringing&) const {
        return writeMessage(Tag::Ringing, [](ByteWriter&) {});
    }
    SealedRecord operator()(const Accept& a) const {
        return writeMessage(Tag::Accept, [&](ByteWriter& w) {
            w.bytes(a.nonce) && w.bytes(a.ephemeral) && writeParameters(w, a.agreed) &&
                w.bytes(a.signature);
        });
    }
    SealedRecord operator()(const Refusal& x) const {
        return writeMessage(Tag::Refusal, [&](ByteWriter& w) { w.u8(std::uint8_t(x.reason)); });
    }
    SealedRecord operator()(const Join& j) const {
        return writeMessage(Tag::Join, [&](ByteWriter& w) {
            w.bytes(j.callId) && w.u8(j.slot) && w.bytes(j.token);
        });
    }
};

std::span<const std::uint8_t> asBytes(const char* text) {
    return {reinterpret_cast<const std::uint8_t*>(text), std::strlen(text)};
}

// "label" ‖ parts…, the exact bytes a signature covers.
std::vector<std::uint8_t> transcript(const char* label,
                                     std::initializer_list<std::span<const std::uint8_t>> parts) {
    std::vector<std::uint8_t> t;
    const auto l = asBytes(label);
    t.insert(t.end(), l.begin(), l.end());
    for (auto p : parts)
        t.insert(t.end(), p.begin(), p.end());
    return t;
}

std::vector<std::uint8_t> helloTranscript(const Hello& h) {
    const SealedRecord wire = Encoder{}(h);
    return transcript("onionvoice hello v1", {std::span(wire).first(kHelloSigned)});
}

std::vector<std::uint8_t> acceptTranscript(const Accept& a, const Hello& h) {
    const SealedRecord helloWire = Encoder{}(h);
    const SealedRecord acceptWire = Encoder{}(a);
    return transcript("onionvoice accept v1",
                      {std::span(helloWire), std::span(acceptWire).first(kAcceptSigned)});
}

Bytes32 randomBytes32() {
    Bytes32 b{};
    randombytes_buf(b.data(), b.size());
    return b;
}

} // namespace

SealedRecord encodeHandshake(const HandshakeMessage& message) {
    return std::visit(Encoder{}, message);
}

HandshakeDecode decodeHandshake(std::span<const std::uint8_t> bytes) {
    auto fail = [](const char* why) {
        return HandshakeDecode{std::nullopt, QString::fromLatin1(why)};
    };
    if (bytes.size() != multipath::kRecordSize)
        return fail("handshake message has the wrong size");
    ByteReader r(bytes);
    std::uint8_t tag = 0, version = 0;
    r.u8(tag);
    r.u8(version);
    if (version != kVersion)
        return fail("unknown handshake version");
    HandshakeMessage message;
    // Every field fits in the fixed size, so only content can be wrong.
    switch (Tag(tag)) {
    case Tag::Hello: {
        Hello h;
        readAddress(r, h.caller);
        readAddress(r, h.callee);
        r.bytes(h.nonce);
        r.bytes(h.ephemeral);
        r.u64(h.unixMs);
        readParameters(r, h.proposed);
        r.u8(h.slot);
        r.bytes(h.signature);
        message = h;
        break;
    }
    case Tag::Ringing:
        message = Ringing{};
        break;
    case Tag::Accept: {
        Accept a;
        r.bytes(a.nonce);
        r.bytes(a.ephemeral);
        readParameters(r, a.agreed);
        r.bytes(a.signature);
        message = a;
        break;
    }
    case Tag::Refusal: {
        std::uint8_t reason = 0;
        r.u8(reason);
        if (reason < std::uint8_t(RefusalReason::Rejected) ||
            reason > std::uint8_t(RefusalReason::Crossed))
            return fail("unknown refusal reason");
        message = Refusal{RefusalReason(reason)};
        break;
    }
    case Tag::Join: {
        Join j;
        r.bytes(j.callId);
        r.u8(j.slot);
        r.bytes(j.token);
        message = j;
        break;
    }
    default:
        return fail("unknown handshake message");
    }
    if (!r.restIsZero())
        return fail("handshake padding is not zero");
    return {message, {}};
}

EphemeralKey::EphemeralKey() {
    if (sodium_init() < 0)
        throw std::runtime_error("libsodium could not be initialised");
    randombytes_buf(secretKey_.data(), secretKey_.size());
    crypto_scalarmult_base(publicKey_.data(), secretKey_.data());
}

std::optional<SessionKey> EphemeralKey::sharedWith(const Bytes32& peerPublic) const {
    SessionKey shared;
    // libsodium refuses low-order points (an all-zero result).
    if (crypto_scalarmult(shared.data(), secretKey_.data(), peerPublic.data()) != 0)
        return std::nullopt;
    return shared;
}

Hello makeHello(const tor::OnionIdentity& caller, const QString& callee,
                const EphemeralKey& ephemeral, const CallParameters& proposed, std::uint8_t slot,
                std::chrono::milliseconds unixTime) {
    Hello h{caller.address(),
            callee,
            randomBytes32(),
            ephemeral.publicKey(),
            // To the minute: the exact clock of a caller is a fingerprint.
            std::uint64_t(unixTime.count() - unixTime.count() % 60000),
            proposed,
            slot,
            {}};
    h.signature = caller.sign(helloTranscript(h));
    return h;
}

std::optional<QString> verifyHello(const Hello& hello, const QString& ourAddress,
                                   std::chrono::milliseconds unixTime,
                                   std::chrono::milliseconds maxSkew) {
    const tor::AddressCheck caller = tor::checkOnionAddress(hello.caller);
    if (!caller.isValid() || caller.address != hello.caller)
        return QStringLiteral("caller address is not a valid onion address");
    if (hello.callee != ourAddress)
        return QStringLiteral("call is addressed to another onion address");
    // Checked before the signature: refuse times that do not even fit a signed 64-bit count.
    if (hello.unixMs > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        return QStringLiteral("caller's clock is too far off (or the hello is replayed)");
    const auto skew = std::chrono::milliseconds(std::int64_t(hello.unixMs)) - unixTime;
    if (skew > maxSkew || skew < -maxSkew)
        return QStringLiteral("caller's clock is too far off (or the hello is replayed)");
    if (auto bad = checkParameters(hello.proposed))
        return bad;
    if (hello.slot >= hello.proposed.links)
        return QStringLiteral("link slot out of range");
    if (!tor::OnionIdentity::verify(caller.publicKey, helloTranscript(hello), hello.signature))
        return QStringLiteral("caller's signature does not match its onion address");
    return std::nullopt;
}

Accept makeAccept(const tor::OnionIdentity& callee, const Hello& hello,
                  const EphemeralKey& ephemeral, const CallParameters& agreed) {
    Accept a{randomBytes32(), ephemeral.publicKey(), agreed, {}};
    a.signature = callee.sign(acceptTranscript(a, hello));
    return a;
}

std::optional<QString> verifyAccept(const Accept& accept, const Hello& hello) {
    const tor::AddressCheck callee = tor::checkOnionAddress(hello.callee);
    if (!callee.isValid())
        return QStringLiteral("callee address is not a valid onion address");
    if (auto bad = checkParameters(accept.agreed))
        return bad;
    const CallParameters& p = hello.proposed;
    const CallParameters& a = accept.agreed;
    if (a.bitrate > p.bitrate || a.links > p.links || a.packetMs != p.packetMs ||
        a.policy != p.policy)
        return QStringLiteral("callee agreed to parameters that were not proposed");
    if (!tor::OnionIdentity::verify(callee.publicKey, acceptTranscript(accept, hello),
                                    accept.signature))
        return QStringLiteral("callee's signature does not match its onion address");
    return std::nullopt;
}

CallParameters agreeParameters(const CallParameters& proposed, const CallParameters& limits) {
    CallParameters agreed = proposed;
    agreed.bitrate = std::min(proposed.bitrate, limits.bitrate);
    agreed.links = std::min(proposed.links, limits.links);
    return agreed;
}

std::optional<CallKeys> deriveCallKeys(Role role, const EphemeralKey& mine, const Hello& hello,
                                       const Accept& accept) {
    const Bytes32& peer = role == Role::Caller ? accept.ephemeral : hello.ephemeral;
    const auto shared = mine.sharedWith(peer);
    if (!shared)
        return std::nullopt;
    const SealedRecord helloWire = encodeHandshake(hello);
    const SealedRecord acceptWire = encodeHandshake(accept);
    tor::SecretBytes<crypto_kdf_KEYBYTES> master;
    crypto_generichash_state state;
    crypto_generichash_init(&state, shared->data(), shared->size(), master.size());
    crypto_generichash_update(&state, helloWire.data(), helloWire.size());
    crypto_generichash_update(&state, acceptWire.data(), acceptWire.size());
    crypto_generichash_final(&state, master.data(), master.size());
    sodium_memzero(&state, sizeof state);

    CallKeys keys;
    const bool caller = role == Role::Caller;
    crypto_kdf_derive_from_key(keys.send.data(), keys.send.size(),
                               caller ? CallerToCallee : CalleeToCaller, kKdfContext,
                               master.data());
    crypto_kdf_derive_from_key(keys.receive.data(), keys.receive.size(),
                               caller ? CalleeToCaller : CallerToCallee, kKdfContext,
                               master.data());
    crypto_kdf_derive_from_key(keys.join.data(), keys.join.size(), JoinKey, kKdfContext,
                               master.data());
    crypto_kdf_derive_from_key(keys.callId.data(), keys.callId.size(), CallIdKey, kKdfContext,
                               master.data());
    return keys;
}

multipath::RecordBytes encodeControl(ControlCode code) {
    multipath::RecordBytes plain{};
    plain[0] = kControlRecordType;
    plain[1] = std::uint8_t(code);
    return plain;
}

std::optional<ControlCode> decodeControl(std::span<const std::uint8_t> plain) {
    if (plain.size() != multipath::kPlainRecordSize || plain[0] != kControlRecordType ||
        plain[1] != std::uint8_t(ControlCode::HangUp))
        return std::nullopt;
    return ControlCode(plain[1]);
}

Join makeJoin(const CallKeys& keys, std::uint8_t slot) {
    Join j{keys.callId, slot, {}};
    std::array<std::uint8_t, 17> input{};
    std::copy(keys.callId.begin(), keys.callId.end(), input.begin());
    input[16] = slot;
    crypto_generichash(j.token.data(), j.token.size(), input.data(), input.size(), keys.join.data(),
                       keys.join.size());
    return j;
}

bool verifyJoin(const CallKeys& keys, const Join& join) {
    const Join expected = makeJoin(keys, join.slot);
    return sodium_memcmp(expected.callId.data(), join.callId.data(), join.callId.size()) == 0 &&
           sodium_memcmp(expected.token.data(), join.token.data(), join.token.size()) == 0;
}

EndReason endReasonFor(RefusalReason reason) {
    switch (reason) {
    case RefusalReason::Rejected:
        return EndReason::RejectedByPeer;
    case RefusalReason::Busy:
        return EndReason::Busy;
    case RefusalReason::NotAccepted:
        return EndReason::NotAccepted;
    case RefusalReason::BadRequest:
        return EndReason::ProtocolError;
    case RefusalReason::NoAnswer:
        return EndReason::NoAnswer;
    case RefusalReason::Cancelled:
        return EndReason::Cancelled;
    case RefusalReason::Crossed: // the crossing call ends ours (CallEngine::yieldToCrossingCall)
        return EndReason::Cancelled;
    }
    return EndReason::ProtocolError;
}

} // namespace onionvoice::call
