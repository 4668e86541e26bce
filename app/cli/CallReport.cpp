// Call statistics and outcomes as onionvoice-cli prints them.
#include "CallReport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

namespace onionvoice::cli {
namespace {

// The names in the statistics JSON (a contract: tools read them).
QString linkStateName(call::SlotState state) {
    switch (state) {
    case call::SlotState::Up:
        return QStringLiteral("up");
    case call::SlotState::Joining:
        return QStringLiteral("joining");
    case call::SlotState::Down:
        break;
    }
    return QStringLiteral("down");
}

QString groupName(std::optional<multipath::LinkGroup> group) {
    if (!group)
        return {};
    switch (*group) {
    case multipath::LinkGroup::First:
        return QStringLiteral("first");
    case multipath::LinkGroup::Second:
        return QStringLiteral("second");
    case multipath::LinkGroup::Inactive:
        break;
    }
    return QStringLiteral("inactive");
}

} // namespace

QString endReasonName(call::EndReason reason) {
    using call::EndReason;
    switch (reason) {
    case EndReason::None:
        return QStringLiteral("none");
    case EndReason::HungUpLocally:
        return QStringLiteral("hung-up-locally");
    case EndReason::HungUpByPeer:
        return QStringLiteral("hung-up-by-peer");
    case EndReason::RejectedLocally:
        return QStringLiteral("rejected-locally");
    case EndReason::RejectedByPeer:
        return QStringLiteral("rejected-by-peer");
    case EndReason::Busy:
        return QStringLiteral("busy");
    case EndReason::NoAnswer:
        return QStringLiteral("no-answer");
    case EndReason::Cancelled:
        return QStringLiteral("cancelled");
    case EndReason::NotAccepted:
        return QStringLiteral("not-accepted");
    case EndReason::Unreachable:
        return QStringLiteral("unreachable");
    case EndReason::NetworkFailure:
        return QStringLiteral("network-failure");
    case EndReason::ProtocolError:
        return QStringLiteral("protocol-error");
    case EndReason::AudioFailed:
        return QStringLiteral("audio-failed");
    }
    return QStringLiteral("unknown");
}

QString stateName(call::CallState state) {
    return call::describe(state);
}

ExitCode exitCodeFor(call::EndReason reason) {
    using call::EndReason;
    switch (reason) {
    case EndReason::None:
    case EndReason::HungUpLocally:
    case EndReason::HungUpByPeer:
    case EndReason::RejectedLocally:
        return ExitCode::Ok;
    case EndReason::RejectedByPeer:
    case EndReason::Busy:
    case EndReason::NoAnswer:
    case EndReason::Cancelled:
    case EndReason::NotAccepted:
        return ExitCode::Refused;
    case EndReason::Unreachable:
        return ExitCode::Unreachable;
    case EndReason::NetworkFailure:
    case EndReason::ProtocolError:
        return ExitCode::CallFailed;
    case EndReason::AudioFailed:
        return ExitCode::Failure; // the audio device, as when the command's own audio fails
    }
    return ExitCode::Failure;
}

QJsonObject statisticsJson(const call::CallStatistics& s) {
    QJsonArray links;
    for (const call::LinkStatistics& l : s.links) {
        links.append(QJsonObject{
            {"slot", l.slot},
            {"state", linkStateName(l.state)},
            {"group", groupName(l.group)},
            {"rtt_ms", l.rttMs},
            {"delay_ms", l.relativeDelayMs},
            {"reorder", l.reorderScore},
            {"sent", double(l.recordsSent)},
            {"received", double(l.recordsReceived)},
            {"failures", double(l.failures)},
        });
    }
    return {
        {"event", "statistics"},
        {"peer", s.peer},
        {"direction", s.direction == call::CallDirection::Outgoing ? "outgoing" : "incoming"},
        {"duration_ms", double(s.duration.count())},
        {"links_up", s.linksUp()},
        {"links", links},
        {"delay_p50_ms", s.delayP50Ms},
        {"delay_p95_ms", s.delayP95Ms},
        {"delay_p99_ms", s.delayP99Ms},
        {"late", double(s.late)},
        {"lost", double(s.lost)},
        {"concealed_ms", double(s.concealed.count())},
        {"longest_gap_ms", double(s.longestGap.count())},
        {"speaker_starved_ms", double(s.speakerStarved.count())},
        {"jitter_level_ms", double(s.jitterLevel.count())},
        {"jitter_target_ms", double(s.jitterTarget.count())},
        {"recent_loss_pct", s.recentLossPct},
        {"mos", s.mos},
        {"mouth_to_ear_ms", double(s.mouthToEar.count())},
        {"cells_per_s", s.cellsPerSecond},
        {"records_rejected", double(s.recordsRejected)},
        {"frames_received", double(s.framesReceived)},
    };
}

QString statisticsLine(const call::CallStatistics& s) {
    return QStringLiteral("%1 s  links %2/%3  delay p50 %4 ms p99 %5 ms  late %6 lost %7  "
                          "buffer %8 ms  MOS %9  %10 cells/s")
        .arg(double(s.duration.count()) / 1000.0, 0, 'f', 0)
        .arg(s.linksUp())
        .arg(s.links.size())
        .arg(s.delayP50Ms, 0, 'f', 0)
        .arg(s.delayP99Ms, 0, 'f', 0)
        .arg(s.late)
        .arg(s.lost)
        .arg(s.jitterTarget.count())
        .arg(s.mos, 0, 'f', 2)
        .arg(s.cellsPerSecond, 0, 'f', 1);
}

void printJsonLine(const QJsonObject& object) {
    std::fputs(QJsonDocument(object).toJson(QJsonDocument::Compact).constData(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void printLine(const QString& line) {
    std::fputs(line.toUtf8().constData(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

} // namespace onionvoice::cli
