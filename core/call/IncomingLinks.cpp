// The first record of each incoming link, and the proof timeout.
#include "IncomingLinks.h"

#include "CallSession.h"

#include <QLoggingCategory>
#include <QTimer>

Q_DECLARE_LOGGING_CATEGORY(lcCall)

namespace onionvoice::call {
namespace {

using namespace std::chrono_literals;

constexpr auto kLingerBeforeClose = 300ms; // lets a refusal reach tor before closing

} // namespace

IncomingLinks::IncomingLinks(std::chrono::milliseconds proofTimeout,
                             std::function<bool(const net::OnionLink*)> joinedCall, QObject* parent)
    : QObject(parent)
    , proofTimeout_(proofTimeout)
    , joinedCall_(std::move(joinedCall)) {}

void IncomingLinks::adopt(net::OnionLink* link) {
    link->setParent(this);
    connect(link, &net::OnionLink::recordReceived, this,
            [this, link](const QByteArray& record) { onFirstRecord(link, record); });
    connect(link, &net::OnionLink::failed, link, &QObject::deleteLater);
    QTimer::singleShot(proofTimeout_, link, [this, link] {
        if (!joinedCall_(link)) {
            qCInfo(lcCall) << "closing a link that did not prove it belongs to a call";
            discard(link);
        }
    });
}

void IncomingLinks::refuse(net::OnionLink* link, RefusalReason reason) {
    link->sendRecord(encodeHandshake(Refusal{reason}));
    QTimer::singleShot(kLingerBeforeClose, link, [link] { discard(link); });
}

void IncomingLinks::onFirstRecord(net::OnionLink* link, const QByteArray& record) {
    disconnect(link, &net::OnionLink::recordReceived, this, nullptr);
    const HandshakeDecode decoded = decodeHandshake(bytesOf(record));
    if (!decoded.message) {
        qCWarning(lcCall) << "closing a new link:" << decoded.error;
        discard(link);
        return;
    }
    if (const auto* hello = std::get_if<Hello>(&*decoded.message))
        emit helloReceived(link, *hello);
    else if (const auto* join = std::get_if<Join>(&*decoded.message))
        emit joinReceived(link, *join);
    else
        discard(link);
}

} // namespace onionvoice::call
