// Unit tests of MultipathEndpoint: records built for each packet (piggybacking, history,
// acknowledgements), delivery on the other side, a garbled record rejected without effect, the
// policy told of every link reset, and records lost on a replaced link not charged to the new one.
#include "multipath/MultipathEndpoint.h"

#include <QTest>
#include <deque>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<MultipathEndpoint> endpoint(const char* policy, int links = 12) {
    auto e = std::make_unique<MultipathEndpoint>(EndpointConfig{}, makePolicy(policy));
    for (LinkId l = 0; l < links; ++l)
        e->linkUp(l);
    return e;
}

Frame audio(std::uint32_t seq) {
    return {seq, std::vector<std::uint8_t>(160, std::uint8_t(seq))};
}

// Sends packet k on cycle[k % cycle.size()] and records which links the endpoint reported reset.
class ScriptedPolicy final : public SchedulingPolicy {
public:
    explicit ScriptedPolicy(std::vector<LinkId> cycle, std::vector<LinkId>* resets = nullptr)
        : cycle_(std::move(cycle))
        , resets_(resets) {}
    std::string_view name() const override { return "scripted"; }
    LinkSelection select(const SchedulingContext&) override {
        LinkSelection s;
        s.add(cycle_[next_++ % cycle_.size()]);
        return s;
    }
    void linkReset(LinkId link) override {
        if (resets_)
            resets_->push_back(link);
    }

private:
    std::vector<LinkId> cycle_;
    std::vector<LinkId>* resets_;
    std::size_t next_ = 0;
};

} // namespace

class EndpointTest : public QObject {
    Q_OBJECT
private slots:
    void threeFramesRideWithTwelveScoreReportsAtThirtyTwoKbit() {
        // A's records reach B on all 12 links, so B reports on 12 links in every record. At
        // 32 kbit/s and 40 ms (160-byte frames) B's third record still carries its fresh frame,
        // the previous one and a reduced copy of the one before.
        auto a = endpoint("adaptive");
        auto b = endpoint("alternate");
        std::vector<ReceivedFrame> delivered;
        for (std::uint32_t seq = 0; seq < 24; ++seq) {
            const Frame f = audio(seq);
            for (const auto& out : a->sendPacket(Millis(40 * seq), std::span(&f, 1)))
                QCOMPARE(b->receive(Millis(40 * seq + 100), out.link, out.bytes, delivered),
                         RecordError::None);
        }
        Record last;
        for (std::uint32_t seq = 0; seq < 3; ++seq) {
            const Frame f = audio(seq);
            const Frame reduced{seq, std::vector<std::uint8_t>(53, 1), FrameQuality::Reduced};
            const auto out =
                b->sendPacket(Millis(1000 + 40 * seq), std::span(&f, 1), std::span(&reduced, 1));
            QCOMPARE(out.size(), std::size_t(1));
            last = decodeRecord(out[0].bytes).record;
        }
        QCOMPARE(last.scores.size(), std::size_t(12));
        QCOMPARE(last.frames.size(), std::size_t(3));
        QCOMPARE(last.frames[0], audio(2));
        QCOMPARE(last.frames[1], audio(1));
        QCOMPARE(last.frames[2].seq, 0u);
        QCOMPARE(last.frames[2].quality, FrameQuality::Reduced);
    }

    void theEndpointTellsThePolicyOfEveryReplacedLink() {
        // What a policy learnt of a slot describes the circuit that was there: a replacement
        // that comes up before the next packet must still reach it.
        std::vector<LinkId> resets;
        MultipathEndpoint e(EndpointConfig{},
                            std::make_unique<ScriptedPolicy>(std::vector<LinkId>{0}, &resets));
        e.linkUp(0);
        e.linkUp(1);
        resets.clear();
        e.linkUp(1); // replaced at once, no packet in between
        e.linkDown(0);
        QCOMPARE(resets, (std::vector<LinkId>{1, 0}));
    }

