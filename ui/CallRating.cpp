// Call rating, link health and the trouble diagnosis.
#include "CallRating.h"

namespace onionvoice::ui {

CallRating rateCall(const call::CallStatistics& s) {
    if (s.framesReceived == 0)
        return CallRating::Unknown;
    if (s.rFactor >= RatingThresholds::kGoodR)
        return CallRating::Good;
    if (s.rFactor >= RatingThresholds::kFairR)
        return CallRating::Fair;
    return CallRating::Poor;
}

LinkHealth linkHealth(const call::LinkStatistics& link) {
    if (link.state == call::SlotState::Joining)
        return LinkHealth::Joining;
    if (link.state != call::SlotState::Up)
        return LinkHealth::Down;
    if (link.relativeDelayMs < 0)
        return LinkHealth::Idle;
    if (link.relativeDelayMs < RatingThresholds::kHealthyDelayMs)
        return LinkHealth::Healthy;
    if (link.relativeDelayMs < RatingThresholds::kSlowDelayMs)
        return LinkHealth::Slow;
    return LinkHealth::Bad;
}

QColor healthColour(LinkHealth health) {
    switch (health) {
    case LinkHealth::Healthy:
        return QColor(0xd4, 0xf0, 0xd4);
    case LinkHealth::Slow:
        return QColor(0xff, 0xef, 0xb8);
    case LinkHealth::Bad:
        return QColor(0xf8, 0xc8, 0xc8);
    case LinkHealth::Idle:
        return QColor(0xe8, 0xf4, 0xe8);
    case LinkHealth::Joining:
        return QColor(0xe4, 0xe8, 0xf4);
    case LinkHealth::Down:
        return QColor(0xdd, 0xdd, 0xdd);
    }
    return {};
}

QString CallJudgement::describe(CallRating rating) {
    switch (rating) {
    case CallRating::Unknown:
        return tr("not yet known");
    case CallRating::Good:
        return tr("good");
    case CallRating::Fair:
        return tr("fair");
    case CallRating::Poor:
        return tr("poor");
    }
    return {};
}

QString CallJudgement::describe(LinkHealth health) {
    switch (health) {
    case LinkHealth::Healthy:
        return tr("healthy");
    case LinkHealth::Slow:
        return tr("slow");
    case LinkHealth::Bad:
        return tr("bad");
    case LinkHealth::Idle:
        return tr("idle (in reserve)");
    case LinkHealth::Joining:
        return tr("joining");
    case LinkHealth::Down:
        return tr("down");
    }
    return {};
}

QString CallJudgement::diagnose(const call::CallStatistics& s, const CallProgress& twoSecondsAgo) {
    const int up = s.linksUp();
    if (up == 0)
        return tr("Network: no link to the other side is open; reconnecting.");
    if (s.duration.count() > 3000 && s.framesReceived == twoSecondsAgo.framesReceived)
        return tr("Other side: nothing has arrived for two seconds although %n link(s) are open; "
                  "their app or their connection may have stopped.",
                  nullptr, up);
    // Both over the last seconds (the delays over 30 s, the loss over 20 s): an hour into a call,
    // the call's totals no longer move for a bad minute.
    if (s.networkDelayP99Ms > RatingThresholds::kDelayBudgetMs || s.recentLossPct > 3)
        return tr("Network: frames arrive late or get lost (%1 % late or lost, p99 %2 ms).")
            .arg(s.recentLossPct, 0, 'f', 1)
            .arg(s.networkDelayP99Ms, 0, 'f', 0);
    // Our own speaker played silence the engine had not refilled in time: clicks and dropouts
    // that no network figure shows, and that better links would not cure. Under a frame of it
    // is a device asking for its first samples a little early, not a computer falling behind.
    if (const auto starved = s.speakerStarved - twoSecondsAgo.speakerStarved;
        starved >= RatingThresholds::kStarvedSpeaker)
        return tr("This computer: the speaker ran dry for %L1 ms in the last two seconds, since "
                  "OnionVoice fell behind; other programs may be keeping the computer busy.")
            .arg(starved.count());
    if (up * 2 < s.links.size())
        return tr("Network: only %1 of %2 links are open; the call holds on the rest.")
            .arg(up)
            .arg(s.links.size());
    return tr("Network and other side: no trouble.");
}

} // namespace onionvoice::ui
