// The control-port line protocol without the socket: bytes in, whole replies and asynchronous
// events out (control-spec 2.3 and 4.1), with limits on a line and on a whole reply. A pure class,
// so the parser can be fuzzed on its own.
#pragma once

#include "TorReply.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <variant>

namespace onionvoice::tor {

class ControlReplyParser {
public:
    enum class Error { None, ProtocolError, LineTooLong, ReplyTooLarge };
    struct Reply {
        int code = 0;
        QList<TorReplyLine> lines;
    };
    using Item = std::variant<Reply, TorEvent>;

    ControlReplyParser(qsizetype maxLineLength, qsizetype maxReplySize);

    // Takes the next bytes from tor; complete replies and events go to `items`, in order. After
    // an error (error() != None) nothing more is parsed.
    void feed(const QByteArray& bytes, QList<Item>& items);
    void reset();

    Error error() const { return error_; }
    const QString& errorText() const { return errorText_; }
    void setLimits(qsizetype maxLineLength, qsizetype maxReplySize);

private:
    bool processLine(const QByteArray& line, QList<Item>& items);
    void fail(Error error, const QString& text);

    qsizetype maxLineLength_, maxReplySize_;
    QByteArray buffer_;
    QList<TorReplyLine> lines_; // of the reply being assembled
    qsizetype replySize_ = 0;
    int replyCode_ = 0;
    // What the next line from tor is. The first line of a data body is not joined to anything:
    // an empty one is still a line of the value, so "data empty yet" cannot tell them apart.
    enum class LineKind { ReplyLine, FirstDataLine, DataLine };
    LineKind expecting_ = LineKind::ReplyLine;
    Error error_ = Error::None;
    QString errorText_;
};

} // namespace onionvoice::tor
