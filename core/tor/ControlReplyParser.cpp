// Framing of control-port lines into replies and events.
#include "ControlReplyParser.h"

namespace onionvoice::tor {

ControlReplyParser::ControlReplyParser(qsizetype maxLineLength, qsizetype maxReplySize)
    : maxLineLength_(maxLineLength)
    , maxReplySize_(maxReplySize) {}

void ControlReplyParser::setLimits(qsizetype maxLineLength, qsizetype maxReplySize) {
    maxLineLength_ = maxLineLength;
    maxReplySize_ = maxReplySize;
}

void ControlReplyParser::reset() {
    buffer_.clear();
    lines_.clear();
    replySize_ = 0;
    replyCode_ = 0;
    expecting_ = LineKind::ReplyLine;
    error_ = Error::None;
    errorText_.clear();
}

void ControlReplyParser::fail(Error error, const QString& text) {
    error_ = error;
    errorText_ = text;
    buffer_.clear();
    lines_.clear();
}

void ControlReplyParser::feed(const QByteArray& bytes, QList<Item>& items) {
    if (error_ != Error::None)
        return;
    buffer_.append(bytes);
    qsizetype start = 0;
    while (error_ == Error::None) {
        const qsizetype end = buffer_.indexOf('\n', start);
        if (end < 0)
            break;
        QByteArray line = buffer_.mid(start, end - start);
        start = end + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.size() > maxLineLength_) {
            fail(Error::LineTooLong,
                 QStringLiteral("tor sent a line of %1 bytes").arg(line.size()));
            return;
        }
        if (!processLine(line, items))
            return;
    }
    buffer_.remove(0, start);
    if (buffer_.size() > maxLineLength_)
        fail(Error::LineTooLong,
             QStringLiteral("tor sent more than %1 bytes without a line end").arg(maxLineLength_));
}

bool ControlReplyParser::processLine(const QByteArray& line, QList<Item>& items) {
    replySize_ += line.size() + 1;
    if (replySize_ > maxReplySize_) {
        fail(Error::ReplyTooLarge,
             QStringLiteral("tor sent a reply of more than %1 bytes").arg(maxReplySize_));
        return false;
    }
    if (expecting_ != LineKind::ReplyLine) {
        if (line == ".") {
            expecting_ = LineKind::ReplyLine;
            return true;
        }
        QByteArray& data = lines_.last().data;
        if (expecting_ == LineKind::DataLine)
            data.append('\n');
        expecting_ = LineKind::DataLine;
        data.append(line.startsWith("..") ? line.mid(1) : line);
        return true;
    }

    bool codeOk = false;
    const int code = line.left(3).toInt(&codeOk);
    const char separator = line.size() >= 4 ? line.at(3) : '\0';
    if (!codeOk || code < 100 || code > 699 ||
        (separator != ' ' && separator != '-' && separator != '+')) {
        fail(Error::ProtocolError, QStringLiteral("malformed reply line from tor"));
        return false;
    }
    if (!lines_.isEmpty() && code != replyCode_) {
        fail(Error::ProtocolError, QStringLiteral("reply code changed inside one reply"));
        return false;
    }
    replyCode_ = code;
    TorReplyLine replyLine;
    replyLine.text = line.mid(4);
    if (separator == '+') {
        expecting_ = LineKind::FirstDataLine;
        replyLine.data = QByteArray("");
    }
    lines_.append(replyLine);
    if (separator != ' ')
        return true;

    QList<TorReplyLine> lines = std::move(lines_);
    lines_.clear();
    replySize_ = 0;
    if (code == 650) {
        TorEvent event;
        event.type = lines.first().text.split(' ').first();
        event.lines = std::move(lines);
        items.append(std::move(event));
    } else {
        items.append(Reply{code, std::move(lines)});
    }
    return true;
}

} // namespace onionvoice::tor
