// The control interface of the impairment relay: a unix socket speaking one command per line, for
// fault-injection scripts that act on a running call. Commands (replies are one line each):
//   break SLOT... [for SECONDS]     close the slots' streams now; refuse new ones for SECONDS
//   delay SLOT MS SECONDS           add MS ms to both directions of SLOT for SECONDS
//   stats                           per-slot state and counters as one JSON object
//   help
// Replies: "ok", a JSON object, or "error <reason>".
#pragma once

#include <QObject>
#include <memory>

class QLocalServer;
class QLocalSocket;

namespace onionvoice::cli {

class LinkImpairer;

class ImpairControl : public QObject {
    Q_OBJECT
public:
    ImpairControl(LinkImpairer* impairer, QObject* parent = nullptr);
    ~ImpairControl() override;

    // On the relay's thread; the socket file is created with owner-only permissions.
    bool listen(const QString& path, QString* error);
    // One command line to its reply (also what the socket does for each line).
    QByteArray execute(const QByteArray& line);

private:
    void onConnection();

    LinkImpairer* impairer_;
    std::unique_ptr<QLocalServer> server_;
};

} // namespace onionvoice::cli
