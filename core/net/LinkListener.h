// Accepts the streams tor delivers for the published onion service (on 127.0.0.1 only) and turns
// each into an OnionLink for the engine.
#pragma once

#include "OnionLink.h"

#include <QTcpServer>

namespace onionvoice::net {

class LinkListener : public QObject {
    Q_OBJECT
public:
    explicit LinkListener(std::size_t recordSize, QObject* parent = nullptr);

    // Listens on 127.0.0.1 (port 0 = any free port); false with errorString() on failure.
    bool listen(quint16 port = 0);
    quint16 port() const { return server_.serverPort(); }
    QString errorString() const { return server_.errorString(); }

signals:
    // The link is Open and owned by the listener; reparent it to keep it beyond the listener.
    void linkAccepted(onionvoice::net::OnionLink* link);

private:
    std::size_t recordSize_;
    QTcpServer server_;
};

} // namespace onionvoice::net
