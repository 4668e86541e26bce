// SOCKS5 client handshake as tor implements it.
#include "SocksHandshake.h"

namespace onionvoice::net {
namespace {

constexpr char kSocksVersion = 0x05;
constexpr char kMethodUserPass = 0x02;
constexpr char kUserPassVersion = 0x01;
constexpr char kCommandConnect = 0x01;
constexpr char kAddressDomain = 0x03;

// tor's onion-service codes (prop304, SocksPort ExtendedErrors).
bool isExtendedReply(int code) {
    return code >= 0xF0 && code <= 0xF7;
}

} // namespace

SocksHandshake::SocksHandshake(QByteArray host, quint16 port, QByteArray isolationKey)
    : host_(std::move(host).left(255))
    , port_(port)
    , isolationKey_(std::move(isolationKey).left(255)) {}

QByteArray SocksHandshake::greeting() const {
    return QByteArray("\x05\x01\x02", 3); // version 5, one method: username/password
}

SocksHandshake::Outcome SocksHandshake::fail(Failure failure, const QString& text, int reply) {
    step_ = Step::Done;
    failure_ = failure;
    failureText_ = text;
    replyCode_ = reply;
    return Outcome::Failed;
}

SocksHandshake::Outcome SocksHandshake::consume(QByteArray& in, QByteArray& out) {
    for (;;) {
        switch (step_) {
        case Step::Greeting: {
            if (in.size() < 2)
                return Outcome::NeedMore;
            if (in.at(0) != kSocksVersion || in.at(1) != kMethodUserPass)
                return fail(Failure::AuthRefused,
                            QStringLiteral("tor's SOCKS port did not accept username/password"));
            in.remove(0, 2);
            out.append(kUserPassVersion);
            out.append(char(isolationKey_.size())).append(isolationKey_);
            out.append(char(isolationKey_.size())).append(isolationKey_);
            step_ = Step::Authentication;
            break;
        }
        case Step::Authentication: {
            if (in.size() < 2)
                return Outcome::NeedMore;
            if (in.at(1) != 0x00)
                return fail(Failure::AuthRefused,
                            QStringLiteral("tor refused the SOCKS credentials"));
            in.remove(0, 2);
            const char header[] = {kSocksVersion, kCommandConnect, 0x00, kAddressDomain};
            out.append(header, sizeof header);
            out.append(char(host_.size())).append(host_);
            out.append(char(port_ >> 8)).append(char(port_ & 0xff));
            step_ = Step::ConnectReply;
            break;
        }
        case Step::ConnectReply: {
            if (in.size() < 5)
                return Outcome::NeedMore;
            if (in.at(0) != kSocksVersion)
                return fail(Failure::Protocol, QStringLiteral("malformed SOCKS reply"));
            const int reply = std::uint8_t(in.at(1));
            const auto refusal = [reply] {
                return QStringLiteral("tor could not connect: %1").arg(describeSocksReply(reply));
            };
            if (reply != 0x00 && !isExtendedReply(reply))
                return fail(Failure::Reply, refusal(), reply);
            qsizetype length = 0;
            switch (in.at(3)) {
            case 0x01:
                length = 4 + 4 + 2;
                break;
            case 0x04:
                length = 4 + 16 + 2;
                break;
            case 0x03:
                length = 4 + 1 + std::uint8_t(in.at(4)) + 2;
                break;
            default:
                return fail(Failure::Protocol,
                            QStringLiteral("unknown address type in SOCKS reply"));
            }
            if (in.size() < length)
                return Outcome::NeedMore;
            in.remove(0, length);
            if (isExtendedReply(reply)) {
                fail(Failure::Reply, refusal(), reply);
                return Outcome::ExtendedReply;
            }
            step_ = Step::Done;
            return Outcome::Open;
        }
        case Step::Done:
            if (failure_ == Failure::None)
                return Outcome::Open;
            return failure_ == Failure::Reply && isExtendedReply(replyCode_)
                       ? Outcome::ExtendedReply
                       : Outcome::Failed;
        }
    }
}

QString describeSocksReply(int code) {
    switch (code) {
    case 0x01:
        return QStringLiteral("general failure");
    case 0x02:
        return QStringLiteral("not allowed by tor's rules");
    case 0x03:
        return QStringLiteral("network unreachable");
    case 0x04:
        return QStringLiteral("host unreachable");
    case 0x05:
        return QStringLiteral("connection refused");
    case 0x06:
        return QStringLiteral("timed out inside tor");
    case 0x07:
        return QStringLiteral("command not supported");
    case 0x08:
        return QStringLiteral("address type not supported");
    case 0xF0:
        return QStringLiteral("onion service descriptor not found");
    case 0xF1:
        return QStringLiteral("onion service descriptor is invalid");
    case 0xF2:
        return QStringLiteral("onion service introduction failed");
    case 0xF3:
        return QStringLiteral("onion service rendezvous failed");
    case 0xF4:
        return QStringLiteral("onion service needs client authorization");
    case 0xF5:
        return QStringLiteral("onion service client authorization is wrong");
    case 0xF6:
        return QStringLiteral("invalid onion address");
    case 0xF7:
        return QStringLiteral("introduction timed out");
    default:
        return QStringLiteral("unknown SOCKS reply 0x%1").arg(code, 2, 16, QLatin1Char('0'));
    }
}

} // namespace onionvoice::net
