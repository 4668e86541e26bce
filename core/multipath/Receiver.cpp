// Frame de-duplication and delivery (first copy wins).
#include "Receiver.h"

namespace onionvoice::multipath {

void Receiver::onRecord(Time now, LinkId link, const Record& record,
                        std::vector<ReceivedFrame>& out) {
    for (std::size_t i = 0; i < record.frames.size(); ++i) {
        const Frame& f = record.frames[i];
        if (newest_ && f.seq + kWindow <= *newest_) {
            ++counters_.stale;
            continue;
        }
        std::uint32_t& slot = seenPlusOne_[f.seq % kWindow];
        if (slot == f.seq + 1) {
            ++counters_.duplicates;
            continue;
        }
        slot = f.seq + 1;
        if (!newest_ || f.seq > *newest_)
            newest_ = f.seq;
        const CopyKind copy = i < record.freshFrames ? CopyKind::Fresh : CopyKind::Piggybacked;
        ++(copy == CopyKind::Fresh ? counters_.freshFirst : counters_.piggybackedFirst);
        out.push_back({f.seq, now, link, copy, f.data});
    }
}

} // namespace onionvoice::multipath
