// Reply classification and argument parsing for the control protocol.
#include "TorReply.h"

namespace onionvoice::tor {

TorReply::TorReply(int code, QList<TorReplyLine> lines)
    : code_(code)
    , lines_(std::move(lines)) {
    if (code >= 200 && code < 300)
        kind_ = Kind::Ok;
    else if (code >= 400 && code < 500)
        kind_ = Kind::TemporaryError;
    else
        kind_ = Kind::CommandError;
}

TorReply TorReply::connectionLost(const QString& why) {
    TorReply reply;
    reply.lostReason_ = why;
    return reply;
}

QString TorReply::errorMessage() const {
    if (kind_ == Kind::ConnectionLost)
        return lostReason_;
    const QByteArray last = lines_.isEmpty() ? QByteArray() : lines_.last().text;
    return QStringLiteral("%1 %2").arg(code_).arg(QString::fromUtf8(last));
}

QByteArray TorReply::value(const QByteArray& key) const {
    const QByteArray prefix = key + '=';
    for (const TorReplyLine& line : lines_) {
        if (!line.text.startsWith(prefix))
            continue;
        if (line.text.size() == prefix.size() && !line.data.isNull())
            return line.data;
        return line.text.mid(prefix.size());
    }
    return {};
}

TorArguments parseTorArguments(const QByteArray& text) {
    TorArguments args;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        while (i < n && text.at(i) == ' ')
            ++i;
        if (i >= n)
            break;
        const qsizetype start = i;
        while (i < n && text.at(i) != ' ' && text.at(i) != '=')
            ++i;
        const QByteArray word = text.mid(start, i - start);
        if (i >= n || text.at(i) == ' ') {
            args.positional.append(word);
            continue;
        }
        ++i; // '='
        QByteArray value;
        if (i < n && text.at(i) == '"') {
            const auto decoded = decodeQuotedString(text, &i);
            if (!decoded)
                break; // a broken quoted value: nothing after it can be trusted
            value = *decoded;
        } else {
            const qsizetype valueStart = i;
            while (i < n && text.at(i) != ' ')
                ++i;
            value = text.mid(valueStart, i - valueStart);
        }
        args.keyed.insert(word, value);
    }
    return args;
}

std::optional<QByteArray> decodeQuotedString(const QByteArray& text, qsizetype* pos) {
    qsizetype i = *pos;
    const qsizetype n = text.size();
    if (i >= n || text.at(i) != '"')
        return std::nullopt;
    ++i;
    QByteArray out;
    while (i < n) {
        const char c = text.at(i++);
        if (c == '"') {
            *pos = i;
            return out;
        }
        if (c != '\\') {
            out.append(c);
            continue;
        }
        if (i >= n)
            return std::nullopt;
        const char e = text.at(i++);
        switch (e) {
        case 'n':
            out.append('\n');
            break;
        case 'r':
            out.append('\r');
            break;
        case 't':
            out.append('\t');
            break;
        case '\\':
        case '"':
        case '\'':
            out.append(e);
            break;
        default: {
            if (e < '0' || e > '7')
                return std::nullopt;
            int value = e - '0';
            for (int digits = 1; digits < 3 && i < n && text.at(i) >= '0' && text.at(i) <= '7';
                 ++digits)
                value = value * 8 + (text.at(i++) - '0');
            if (value > 0xff)
                return std::nullopt;
            out.append(char(value));
        }
        }
    }
    return std::nullopt;
}

} // namespace onionvoice::tor
