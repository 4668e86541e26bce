// Encoder and bounds-checked decoder of multipath wire records (layout in Record.h, big-endian).
#include "Record.h"

#include "WireIo.h"

#include <algorithm>

namespace onionvoice::multipath {
namespace {

bool validLink(LinkId link) {
    return link < kMaxLinks;
}

} // namespace

std::string_view describe(RecordError error) {
    switch (error) {
    case RecordError::None:
        return "no error";
    case RecordError::WrongSize:
        return "record has the wrong size";
    case RecordError::UnknownType:
        return "unknown record type";
    case RecordError::BadLinkId:
        return "link id out of range";
    case RecordError::TooManyScores:
        return "more link scores than links";
    case RecordError::Truncated:
        return "record content runs past its end";
    case RecordError::NoFrames:
        return "audio record without a fresh frame";
    case RecordError::BadFrameOrder:
        return "frames not strictly newest first";
    case RecordError::NonZeroPadding:
        return "padding is not zero";
    }
    return "unknown error";
}

bool encodeRecord(const Record& r, RecordBytes& out) {
    if (r.scores.size() > kMaxLinks || r.frames.empty() || r.freshFrames == 0 ||
        r.freshFrames > r.frames.size() || r.frames.size() > 255)
        return false;
    ByteWriter w(out);
    bool ok = w.u8(std::uint8_t(r.type)) && w.u32(r.txSeq) && w.u32(r.sendTimeMs) &&
              w.u32(r.echoTimeMs) && w.u16(r.echoHoldMs);
    for (LinkId link : r.history)
        ok = ok && w.u8(link);
    ok = ok && w.u8(std::uint8_t(r.scores.size()));
    for (const LinkScoreReport& s : r.scores)
        ok = ok && validLink(s.link) && w.u8(s.link) && w.u8(s.reorder) && w.u8(s.currentDelay) &&
             w.u8(s.newestTxSeq);
    const std::uint32_t newest = r.frames.front().seq;
    ok = ok && w.u32(newest) && w.u8(std::uint8_t(r.frames.size())) && w.u8(r.freshFrames);
    std::uint32_t previousBack = 0;
    for (std::size_t i = 0; ok && i < r.frames.size(); ++i) {
        const Frame& f = r.frames[i];
        const std::uint32_t back = newest - f.seq;
        if (back > 255 || (i > 0 && back <= previousBack) || f.data.size() > kMaxFrameBytes ||
            (i < r.freshFrames && f.quality != FrameQuality::Full))
            return false;
        previousBack = back;
        const auto reducedBit = std::uint16_t(f.quality == FrameQuality::Reduced ? 0x8000 : 0);
        ok = w.u8(std::uint8_t(back)) && w.u16(std::uint16_t(f.data.size()) | reducedBit) &&
             w.bytes(f.data);
    }
    if (!ok)
        return false;
    w.padWithZeros();
    return true;
}

DecodeResult decodeRecord(std::span<const std::uint8_t> bytes) {
    DecodeResult result;
    auto fail = [&result](RecordError e) {
        result.error = e;
        result.record = {};
        return result;
    };
    if (bytes.size() != kPlainRecordSize)
        return fail(RecordError::WrongSize);
    ByteReader in(bytes);
    Record& r = result.record;
    std::uint8_t type = 0;
    in.u8(type);
    if (type != std::uint8_t(RecordType::Audio))
        return fail(RecordError::UnknownType);
    r.type = RecordType(type);
    // The fixed header always fits in kPlainRecordSize, so these reads cannot fail.
    in.u32(r.txSeq);
    in.u32(r.sendTimeMs);
    in.u32(r.echoTimeMs);
    in.u16(r.echoHoldMs);
    for (LinkId& link : r.history) {
        in.u8(link);
        if (link != kNoLink && !validLink(link))
            return fail(RecordError::BadLinkId);
    }
    std::uint8_t scoreCount = 0;
    in.u8(scoreCount);
    if (scoreCount > kMaxLinks)
        return fail(RecordError::TooManyScores);
    r.scores.resize(scoreCount);
    for (LinkScoreReport& s : r.scores) {
        if (!(in.u8(s.link) && in.u8(s.reorder) && in.u8(s.currentDelay) && in.u8(s.newestTxSeq)))
            return fail(RecordError::Truncated);
        if (!validLink(s.link))
            return fail(RecordError::BadLinkId);
    }
    std::uint32_t newest = 0;
    std::uint8_t frameCount = 0;
    if (!(in.u32(newest) && in.u8(frameCount) && in.u8(r.freshFrames)))
        return fail(RecordError::Truncated);
    if (frameCount == 0 || r.freshFrames == 0 || r.freshFrames > frameCount)
        return fail(RecordError::NoFrames);
    r.frames.resize(frameCount);
    int previousBack = -1;
    for (std::size_t i = 0; i < r.frames.size(); ++i) {
        Frame& f = r.frames[i];
        std::uint8_t back = 0;
        std::uint16_t length = 0;
        if (!(in.u8(back) && in.u16(length)))
            return fail(RecordError::Truncated);
        if (int(back) <= previousBack)
            return fail(RecordError::BadFrameOrder);
        previousBack = back;
        f.seq = newest - back;
        f.quality = (length & 0x8000) != 0 ? FrameQuality::Reduced : FrameQuality::Full;
        length &= kMaxFrameBytes;
        if (i < r.freshFrames && f.quality != FrameQuality::Full)
            return fail(RecordError::NoFrames);
        if (!in.bytes(length, f.data))
            return fail(RecordError::Truncated);
    }
    if (!in.restIsZero())
        return fail(RecordError::NonZeroPadding);
    return result;
}

} // namespace onionvoice::multipath
