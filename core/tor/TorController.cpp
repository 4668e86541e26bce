// Control-port line protocol: framing, reply assembly and event dispatch.
#include "TorController.h"

#include "SecretBytes.h"
#include "TorLog.h"

namespace onionvoice::tor {

// Debug output (tor's own log lines among it) is off unless enabled (QT_LOGGING_RULES).
Q_LOGGING_CATEGORY(lcTor, "onionvoice.tor", QtInfoMsg)

namespace {
// How long a reply timeout is confirmed for (see onReplyDeadline).
constexpr std::chrono::milliseconds kConfirmTimeout{1000};
} // namespace

TorController::TorController(QObject* parent)
    : QObject(parent) {
    replyDeadline_.setSingleShot(true);
    replyDeadline_.setTimerType(Qt::PreciseTimer);
    connect(&replyDeadline_, &QTimer::timeout, this, &TorController::onReplyDeadline);
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
    parser_.reset();
    const State previous = state_;
    state_ = State::Disconnected;
    replyDeadline_.stop();
    socket_.abort();
    failPending(QStringLiteral("control connection closed"));
    if (previous != State::Disconnected)
        emit stateChanged(State::Disconnected);
}

bool TorController::send(const QByteArray& command, ReplyHandler handler) {
    if (commands_ == Commands::Held && state_ != State::Disconnected && !command.contains('\r') &&
        !command.contains('\n')) {
        held_.emplace_back(command, std::move(handler));
        return true;
    }
    return sendForAuthentication(command, std::move(handler));
}

bool TorController::sendForAuthentication(const QByteArray& command, ReplyHandler handler) {
    if (command.contains('\r') || command.contains('\n')) {
        qCWarning(lcTor) << "refused a control command containing a line break";
        return false;
    }
    if (state_ == State::Disconnected) {
        if (handler)
            handler(TorReply::connectionLost(QStringLiteral("not connected to tor")));
        return true;
    }
    write(command, std::move(handler));
    return true;
}

void TorController::holdCommands() {
    commands_ = Commands::Held;
}

void TorController::openForCommands() {
    commands_ = Commands::Sent;
    std::deque<std::pair<QByteArray, ReplyHandler>> held;
    held.swap(held_);
    for (auto& [command, handler] : held) {
        write(command, std::move(handler));
        wipe(command);
    }
}

void TorController::write(const QByteArray& command, ReplyHandler handler) {
    pending_.push_back(std::move(handler));
    if (pending_.size() == 1)
        armReplyDeadline();
    // Two writes, no concatenated copy: commands can carry keys, and the caller wipes its buffer.
    socket_.write(command);
    socket_.write("\r\n", 2);
}

void TorController::setMaxLineLength(qsizetype bytes) {
    maxLineLength_ = bytes;
    parser_.setLimits(maxLineLength_, maxReplySize_);
}

void TorController::setMaxReplySize(qsizetype bytes) {
    maxReplySize_ = bytes;
    parser_.setLimits(maxLineLength_, maxReplySize_);
}

void TorController::setReplyTimeout(std::chrono::milliseconds timeout) {
    replyTimeout_ = timeout;
    armReplyDeadline();
}

void TorController::armReplyDeadline() {
    silence_ = Silence::Waiting;
    if (replyTimeout_ <= std::chrono::milliseconds::zero() || pending_.empty() ||
        state_ == State::Disconnected) {
        replyDeadline_.stop();
        return;
    }
    replyDeadline_.start(replyTimeout_);
}

// The silence may be ours, not tor's: this process stopped or starved past the deadline with
// tor's answer unread in the socket, or stopped together with tor (a paused machine) and tor
// answers a moment after both run again. Anything tor sends within one more second of this
// process running counts, and re-arms the deadline.
void TorController::onReplyDeadline() {
    if (pending_.empty())
        return;
    if (silence_ == Silence::Waiting) {
        silence_ = Silence::Confirming;
        replyDeadline_.start(kConfirmTimeout);
        return;
    }
    fail(Error::ReplyTimeout,
         QStringLiteral("tor stopped answering on its control port (no reply in %1 s)")
             .arg(std::chrono::duration<double>(replyTimeout_).count()));
}

void TorController::onReadyRead() {
    armReplyDeadline(); // tor is alive: the silence starts again
    QList<ControlReplyParser::Item> items;
    parser_.feed(socket_.readAll(), items);
    for (ControlReplyParser::Item& item : items) {
        if (state_ == State::Disconnected)
            return; // a handler closed the connection
        if (auto* event = std::get_if<TorEvent>(&item)) {
            emit eventReceived(*event);
            continue;
        }
        auto& [code, lines] = std::get<ControlReplyParser::Reply>(item);
        if (pending_.empty()) {
            fail(Error::ProtocolError, QStringLiteral("tor sent a reply nobody asked for"));
            return;
        }
        ReplyHandler handler = std::move(pending_.front());
        pending_.pop_front();
        const TorReply reply(code, std::move(lines));
        if (!reply.isOk())
            qCDebug(lcTor) << "tor refused a command:" << reply.errorMessage();
        if (handler)
            handler(reply);
    }
    if (state_ == State::Disconnected)
        return;
    switch (parser_.error()) {
    case ControlReplyParser::Error::None:
        break;
    case ControlReplyParser::Error::ProtocolError:
        fail(Error::ProtocolError, parser_.errorText());
        break;
    case ControlReplyParser::Error::LineTooLong:
        fail(Error::LineTooLong, parser_.errorText());
        break;
    case ControlReplyParser::Error::ReplyTooLarge:
        fail(Error::ReplyTooLarge, parser_.errorText());
        break;
    }
}

void TorController::fail(Error error, const QString& message) {
    qCWarning(lcTor) << "control connection failed:" << message;
    disconnectFromTor();
    emit errorOccurred(error, message);
}

void TorController::failPending(const QString& why) {
    std::deque<ReplyHandler> pending;
    pending.swap(pending_);
    std::deque<std::pair<QByteArray, ReplyHandler>> held;
    held.swap(held_);
    for (ReplyHandler& handler : pending) {
        if (handler)
            handler(TorReply::connectionLost(why));
    }
    for (auto& [command, handler] : held) {
        wipe(command);
        if (handler)
            handler(TorReply::connectionLost(why));
    }
}

} // namespace onionvoice::tor
