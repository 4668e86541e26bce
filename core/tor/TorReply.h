// Replies and asynchronous events of tor's control protocol (control-spec sections 2.3 and 4).
#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <optional>

namespace onionvoice::tor {

struct TorReplyLine {
    QByteArray text; // after "NNN<sep>"
    QByteArray data; // body of a "+" line, dot-unescaped, lines joined with '\n'
};

class TorReply {
public:
    enum class Kind {
        Ok,             // 2xx
        TemporaryError, // 4xx
        CommandError,   // 5xx: tor refused the command
        ConnectionLost, // the connection ended before the reply was complete
    };

    TorReply() = default;
    TorReply(int code, QList<TorReplyLine> lines);
    static TorReply connectionLost(const QString& why);

    Kind kind() const { return kind_; }
    bool isOk() const { return kind_ == Kind::Ok; }
    int code() const { return code_; }
    const QList<TorReplyLine>& lines() const { return lines_; }
    // "<code> <text of the last line>" or the reason the connection was lost.
    QString errorMessage() const;
    // Value of the first "KEY=value" line (or "KEY=" line with a data body) of this reply.
    QByteArray value(const QByteArray& key) const;

private:
    int code_ = 0;
    Kind kind_ = Kind::ConnectionLost;
    QList<TorReplyLine> lines_;
    QString lostReason_;
};

struct TorEvent {
    QByteArray type; // first word, e.g. "STATUS_CLIENT", "HS_DESC", "CIRC"
    QList<TorReplyLine> lines;
};

// Splits "A B KEY=VAL KEY2=\"quoted value\"" into positional words and KEY=VALUE pairs;
// quoted values are unescaped.
struct TorArguments {
    QList<QByteArray> positional;
    QMap<QByteArray, QByteArray> keyed;
};
TorArguments parseTorArguments(const QByteArray& text);

// Decodes a control-spec QuotedString starting at text[*pos] (the opening quote): escapes \\,
// \", \n, \r, \t and octal \ooo. Advances *pos past the closing quote; nullopt when the
// string is not closed or an escape is invalid.
std::optional<QByteArray> decodeQuotedString(const QByteArray& text, qsizetype* pos);

} // namespace onionvoice::tor
