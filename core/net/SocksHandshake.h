// The client side of tor's SOCKS5 handshake (RFC 1928 with username/password, RFC 1929) without
// the socket: the greeting, then bytes from tor in and bytes to send out, until the CONNECT is
// answered. A pure class, so the reply parser can be fuzzed on its own.
#pragma once

#include <QByteArray>
#include <QString>

namespace onionvoice::net {

class SocksHandshake {
public:
    // ExtendedReply: tor answered with one of its extended codes (0xF0-0xF7, failure() and
    // replyCode() say which), the reply read whole. For a failure tor closes the connection right
    // after it; tor also puts a code left from an earlier try (a descriptor one HSDir did not
    // have, fetched from the next) in the reply to a CONNECT that succeeded, and then the
    // connection stays open and carries the stream (OnionLink tells the two apart).
    enum class Outcome { NeedMore, Open, ExtendedReply, Failed };
    enum class Failure {
        None,
        AuthRefused, // no username/password method, or the credentials were refused
        Reply,       // tor answered the CONNECT with an error code (replyCode())
        Protocol,    // the answer made no sense
    };

    // host: the name tor resolves ("<56 chars>.onion"); isolationKey: username and password.
    SocksHandshake(QByteArray host, quint16 port, QByteArray isolationKey);

    QByteArray greeting() const;
    // Consumes the handshake's bytes from the front of `in` (what follows CONNECT's reply stays:
    // it is the stream) and appends what to send next to `out`.
    Outcome consume(QByteArray& in, QByteArray& out);

    // The CONNECT request has been handed out (in `out`): what follows it is the stream's.
    bool connectSent() const { return step_ == Step::ConnectReply || step_ == Step::Done; }
    Failure failure() const { return failure_; }
    QString failureText() const { return failureText_; }
    int replyCode() const { return replyCode_; }

private:
    Outcome fail(Failure failure, const QString& text, int reply = 0);

    enum class Step { Greeting, Authentication, ConnectReply, Done };
    QByteArray host_;
    quint16 port_;
    QByteArray isolationKey_;
    Step step_ = Step::Greeting;
    Failure failure_ = Failure::None;
    QString failureText_;
    int replyCode_ = 0;
};

// Human-readable meaning of a SOCKS5 reply code, including tor's extended codes (0xF0-0xF7).
QString describeSocksReply(int code);

} // namespace onionvoice::net
