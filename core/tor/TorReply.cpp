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
            ++i;
            while (i < n && text.at(i) != '"') {
                if (text.at(i) == '\\' && i + 1 < n)
                    ++i;
                value.append(text.at(i));
                ++i;
            }
            ++i; // closing quote
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

} // namespace onionvoice::tor
