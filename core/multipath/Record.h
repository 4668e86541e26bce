// Wire records of the multipath engine: the fixed-size unit that carries audio frames and link
// monitoring metadata over one Tor link, and its encoder and bounds-checked decoder.
#pragma once

#include "Types.h"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace onionvoice::multipath {

// A Tor cell is 514 bytes: 4 bytes circuit id, 1 byte command, 509 bytes payload. A RELAY_DATA
// cell spends 11 bytes of that payload on its relay header (relay command, recognized, stream id,
// digest, length), which leaves 498 bytes of stream data. Every record is exactly that long, so
// each record costs exactly one cell and the redundancy in it rides in what would be padding.
inline constexpr std::size_t kTorCellSize = 514;
inline constexpr std::size_t kRelayCellPayload = kTorCellSize - 4 - 1 - 11;
inline constexpr std::size_t kRecordSize = kRelayCellPayload;

// The call layer seals each record with an AEAD; its 8-byte nonce counter and 16-byte Poly1305 tag
// come out of the same 498 bytes, so the plaintext a record encodes is smaller.
inline constexpr std::size_t kSealOverhead = 8 + 16;
inline constexpr std::size_t kPlainRecordSize = kRecordSize - kSealOverhead;

// How many past transmissions a record names the links of (lets the receiver blame gaps).
inline constexpr std::size_t kHistoryLength = 16;

inline constexpr std::uint32_t kNoEcho = 0xFFFFFFFF;

enum class RecordType : std::uint8_t {
    Audio = 1,
};

// One link's score as measured by the side that sends it, in wire units, 4 bytes in all (12
// reports take 48 bytes, which leaves room for a third frame in a record at 32 kbit/s):
//  - reorder: DONAR's out-of-order metric, the mean number of records that arrived before a
//    record on this link although sent after it, over the last window; in 1/16 of a record,
//    saturating at 255.
//  - currentDelay: relative one-way delay in units of 4 ms (saturating at 255, i.e. ≥ 1020 ms),
//    counted above the fastest record seen on any link in the last minute: the latest sample or,
//    when a record sent on the link is overdue, how long it has been overdue. (The sender keeps
//    the history of these reports itself, so the window's largest delay needs no byte.)
//  - newestTxSeq: low 8 bits of the newest transmission received on the link. A link is one TCP
//    stream, so this acknowledges every earlier record sent on it: the sender learns which of its
//    links have stalled even when it sends nothing on any healthy link. The sender matches the 8
//    bits against the transmissions it still has outstanding on that link.
struct LinkScoreReport {
    LinkId link = kNoLink;
    std::uint8_t reorder = 0;
    std::uint8_t currentDelay = 0;
    std::uint8_t newestTxSeq = 0;
    friend bool operator==(const LinkScoreReport&, const LinkScoreReport&) = default;
};
inline constexpr std::uint8_t kReorderUnitsPerRecord = 16;
inline constexpr int kDelayUnitMs = 4;

// A piggybacked frame that does not fit at full size may travel as its reduced encoding (a
// low-bitrate copy of the same audio made by the codec): lower quality, but there in time.
enum class FrameQuality : std::uint8_t { Full, Reduced };

struct Frame {
    std::uint32_t seq = 0;
    std::vector<std::uint8_t> data;
    FrameQuality quality = FrameQuality::Full;
    friend bool operator==(const Frame&, const Frame&) = default;
};

struct Record {
    RecordType type = RecordType::Audio;
    std::uint32_t txSeq = 0;      // per direction, +1 for every record sent on any link
    std::uint32_t sendTimeMs = 0; // sender's clock, ms since its call start
    // Echo of the newest record received on the link this record travels on: its sendTimeMs and
    // how long the sender held it before this record left. Gives the RTT with no extra record.
    std::uint32_t echoTimeMs = kNoEcho;
    std::uint16_t echoHoldMs = 0;
    // history[k] is the link of transmission txSeq − 1 − k (kNoLink before the first).
    std::array<LinkId, kHistoryLength> history{};
    std::vector<LinkScoreReport> scores; // at most kMaxLinks
    // Newest first; the first `freshFrames` are this packet's own audio, the rest piggybacked.
    std::uint8_t freshFrames = 0;
    std::vector<Frame> frames;
    friend bool operator==(const Record&, const Record&) = default;
};

// Sizes used by the sender to decide how many frames fit.
inline constexpr std::size_t kFixedHeaderSize = 1 + 4 + 4 + 4 + 2 + kHistoryLength + 1;
inline constexpr std::size_t kScoreEntrySize = 4;
inline constexpr std::size_t kFramesHeaderSize = 4 + 1 + 1;
inline constexpr std::size_t kFrameEntryOverhead = 1 + 2; // back, length (top bit: reduced)
inline constexpr std::size_t kMaxFrameBytes = 0x7FFF;
constexpr std::size_t frameSpace(std::size_t scoreCount) {
    return kPlainRecordSize - kFixedHeaderSize - scoreCount * kScoreEntrySize - kFramesHeaderSize;
}

enum class RecordError {
    None,
    WrongSize,
    UnknownType,
    BadLinkId,
    TooManyScores,
    Truncated,
    NoFrames,
    BadFrameOrder,
    NonZeroPadding,
};
std::string_view describe(RecordError error);

using RecordBytes = std::array<std::uint8_t, kPlainRecordSize>;

// Encodes `record`; returns false (and leaves `out` unspecified) if it does not fit or is invalid.
bool encodeRecord(const Record& record, RecordBytes& out);

struct DecodeResult {
    RecordError error = RecordError::None;
    Record record;
};
// Decodes any byte string without reading out of bounds; anything but a well-formed record of
// exactly kPlainRecordSize bytes yields a typed error.
DecodeResult decodeRecord(std::span<const std::uint8_t> bytes);

} // namespace onionvoice::multipath