    void alternatePiggybacksThePreviousFrameOnAnotherLink() {
        auto a = endpoint("alternate");
        std::vector<OutgoingRecord> sent;
        for (std::uint32_t seq = 0; seq < 4; ++seq) {
            const Frame f = audio(seq);
            const auto out = a->sendPacket(Millis(40 * seq), std::span(&f, 1));
            QCOMPARE(out.size(), std::size_t(1));
            sent.push_back(out[0]);
        }
        for (std::size_t i = 0; i < sent.size(); ++i) {
            const Record r = decodeRecord(sent[i].bytes).record;
            QCOMPARE(r.txSeq, std::uint32_t(i));
            QCOMPARE(r.freshFrames, std::uint8_t(1));
            QCOMPARE(r.frames[0].seq, std::uint32_t(i));
            if (i == 0) {
                QCOMPARE(r.frames.size(), std::size_t(1));
                continue;
            }
            QCOMPARE(r.frames.size(), std::size_t(2));
            QCOMPARE(r.frames[1], audio(std::uint32_t(i - 1)));
            QVERIFY(sent[i].link != sent[i - 1].link);
            QCOMPARE(r.history[0], sent[i - 1].link);
        }
    }

    void twoEndpointsExchangeAndAcknowledge() {
        auto a = endpoint("adaptive");
        auto b = endpoint("adaptive");
        std::vector<ReceivedFrame> atB, atA;
        // Every record takes 150 ms; each side's clock only moves forward.
        struct InFlight {
            Time arrival;
            MultipathEndpoint* to;
            OutgoingRecord record;
        };
        std::deque<InFlight> network;
        auto deliverUntil = [&](Time now) {
            while (!network.empty() && network.front().arrival <= now) {
                const InFlight f = network.front();
                network.pop_front();
                auto& sink = f.to == b.get() ? atB : atA;
                QCOMPARE(f.to->receive(f.arrival, f.record.link, f.record.bytes, sink),
                         RecordError::None);
            }
        };
        for (std::uint32_t seq = 0; seq < 210; ++seq) {
            const Time now = Millis(40 * seq);
            deliverUntil(now);
            if (seq == 150) {
                // Acknowledgements keep up: nothing waits longer than the 300 ms round trip plus
                // a packet period at each end.
                for (LinkId l = 0; l < 12; ++l) {
                    const auto waiting = a->delivery().oldestUnacknowledged(now, l);
                    QVERIFY(!waiting || *waiting <= 380ms);
                }
            }
            if (seq >= 200)
                continue;
            const Frame fa = audio(seq), fb = audio(seq + 1000);
            for (const auto& rec : a->sendPacket(now, std::span(&fa, 1)))
                network.push_back({now + 150ms, b.get(), rec});
            for (const auto& rec : b->sendPacket(now, std::span(&fb, 1)))
                network.push_back({now + 150ms, a.get(), rec});
        }
        QCOMPARE(atB.size(), std::size_t(200));
        QCOMPARE(atA.size(), std::size_t(200));
        for (std::uint32_t i = 0; i < 200; ++i)
            QCOMPARE(atB[i].seq, i);
        // A healthy call keeps within its budget.
        QVERIFY(a->counters().recordsSent <= 210);
        // Echoes give the round trip of each link in use: 150 ms each way.
        int measured = 0;
        for (LinkId l = 0; l < 12; ++l) {
            if (const auto rtt = a->monitor().rtt(l)) {
                QCOMPARE(*rtt, 300ms);
                ++measured;
            }
        }
        QVERIFY(measured >= 2);
    }

