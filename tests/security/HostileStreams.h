// Mallory's raw streams for the attack tests on the private network: a stream to the callee
// through her own tor, by hand (SOCKS handshake, then records), that can stop reading whenever she
// likes; what the callee answered on it; and a count of the call module's warnings meanwhile.
#pragma once

#include "call/CallSession.h"
#include "call/Handshake.h"
#include "multipath/Record.h"
#include "net/SocksHandshake.h"

#include <QByteArray>
#include <QList>
#include <QLocalSocket>
#include <QObject>
#include <atomic>
#include <cstring>
#include <optional>
#include <span>

namespace onionvoice::testing {

// A stream to the callee through Mallory's tor.
class RawStream : public QObject {
public:
    enum class State { Connecting, Open, Failed };
    State state = State::Connecting;
    QList<QByteArray> received;

    // socksSocket: Mallory's tor's SOCKS port, a unix socket.
    RawStream(const QString& socksSocket, const QString& onion, quint16 port,
              const QByteArray& isolation)
        : socks_(onion.toLatin1() + ".onion", port, isolation) {
        connect(&socket_, &QLocalSocket::connected, this,
                [this] { socket_.write(socks_.greeting()); });
        connect(&socket_, &QLocalSocket::readyRead, this, &RawStream::onReadyRead);
        connect(&socket_, &QLocalSocket::disconnected, this, [this] { state = State::Failed; });
        connect(&socket_, &QLocalSocket::errorOccurred, this, [this] { state = State::Failed; });
        socket_.connectToServer(socksSocket);
    }
    void send(std::span<const std::uint8_t> record) {
        socket_.write(reinterpret_cast<const char*>(record.data()), qint64(record.size()));
    }
    // Closes the stream (tor ends it on the circuit), as a caller that went away does.
    void close() { socket_.abort(); }
    // Reads nothing more: whatever the callee sends piles up on its side.
    void stopReading() {
        socket_.setReadBufferSize(1);
        disconnect(&socket_, &QLocalSocket::readyRead, this, nullptr);
    }

private:
    void onReadyRead() {
        in_ += socket_.readAll();
        if (state == State::Connecting) {
            QByteArray out;
            const auto outcome = socks_.consume(in_, out);
            socket_.write(out);
            if (outcome == net::SocksHandshake::Outcome::Failed)
                state = State::Failed;
            if (outcome != net::SocksHandshake::Outcome::Open)
                return;
            state = State::Open;
        }
        while (in_.size() >= qsizetype(multipath::kRecordSize)) {
            received.append(in_.left(qsizetype(multipath::kRecordSize)));
            in_.remove(0, qsizetype(multipath::kRecordSize));
        }
    }

    net::SocksHandshake socks_;
    QLocalSocket socket_;
    QByteArray in_;
};

// Counts the warnings of the call module while it lives (the handler chains to Qt's).
class CallWarningCounter {
public:
    CallWarningCounter() {
        count_ = 0;
        previous_ = qInstallMessageHandler(&CallWarningCounter::handle);
    }
    ~CallWarningCounter() { qInstallMessageHandler(previous_); }
    CallWarningCounter(const CallWarningCounter&) = delete;
    CallWarningCounter& operator=(const CallWarningCounter&) = delete;
    int count() const { return count_; }

private:
    static void handle(QtMsgType type, const QMessageLogContext& context, const QString& text) {
        if (type == QtWarningMsg && context.category &&
            std::strcmp(context.category, "onionvoice.call") == 0)
            ++count_;
        previous_(type, context, text);
    }
    static inline std::atomic<int> count_{0};
    static inline QtMessageHandler previous_ = nullptr;
};

inline std::optional<call::HandshakeMessage> firstReply(const RawStream& s) {
    if (s.received.isEmpty())
        return std::nullopt;
    return call::decodeHandshake(call::bytesOf(s.received.first())).message;
}

inline bool isBadRequest(const RawStream& s) {
    const auto reply = firstReply(s);
    return reply && std::holds_alternative<call::Refusal>(*reply) &&
           std::get<call::Refusal>(*reply).reason == call::RefusalReason::BadRequest;
}

inline bool isRinging(const RawStream& s) {
    const auto reply = firstReply(s);
    return reply && std::holds_alternative<call::Ringing>(*reply);
}

// Answered, or closed without a word.
inline bool settled(const RawStream& s) {
    return !s.received.isEmpty() || s.state == RawStream::State::Failed;
}

} // namespace onionvoice::testing
