// Unit test of PlayoutGaps: what counts as a gap in played audio, and what does not.
#include "media/PlayoutGaps.h"

#include <QTest>

using namespace onionvoice::media;
using namespace std::chrono_literals;

class PlayoutGapsTest : public QObject {
    Q_OBJECT
private slots:
    void silenceBeforeTheFirstPacketIsNoGap() {
        PlayoutGaps gaps;
        for (int i = 0; i < 50; ++i)
            gaps.note(PlayoutAction::Silence, 20ms);
        QCOMPARE(gaps.longest(), 0ms);
    }

    void longestRunOfConcealmentIsKept() {
        PlayoutGaps gaps;
        const auto play = [&](PlayoutAction action, int slices) {
            for (int i = 0; i < slices; ++i)
                gaps.note(action, 20ms);
        };
        play(PlayoutAction::Decode, 10);
        play(PlayoutAction::Conceal, 7); // 140 ms
        play(PlayoutAction::Decode, 3);
        play(PlayoutAction::Conceal, 21); // 420 ms: the longest
        play(PlayoutAction::DecodeFec, 2);
        play(PlayoutAction::Conceal, 4);
        QCOMPARE(gaps.longest(), 420ms);
    }

    void fecRecoveredAudioEndsAGap() {
        PlayoutGaps gaps;
        gaps.note(PlayoutAction::Conceal, 20ms);
        gaps.note(PlayoutAction::DecodeFec, 20ms);
        gaps.note(PlayoutAction::Conceal, 20ms);
        QCOMPARE(gaps.longest(), 20ms);
    }

    void silenceInsideAGapDoesNotEndIt() {
        // Silence is only ever played before the first packet, but must not split a gap.
        PlayoutGaps gaps;
        gaps.note(PlayoutAction::Conceal, 20ms);
        gaps.note(PlayoutAction::Silence, 20ms);
        gaps.note(PlayoutAction::Conceal, 20ms);
        QCOMPARE(gaps.longest(), 40ms);
    }
};

QTEST_GUILESS_MAIN(PlayoutGapsTest)
#include "tst_playoutgaps.moc"