    void garbledRecordIsRejectedWithoutEffect() {
        auto a = endpoint("simple");
        auto b = endpoint("simple");
        const Frame f = audio(1);
        auto out = a->sendPacket(0ms, std::span(&f, 1));
        out[0].bytes[0] = 0x77;
        std::vector<ReceivedFrame> got;
        QCOMPARE(b->receive(10ms, 0, out[0].bytes, got), RecordError::UnknownType);
        QVERIFY(got.empty());
        QCOMPARE(b->counters().recordsRejected, 1u);
        QCOMPARE(b->counters().recordsReceived, 0u);
        const std::vector<std::uint8_t> shortRecord(10, 0);
        QCOMPARE(b->receive(10ms, 0, shortRecord, got), RecordError::WrongSize);
    }

    void replacedLinkIsUsedAgain() {
        // Records in flight on a link that breaks are never acknowledged; its replacement must
        // not inherit them, or the adaptive policy would shun the slot for the rest of the call.
        auto a = endpoint("adaptive", 2);
        const Frame f = audio(1);
        for (std::uint32_t i = 0; i < 10; ++i)
            a->sendPacket(Millis(40 * i), std::span(&f, 1));
        QVERIFY(a->delivery().oldestUnacknowledged(400ms, 0).has_value());
        a->linkDown(0);
        a->linkUp(0);
        QVERIFY(!a->delivery().oldestUnacknowledged(400ms, 0).has_value());
        QVERIFY(!a->monitor().localScore(400ms, 0).has_value());
    }

    void recordsLostOnTheLinkBeforeAreNotChargedToItsReplacement() {
        // The one-sided break SilentLinkWatch finds: A's end of slot 3 closes while B's stays
        // open. A dials a new link into the slot; until B reads A's Join on it, B keeps sending on
        // its end of the old one, and those records are lost. B's later records on link 5 name
        // them in their link history. Once the new link delivers, none of them may count as
        // overdue on it: they would make it look seconds late until 1024 transmissions later.
        auto a = endpoint("simple", 0);
        MultipathEndpoint b(EndpointConfig{},
                            std::make_unique<ScriptedPolicy>(std::vector<LinkId>{3, 5}));
        b.linkUp(3);
        b.linkUp(5);
        a->linkUp(5);
        a->linkUp(3);
        const Time closed = 1s, redialled = 3s, joinRead = 4s, end = 9s;
        std::vector<ReceivedFrame> got;
        for (std::uint32_t seq = 0; Millis(40 * seq) <= end; ++seq) {
            const Time now = Millis(40 * seq);
            if (now == closed)
                a->linkDown(3);
            if (now == redialled)
                a->linkUp(3);
            if (now == joinRead) {
                b.linkDown(3); // the old link is closed as replaced ...
                b.linkUp(3);   // ... by the one that carried the Join
            }
            const Frame f = audio(seq);
            for (const auto& out : b.sendPacket(now, std::span(&f, 1))) {
                const bool lost = out.link == 3 && now >= closed && now < joinRead;
                if (!lost)
                    QCOMPARE(a->receive(now + 30ms, out.link, out.bytes, got), RecordError::None);
            }
        }
        // Every record of the last 5 s reached A in order, all equally fast.
        const auto score = a->monitor().localScore(end + 30ms, 3);
        QVERIFY(score.has_value());
        QCOMPARE(score->currentDelay, 0ms);
        QCOMPARE(score->windowDelay, 0ms);
        QCOMPARE(score->reorder, 0.0);
    }

    void nothingIsSentWithoutLinks() {
        auto a = endpoint("alternate", 0);
        const Frame f = audio(1);
        QVERIFY(a->sendPacket(0ms, std::span(&f, 1)).empty());
        QCOMPARE(a->counters().packetsUnsent, 1u);
    }

    void oversizedAudioIsNotSent() {
        auto a = endpoint("simple");
        const Frame f{1, std::vector<std::uint8_t>(kPlainRecordSize, 0)};
        QVERIFY(a->sendPacket(0ms, std::span(&f, 1)).empty());
        QCOMPARE(a->counters().packetsUnsent, 1u);
    }
};

QTEST_APPLESS_MAIN(EndpointTest)
#include "tst_endpoint.moc"
