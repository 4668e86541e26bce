// Streams tor delivered for our service that have not yet proven anything: each must send a
// Hello (a new call) or a Join (a further link of the call) as its first record, within the
// proof timeout, or it is closed.
#pragma once

#include "Handshake.h"
#include "net/OnionLink.h"

#include <QObject>
#include <chrono>
#include <functional>

namespace onionvoice::call {

class IncomingLinks : public QObject {
    Q_OBJECT
public:
    // joinedCall tells whether a link has become part of the call (then it is not closed when
    // the proof timeout expires).
    IncomingLinks(std::chrono::milliseconds proofTimeout,
                  std::function<bool(const net::OnionLink*)> joinedCall, QObject* parent = nullptr);

    void adopt(net::OnionLink* link);
    // Answers with a Refusal and closes the link a moment later (so the refusal reaches tor).
    void refuse(net::OnionLink* link, RefusalReason reason);

signals:
    void helloReceived(onionvoice::net::OnionLink* link, const onionvoice::call::Hello& hello);
    void joinReceived(onionvoice::net::OnionLink* link, const onionvoice::call::Join& join);

private:
    void onFirstRecord(net::OnionLink* link, const QByteArray& record);

    std::chrono::milliseconds proofTimeout_;
    std::function<bool(const net::OnionLink*)> joinedCall_;
};

} // namespace onionvoice::call
