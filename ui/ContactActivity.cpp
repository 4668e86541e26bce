// What happened with each contact in this session (see ContactActivity.h).
#include "ContactActivity.h"

#include <QLocale>
#include <QRegularExpression>

namespace onionvoice::ui {
namespace {

QString lengthText(qint64 seconds) {
    const qint64 h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
    const QString ms = QStringLiteral("%1:%2")
                           .arg(m, h > 0 ? 2 : 1, 10, QLatin1Char('0'))
                           .arg(s, 2, 10, QLatin1Char('0'));
    return h > 0 ? QStringLiteral("%1:%2").arg(h).arg(ms) : ms;
}

// The locale's short formats without the seconds some of them carry (the C locale's does): next to
// a call's length, "last call 22:30:51, 0:25" reads as two lengths.
QString withoutSeconds(QString format) {
    static const QRegularExpression seconds(QStringLiteral("[:.]s{1,2}"));
    return format.remove(seconds);
}

QString whenText(const QDateTime& at, const QDateTime& now) {
    const QLocale locale;
    return at.date() == now.date()
               ? locale.toString(at.time(), withoutSeconds(locale.timeFormat(QLocale::ShortFormat)))
               : locale.toString(at, withoutSeconds(locale.dateTimeFormat(QLocale::ShortFormat)));
}

} // namespace

void ContactActivity::onCallState(call::CallState state, const QString& peer,
                                  call::EndReason reason, bool outgoing, const QDateTime& at) {
    switch (state) {
    case call::CallState::Idle:
        return;
    case call::CallState::Dialing:
        put(peer, {Kind::Calling, at});
        return;
    case call::CallState::Ringing:
        put(peer, {outgoing ? Kind::RingingThem : Kind::CallingYou, at});
        return;
    case call::CallState::Active:
        put(peer, {Kind::InCall, at});
        return;
    case call::CallState::Ended:
        break;
    }
    if (const auto it = entries_.find(peer); it != entries_.end())
        finish(*it, reason, at);
}

// What a call under way became when it ended; an ended one stays as it is.
void ContactActivity::finish(Entry& e, call::EndReason reason, const QDateTime& at) {
    switch (e.kind) {
    case Kind::InCall:
        e = {Kind::LastCall, e.at, std::max<qint64>(e.at.secsTo(at), 0)};
        return;
    case Kind::CallingYou:
        // Answered, but the call could not start: not a call the user missed.
        if (reason == call::EndReason::AudioFailed || reason == call::EndReason::ProtocolError)
            e = {Kind::NotReached, at, 0, reason};
        else
            e = {reason == call::EndReason::RejectedLocally ? Kind::Declined : Kind::Missed, at};
        return;
    case Kind::Calling:
    case Kind::RingingThem:
        e = {Kind::NotReached, at, 0, reason};
        return;
    case Kind::LastCall:
    case Kind::Missed:
    case Kind::Declined:
    case Kind::NotReached:
        return;
    }
}

bool ContactActivity::underWay(Kind kind) {
    return kind == Kind::Calling || kind == Kind::RingingThem || kind == Kind::CallingYou ||
           kind == Kind::InCall;
}

void ContactActivity::onRefused(const QString& peer, call::EndReason reason, const QDateTime& at) {
    const auto it = entries_.constFind(peer);
    if (reason == call::EndReason::Busy && (it == entries_.constEnd() || !underWay(it->kind)))
        put(peer, {Kind::Missed, at});
}

// Strangers ring from ever new addresses (at the engine's stranger rate, 6 a minute): in an app
// left running for days every one of them stayed, and every call event formatted them all. Over
// the cap, the stranger's entry that is longest over goes, else the contact's (a call under way
// stays): a flood of strangers must not take a contact's "missed call" with it.
void ContactActivity::put(const QString& peer, const Entry& entry) {
    entries_.insert(peer, entry);
    if (entries_.size() <= kMaxEntries)
        return;
    const auto oldestOver = [this](bool contacts) {
        auto oldest = entries_.end();
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (!underWay(it->kind) && (isContact_ && isContact_(it.key())) == contacts &&
                (oldest == entries_.end() || it->at < oldest->at))
                oldest = it;
        return oldest;
    };
    auto gone = oldestOver(false);
    if (gone == entries_.end())
        gone = oldestOver(true);
    if (gone != entries_.end())
        entries_.erase(gone);
}

void ContactActivity::endAll(const QDateTime& at) {
    for (Entry& e : entries_)
        finish(e, call::EndReason::HungUpLocally, at);
}

ContactNote ContactActivity::noteFor(const QString& address, const QDateTime& now) const {
    const auto it = entries_.constFind(address);
    if (it == entries_.constEnd())
        return {};
    const Entry& e = *it;
    switch (e.kind) {
    case Kind::Calling:
        return {tr("calling…")};
    case Kind::RingingThem:
        return {tr("ringing…")};
    case Kind::CallingYou:
        return {tr("calling you…")};
    case Kind::InCall:
        return {tr("in call")};
    case Kind::LastCall:
        return {tr("last call %1, %2").arg(whenText(e.at, now), lengthText(e.seconds))};
    case Kind::Missed:
        return {tr("missed call %1").arg(whenText(e.at, now)), true};
    case Kind::Declined:
        return {tr("you declined %1").arg(whenText(e.at, now))};
    case Kind::NotReached:
        return {tr("%1 %2", "why the call did not get through, then when")
                    .arg(reasonText(e.reason), whenText(e.at, now))};
    }
    return {};
}

QHash<QString, ContactNote> ContactActivity::notes(const QDateTime& now) const {
    QHash<QString, ContactNote> all;
    for (auto it = entries_.constBegin(); it != entries_.constEnd(); ++it)
        all.insert(it.key(), noteFor(it.key(), now));
    return all;
}

// Why a call did not get through (or could not start), in a word or two (call::describe says it at
// length).
QString ContactActivity::reasonText(call::EndReason reason) {
    switch (reason) {
    case call::EndReason::NoAnswer:
        return tr("no answer");
    case call::EndReason::RejectedByPeer:
        return tr("declined");
    case call::EndReason::Busy:
        return tr("busy");
    case call::EndReason::NotAccepted:
        return tr("refused");
    case call::EndReason::HungUpLocally:
    case call::EndReason::Cancelled:
        return tr("cancelled");
    case call::EndReason::NetworkFailure:
        return tr("connection lost");
    case call::EndReason::AudioFailed:
        return tr("audio failed");
    case call::EndReason::ProtocolError:
        return tr("failed");
    case call::EndReason::None:
    case call::EndReason::HungUpByPeer:
    case call::EndReason::RejectedLocally:
    case call::EndReason::Unreachable:
        break;
    }
    return tr("not reached");
}

} // namespace onionvoice::ui
