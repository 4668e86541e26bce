// Control-port line protocol: framing, reply assembly and event dispatch.
#include "TorController.h"

#include "TorLog.h"

namespace onionvoice::tor {

Q_LOGGING_CATEGORY(lcTor, "onionvoice.tor")

TorController::TorController(QObject* parent)
    : QObject(parent) {
    connect(&socket_, &QTcpSocket::connected, this, [this] { setState(State::Connected); });
    connect(&socket_, &QTcpSocket::readyRead, this, &TorController::onReadyRead);
    connect(&socket_, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
        if (state_ != State::Disconnected)
            fail(Error::SocketError, socket_.errorString());
    });
    connect(&socket_, &QTcpSocket::disconnected, this, [this] {
        if (state_ != State::Disconnected)
            fail(Error::SocketError, QStringLiteral("tor closed the control connection"));
    });
}

TorController::~TorController() {
    // Handlers are not called any more: their owners are usually being destroyed too.
    socket_.disconnect(this);
    pending_.clear();
}

void TorController::setState(State state) {
    if (state_ == state)
        return;
    state_ = state;
    emit stateChanged(state);
}

void TorController::connectToTor(const QHostAddress& address, quint16 port) {
    disconnectFromTor();
    setState(State::Connecting);
    socket_.connectToHost(address, port);
}

void TorController::disconnectFromTor() {
    buffer_.clear();
    lines_.clear();
    expecting_ = LineKind::ReplyLine;
    const State previous = state_;
    state_ = State::Disconnected;
    socket_.abort();
    failPending(QStringLiteral("control connection closed"));
    if (previous != State::Disconnected)
        emit stateChanged(State::Disconnected);
}

bool TorController::send(const QByteArray& command, ReplyHandler handler) {
    if (command.contains('\r') || command.contains('\n')) {
        qCWarning(lcTor) << "refused a control command containing a line break";
        return false;
    }
    if (state_ == State::Disconnected) {
        if (handler)
            handler(TorReply::connectionLost(QStringLiteral("not connected to tor")));
        return true;
    }
    pending_.push_back(std::move(handler));
    socket_.write(command + "\r\n");
    return true;
}

void TorController::onReadyRead() {
    buffer_.append(socket_.readAll());
    qsizetype start = 0;
    while (state_ != State::Disconnected) {
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
        if (!processLine(line))
            return;
    }
    if (state_ == State::Disconnected)
        return;
    buffer_.remove(0, start);
    if (buffer_.size() > maxLineLength_)
        fail(Error::LineTooLong,
             QStringLiteral("tor sent more than %1 bytes without a line end").arg(maxLineLength_));
}

bool TorController::processLine(const QByteArray& line) {
    if (expecting_ == LineKind::DataLine) {
        if (line == ".") {
            expecting_ = LineKind::ReplyLine;
            return true;
        }
        QByteArray& data = lines_.last().data;
        if (!data.isEmpty())
            data.append('\n');
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
        expecting_ = LineKind::DataLine;
        replyLine.data = QByteArray("");
    }
    lines_.append(replyLine);
    if (separator != ' ')
        return true;

    QList<TorReplyLine> lines = std::move(lines_);
    lines_.clear();
    if (code == 650) {
        TorEvent event;
        event.type = lines.first().text.split(' ').first();
        event.lines = std::move(lines);
        emit eventReceived(event);
        return state_ != State::Disconnected;
    }
    if (pending_.empty()) {
        fail(Error::ProtocolError, QStringLiteral("tor sent a reply nobody asked for"));
        return false;
    }
    ReplyHandler handler = std::move(pending_.front());
    pending_.pop_front();
    const TorReply reply(code, std::move(lines));
    if (!reply.isOk())
        qCDebug(lcTor) << "tor refused a command:" << reply.errorMessage();
    if (handler)
        handler(reply);
    return state_ != State::Disconnected;
}

void TorController::fail(Error error, const QString& message) {
    qCWarning(lcTor) << "control connection failed:" << message;
    disconnectFromTor();
    emit errorOccurred(error, message);
}

void TorController::failPending(const QString& why) {
    std::deque<ReplyHandler> pending;
    pending.swap(pending_);
    for (ReplyHandler& handler : pending) {
        if (handler)
            handler(TorReply::connectionLost(why));
    }
}

} // namespace onionvoice::tor
