// Unit tests of Receiver: first copy wins, duplicates and stale frames dropped, counters.
#include "multipath/Receiver.h"

#include <QTest>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

namespace {

Record withFrames(std::vector<std::uint32_t> seqs, std::uint8_t fresh = 1) {
    Record r;
    r.freshFrames = fresh;
    for (auto s : seqs)
        r.frames.push_back({s, {std::uint8_t(s)}});
    return r;
}

} // namespace

class ReceiverTest : public QObject {
    Q_OBJECT
private slots:
    void firstCopyWins() {
        Receiver rx;
        std::vector<ReceivedFrame> out;
        rx.onRecord(10ms, 0, withFrames({5, 4}), out);
        rx.onRecord(20ms, 1, withFrames({6, 5}), out);
        rx.onRecord(30ms, 2, withFrames({4}), out);
        QCOMPARE(out.size(), std::size_t(3));
        QCOMPARE(out[0].seq, 5u);
        QCOMPARE(out[0].copy, CopyKind::Fresh);
        QCOMPARE(out[1].seq, 4u);
        QCOMPARE(out[1].copy, CopyKind::Piggybacked);
        QCOMPARE(out[1].arrival, onionvoice::multipath::Time(10ms));
        QCOMPARE(out[2].seq, 6u);
        QCOMPARE(out[2].link, LinkId(1));
        QCOMPARE(rx.counters().freshFirst, 2u);
        QCOMPARE(rx.counters().piggybackedFirst, 1u);
        QCOMPARE(rx.counters().duplicates, 2u);
    }

    void staleFramesAreDropped() {
        Receiver rx;
        std::vector<ReceivedFrame> out;
        rx.onRecord(0ms, 0, withFrames({10000}), out);
        rx.onRecord(1ms, 0, withFrames({10000 - 4096}), out);
        rx.onRecord(2ms, 0, withFrames({10000 - 4095}), out);
        QCOMPARE(out.size(), std::size_t(2));
        QCOMPARE(rx.counters().stale, 1u);
    }

    // A record of frame 2 carrying copies from 5 frames back names frames 2^32 - 3 … : taken as
    // the newest by plain comparison, it had every later frame of the call dropped as stale.
    void wrappedFrameNumbersDoNotSilenceTheStream() {
        Receiver rx;
        std::vector<ReceivedFrame> out;
        rx.onRecord(0ms, 0, withFrames({2, std::uint32_t(2 - 5)}), out);
        for (std::uint32_t seq = 3; seq < 100; ++seq)
            rx.onRecord(1ms * seq, 0, withFrames({seq}), out);
        QCOMPARE(out.size(), std::size_t(99));
        QCOMPARE(out.back().seq, 99u);
        QCOMPARE(rx.counters().stale, 0u);
    }

    // Fault: one frame numbered far ahead (a peer's bug, or a hostile peer) became the newest,
    // and every genuine frame after it was dropped as stale: the rest of the call silent. A jump
    // confirmed by frames in a row (the links back after a long break) is followed.
    void aFarAheadFrameDoesNotSilenceTheStream() {
        Receiver rx;
        std::vector<ReceivedFrame> out;
        rx.onRecord(0ms, 0, withFrames({100}), out);
        rx.onRecord(1ms, 0, withFrames({100 + 1'000'000}), out);
        for (std::uint32_t seq = 101; seq < 200; ++seq)
            rx.onRecord(1ms * seq, 0, withFrames({seq}), out);
        QCOMPARE(out.size(), std::size_t(101));
        QCOMPARE(out.back().seq, 199u);
        QCOMPARE(rx.counters().stale, 0u);

        for (std::uint32_t seq = 10'000; seq < 10'030; ++seq)
            rx.onRecord(1ms * seq, 0, withFrames({seq}), out);
        QCOMPARE(out.back().seq, 10'029u);
        rx.onRecord(20s, 0, withFrames({10'029 - 4096}), out); // behind the followed jump
        QCOMPARE(rx.counters().stale, 1u);
    }
};

QTEST_APPLESS_MAIN(ReceiverTest)
#include "tst_receiver.moc"
