// Plain-words judgements the call window shows: the call's rating from its E-model R factor,
// each link's health, and whether trouble lies in the network or on the other side.
//
// Rating thresholds (ITU-T G.107 Annex B, user satisfaction by R):
//   good  R >= 80 (MOS >= 4.03): users satisfied or very satisfied
//   fair  60 <= R < 80 (MOS 3.10 – 4.03): some or many users dissatisfied
//   poor  R < 60 (MOS < 3.10): nearly all users dissatisfied
// Link health, from the link's relative delay (its frames' delay above the fastest link's):
//   healthy < 60 ms, slow < 150 ms, bad >= 150 ms; idle when up but not carrying audio (no
//   measurement: the scheduler keeps it in reserve); joining or down when not up.
#pragma once

#include "call/CallTypes.h"

#include <QColor>
#include <QCoreApplication>
#include <chrono>

namespace onionvoice::ui {

enum class CallRating { Unknown, Good, Fair, Poor };
enum class LinkHealth { Healthy, Slow, Bad, Idle, Joining, Down };

struct RatingThresholds {
    static constexpr double kGoodR = 80;
    static constexpr double kFairR = 60;
    static constexpr double kHealthyDelayMs = 60;
    static constexpr double kSlowDelayMs = 150;
    static constexpr double kDelayBudgetMs = 360; // one-way, 40 ms packets (ARCHITECTURE.md)
    // Silence our speaker played for want of audio, over two seconds: one 20 ms frame.
    static constexpr std::chrono::milliseconds kStarvedSpeaker{20};
};

CallRating rateCall(const call::CallStatistics& statistics);
LinkHealth linkHealth(const call::LinkStatistics& link);
QColor healthColour(LinkHealth health);

// What a call had received and how long our speaker had starved at an earlier snapshot.
struct CallProgress {
    std::uint64_t framesReceived = 0;
    std::chrono::milliseconds speakerStarved{0};
};

class CallJudgement {
    Q_DECLARE_TR_FUNCTIONS(CallJudgement)
public:
    static QString describe(CallRating rating);
    static QString describe(LinkHealth health);
    // One sentence on where the trouble is, if any. `twoSecondsAgo` is the snapshot about two
    // seconds older (or this one's figures when there is none yet).
    static QString diagnose(const call::CallStatistics& statistics,
                            const CallProgress& twoSecondsAgo);
};

} // namespace onionvoice::ui
