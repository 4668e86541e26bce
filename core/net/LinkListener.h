// Accepts the streams tor delivers for the published onion service and turns each into an
// OnionLink for the engine. The listener is a unix socket inside tor's private directory where
// the platform allows (only our user can reach it, so nobody can bypass tor and client
// authorization by connecting to it directly), or a TCP port on 127.0.0.1.
#pragma once

#include "OnionLink.h"

#include <QTcpServer>
#include <memory>

class QLocalServer;

namespace onionvoice::net {

class LinkListener : public QObject {
    Q_OBJECT
public:
    explicit LinkListener(std::size_t recordSize, QObject* parent = nullptr);
    ~LinkListener() override;

    // Listens on 127.0.0.1 (port 0 = any free port); false with errorString() on failure.
    bool listen(quint16 port = 0);
    // Listens on a unix socket at `path` (a stale socket file there is replaced, a live one is
    // not; the directory should be private). False with errorString() when another process
    // listens there, or the path cannot serve as tor's target (too long for a socket address, or
    // characters tor's port syntax splits on).
    bool listenLocal(const QString& path);
    // The target for ADD_ONION's Port= and torrc's HiddenServicePort: "unix:<path>" or
    // "127.0.0.1:<port>"; empty when not listening.
    QByteArray torTarget() const;
    quint16 port() const { return tcp_.serverPort(); }
    QString errorString() const { return error_; }

    // Whether `path` can be a unix socket tor connects to (see listenLocal).
    static bool usableSocketPath(const QString& path);

signals:
    // The link is Open and owned by the listener; reparent it to keep it beyond the listener.
    void linkAccepted(onionvoice::net::OnionLink* link);

private:
    void adopt(QTcpSocket* socket);

    std::size_t recordSize_;
    QTcpServer tcp_;
    std::unique_ptr<QLocalServer> local_;
    QString error_;
};

} // namespace onionvoice::net
