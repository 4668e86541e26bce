// Sealing of multipath records for the wire: ChaCha20-Poly1305 (IETF) under the direction's key,
// with an explicit 64-bit counter as nonce, so a sealed record is still exactly one relay-cell
// payload. The opening side keeps a replay window: a record replayed on any link, forged, or from
// the wrong key is refused.
#pragma once

#include "multipath/Record.h"
#include "tor/SecretBytes.h"

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>

namespace onionvoice::call {

using SessionKey = tor::SecretBytes<32>;
using SealedRecord = std::array<std::uint8_t, multipath::kRecordSize>;

class RecordSealer {
public:
    explicit RecordSealer(const SessionKey& key);
    // Seals the next record; every call uses a new counter, so a nonce never repeats.
    SealedRecord seal(std::span<const std::uint8_t, multipath::kPlainRecordSize> plain);

private:
    SessionKey key_;
    std::uint64_t counter_ = 0;
};

class RecordOpener {
public:
    enum class Outcome { Opened, Forged, Replayed, TooOld };

    explicit RecordOpener(const SessionKey& key);
    // Authenticates and decrypts; only an authentic record moves the replay window.
    Outcome open(std::span<const std::uint8_t, multipath::kRecordSize> sealed,
                 multipath::RecordBytes& plain);

    // Records may arrive this far behind the newest one (reordering across links).
    static constexpr std::uint64_t kWindow = 4096;

private:
    SessionKey key_;
    std::optional<std::uint64_t> newest_;
    std::bitset<kWindow> seen_; // bit (counter % kWindow) for counters in the window
};

} // namespace onionvoice::call
