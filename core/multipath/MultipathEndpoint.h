// One end of a multipath call: builds the records for each packet of fresh audio (piggybacking
// older frames and monitoring metadata), picks their links through the scheduling policy, and takes
// in the records that arrive. The same code runs in real calls and in the simulator.
#pragma once

#include "DeliveryTracker.h"
#include "LinkGroups.h"
#include "LinkMonitor.h"
#include "Receiver.h"
#include "Record.h"
#include "SchedulingPolicy.h"

#include <deque>
#include <memory>
#include <span>
#include <vector>

namespace onionvoice::multipath {

struct EndpointConfig {
    Millis window{2000}; // DONAR's w: groups are re-ranked this often
    GroupSizes groups{};
    // Frames older than this are not piggybacked any more: they could only arrive too late to play.
    Millis frameLifetime{360};
};

struct OutgoingRecord {
    LinkId link = kNoLink;
    RecordBytes bytes{};
};

struct EndpointCounters {
    std::uint64_t recordsSent = 0;
    std::uint64_t recordsReceived = 0;
    std::uint64_t recordsRejected = 0;
    std::uint64_t packetsUnsent = 0; // no link was up, or the fresh audio did not fit a record
};

class MultipathEndpoint {
public:
    MultipathEndpoint(EndpointConfig config, std::unique_ptr<SchedulingPolicy> policy);

    void linkUp(LinkId link);
    void linkDown(LinkId link);

    // One packet period of fresh audio (frames newest last, consecutive sequence numbers) and,
    // optionally, the codec's reduced (low-bitrate) encoding of the same frames, which later
    // records carry when the full frame no longer fits next to the fresh audio.
    // Returns the records to write, each to its link.
    std::vector<OutgoingRecord> sendPacket(Time now, std::span<const Frame> fresh,
                                           std::span<const Frame> reduced = {});

    // Takes one record read from `link`. On a decode error nothing changes and the error is
    // returned: the caller closes that link (a garbled stream cannot be resynchronised).
    RecordError receive(Time now, LinkId link, std::span<const std::uint8_t> bytes,
                        std::vector<ReceivedFrame>& delivered);

    const LinkMonitor& monitor() const { return monitor_; }
    const DeliveryTracker& delivery() const { return delivery_; }
    const LinkGroups& groups() const { return groups_; }
    const Receiver& receiver() const { return receiver_; }
    const EndpointCounters& counters() const { return counters_; }

private:
    struct SentFrame {
        Frame frame;
        Frame reduced; // empty data when the codec made none
        Time firstSent;
        std::uint32_t linkMask = 0; // links that already carried a copy
    };
    void maybeRerank(Time now);
    void resetLink(LinkId link);
    bool buildRecord(Time now, LinkId link, std::span<const Frame> fresh, RecordBytes& out);

    EndpointConfig config_;
    std::unique_ptr<SchedulingPolicy> policy_;
    LinkMonitor monitor_;
    DeliveryTracker delivery_;
    LinkGroups groups_;
    Receiver receiver_;
    EndpointCounters counters_;
    std::deque<SentFrame> recent_; // oldest first
    std::array<LinkId, kHistoryLength> history_;
    std::uint32_t nextTxSeq_ = 0;
    std::optional<Time> lastRerank_;
    LinkId previousLink_ = kNoLink;
};

} // namespace onionvoice::multipath
