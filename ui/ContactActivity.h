// What happened with each contact in this session, for the contact list's Status column: a call
// under way, a missed call, the last call and how long it lasted, a call that did not get
// through and why. Kept in memory only: an anonymous calling app writes no call log to disk.
#pragma once

#include "call/CallTypes.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QString>
#include <functional>

namespace onionvoice::ui {

struct ContactNote {
    QString text;
    bool needsAttention = false; // a missed call: shown until the next call with them
    friend bool operator==(const ContactNote&, const ContactNote&) = default;
};

class ContactActivity {
    Q_DECLARE_TR_FUNCTIONS(ContactActivity)
public:
    // One of the engine's call states for `peer` at `at`. `outgoing` tells our call from theirs
    // (the engine says Ringing for both).
    void onCallState(call::CallState state, const QString& peer, call::EndReason reason,
                     bool outgoing, const QDateTime& at);
    // The engine refused a call from `peer` on its own: a contact who called while we were in
    // another call (Busy) is a missed call.
    void onRefused(const QString& peer, call::EndReason reason, const QDateTime& at);
    // The engine went away (tor restarted): a call under way is over.
    void endAll(const QDateTime& at);
    // Who is a contact: what is noted of contacts is the last to go when the notes are full.
    void setContactCheck(std::function<bool(const QString& address)> isContact) {
        isContact_ = std::move(isContact);
    }
    // The note for `address`, empty when nothing happened; times are shown as the time of day
    // when they fall on `now`'s date, else with their date.
    ContactNote noteFor(const QString& address, const QDateTime& now) const;
    // Every note there is, by address (a caller who is not a contact too: only contacts have rows).
    QHash<QString, ContactNote> notes(const QDateTime& now) const;

private:
    enum class Kind {
        Calling,
        RingingThem,
        CallingYou,
        InCall,
        LastCall,
        Missed,
        Declined,
        NotReached
    };
    struct Entry {
        Kind kind = Kind::Calling;
        QDateTime at;       // when the call began (or, for an unanswered one, ended)
        qint64 seconds = 0; // a finished call's length
        call::EndReason reason = call::EndReason::None;
    };
    // Callers remembered at most: strangers' notes go first, oldest first.
    static constexpr qsizetype kMaxEntries = 256;
    void put(const QString& peer, const Entry& entry);
    static void finish(Entry& e, call::EndReason reason, const QDateTime& at);
    static QString reasonText(call::EndReason reason);
    static bool underWay(Kind kind);

    QHash<QString, Entry> entries_;
    std::function<bool(const QString& address)> isContact_;
};

} // namespace onionvoice::ui
