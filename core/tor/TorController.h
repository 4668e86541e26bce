// Asynchronous client of tor's control port: commands queued and matched to replies in order,
// multi-line replies, asynchronous 650 events, and a hard limit on what a reply line may be.
#pragma once

#include "ControlReplyParser.h"
#include "TorReply.h"

#include <QHostAddress>
#include <QObject>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <deque>
#include <functional>

namespace onionvoice::tor {

class TorController : public QObject {
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Connected };
    enum class Error { None, SocketError, ProtocolError, LineTooLong, ReplyTooLarge, ReplyTimeout };
    using ReplyHandler = std::function<void(const TorReply&)>;

    static constexpr qsizetype kDefaultMaxLineLength = 64 * 1024;
    // A whole reply (all its lines and data), e.g. a GETINFO answer: a tor that sends more is
    // broken or not tor, and must not make us allocate without end.
    static constexpr qsizetype kDefaultMaxReplySize = 4 * 1024 * 1024;

    explicit TorController(QObject* parent = nullptr);
    ~TorController() override;

    State state() const { return state_; }
    void setMaxLineLength(qsizetype bytes);
    void setMaxReplySize(qsizetype bytes);
    // A tor that owes a reply and sends nothing at all for this long is taken for hung (frozen,
    // deadlocked): the connection fails with ReplyTimeout. Zero (the default) waits for ever.
    // Only silence counts, not the age of a reply that keeps coming; and a timeout is confirmed
    // over one more second of this process running (see onReplyDeadline).
    void setReplyTimeout(std::chrono::milliseconds timeout);
    bool awaitingReply() const { return !pending_.empty(); }

    void connectToTor(const QHostAddress& address, quint16 port);
    // Closes the connection; commands still waiting get a ConnectionLost reply (but not when the
    // controller is destroyed).
    void disconnectFromTor();

    // Queues one command line (without CRLF). The handler runs once with its reply, or with a
    // ConnectionLost reply. A command containing CR or LF is refused (returns false).
    // Command text is never logged: ADD_ONION and AUTHENTICATE lines carry secrets.
    bool send(const QByteArray& command, ReplyHandler handler = {});
    // Holds commands back (send) until openForCommands: tor answers any command before the
    // authentication's "514 Authentication required" and closes the connection, and timers of
    // the engine may send one while a new tor is being connected.
    void holdCommands();
    // The authentication's own commands (AUTHCHALLENGE, AUTHENTICATE): sent at once.
    bool sendForAuthentication(const QByteArray& command, ReplyHandler handler);
    // Sends the held commands, after the AUTHENTICATE just sent (tor reads them in order).
    void openForCommands();

signals:
    void stateChanged(onionvoice::tor::TorController::State state);
    void errorOccurred(onionvoice::tor::TorController::Error error, const QString& message);
    void eventReceived(const onionvoice::tor::TorEvent& event);

private:
    void setState(State state);
    void onReadyRead();
    void fail(Error error, const QString& message);
    void failPending(const QString& why);
    void armReplyDeadline();
    void onReplyDeadline();
    void write(const QByteArray& command, ReplyHandler handler);

    QTcpSocket socket_;
    State state_ = State::Disconnected;
    qsizetype maxLineLength_ = kDefaultMaxLineLength;
    qsizetype maxReplySize_ = kDefaultMaxReplySize;
    ControlReplyParser parser_{kDefaultMaxLineLength, kDefaultMaxReplySize};
    std::deque<ReplyHandler> pending_;
    enum class Commands { Held, Sent };
    Commands commands_ = Commands::Sent;
    std::deque<std::pair<QByteArray, ReplyHandler>> held_; // wiped as they go
    std::chrono::milliseconds replyTimeout_{0};
    QTimer replyDeadline_;
    // A silence past the reply timeout is confirmed over one more second (onReplyDeadline).
    enum class Silence { Waiting, Confirming };
    Silence silence_ = Silence::Waiting;
};

} // namespace onionvoice::tor
