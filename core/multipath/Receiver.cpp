// Frame de-duplication and delivery (first copy wins).
#include "Receiver.h"

namespace onionvoice::multipath {

void Receiver::onRecord(Time now, LinkId link, const Record& record,
                        std::vector<ReceivedFrame>& out) {
    for (std::size_t i = 0; i < record.frames.size(); ++i) {
        const Frame& f = record.frames[i];
        // Frame numbers wrap (a peer's piggybacked copy of a frame "before 0" is 2^32 - 1), so
        // they are compared by difference: taken as the newest, a wrapped number had every later
        // frame dropped as stale.
        const std::int32_t ahead = newest_ ? std::int32_t(f.seq - *newest_) : 0;
        if (ahead <= -std::int32_t(kWindow)) {
            ++counters_.stale;
            continue;
        }
        std::uint32_t& slot = seenPlusOne_[f.seq % kWindow];
        FrameQuality& quality = seenQuality_[f.seq % kWindow];
        const CopyKind copy = i < record.freshFrames ? CopyKind::Fresh : CopyKind::Piggybacked;
        if (slot == f.seq + 1) {
            if (quality == FrameQuality::Reduced && f.quality == FrameQuality::Full) {
                quality = FrameQuality::Full;
                ++counters_.upgrades;
                out.push_back({f.seq, now, link, copy, f.quality, f.data});
            } else {
                ++counters_.duplicates;
            }
            continue;
        }
        slot = f.seq + 1;
        quality = f.quality;
        // A frame far ahead (a peer's bug, or a hostile one) would leave every genuine frame
        // after it stale: the newest follows such a jump only once kFollowRun frames in a row
        // confirm it (a real one: the links came back after a long break). The frames are
        // delivered either way; the jitter buffer refuses what is out of its reach.
        if (!newest_ || (ahead > 0 && ahead <= kFarAhead)) {
            newest_ = f.seq;
            farRun_ = 0;
        } else if (ahead > kFarAhead && ++farRun_ >= kFollowRun) {
            newest_ = f.seq;
            farRun_ = 0;
        }
        ++(copy == CopyKind::Fresh ? counters_.freshFirst : counters_.piggybackedFirst);
        counters_.reducedFirst += f.quality == FrameQuality::Reduced ? 1 : 0;
        out.push_back({f.seq, now, link, copy, f.quality, f.data});
    }
}

} // namespace onionvoice::multipath
