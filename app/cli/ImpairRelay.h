// `--impair TRACE`: the trace-replaying relay (LinkImpairer) and its control socket
// (ImpairControl) on a thread of their own, owned by the caller's command.
#pragma once

#include "LinkImpairer.h"

#include <QThread>
#include <memory>

namespace onionvoice::cli {

class ImpairControl;

class ImpairRelay {
public:
    // Reads the trace and starts listening; nullptr with *error (the file's line and reason for a
    // malformed trace).
    static std::unique_ptr<ImpairRelay> start(const QString& tracePath, int slotCount,
                                              const QString& controlPath, QString* error);
    ~ImpairRelay();

    std::vector<quint16> ports() const { return ports_; }
    LinkImpairer& impairer() { return *impairer_; }

private:
    ImpairRelay() = default;

    QThread thread_;
    LinkImpairer* impairer_ = nullptr; // live on thread_, deleted there
    ImpairControl* control_ = nullptr;
    std::vector<quint16> ports_;
};

} // namespace onionvoice::cli
