// Loopback listener behind ADD_ONION's Port= target.
#include "LinkListener.h"

#include "NetLog.h"

namespace onionvoice::net {

LinkListener::LinkListener(std::size_t recordSize, QObject* parent)
    : QObject(parent)
    , recordSize_(recordSize) {
    connect(&server_, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = server_.nextPendingConnection()) {
            auto* link = new OnionLink(recordSize_, this);
            connect(link, &OnionLink::failed, link, &QObject::deleteLater);
            link->adopt(socket);
            emit linkAccepted(link);
        }
    });
}

bool LinkListener::listen(quint16 port) {
    if (!server_.listen(QHostAddress::LocalHost, port)) {
        qCWarning(lcNet) << "cannot listen for links:" << server_.errorString();
        return false;
    }
    return true;
}

} // namespace onionvoice::net
