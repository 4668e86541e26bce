// Thread ownership of the impairment relay (see ImpairRelay.h).
#include "ImpairRelay.h"

#include "ImpairControl.h"

#include <sys/resource.h>
#include <unistd.h>

namespace onionvoice::cli {
namespace {

constexpr int kRelayNice = -10;

} // namespace

std::unique_ptr<ImpairRelay> ImpairRelay::start(const QString& tracePath, int slotCount,
                                                const QString& controlPath, QString* error) {
    auto read = sim::readLinkTraceFile(tracePath.toStdString());
    if (const auto* bad = std::get_if<sim::TraceError>(&read)) {
        *error = QString::fromStdString(bad->toString());
        return nullptr;
    }
    std::unique_ptr<ImpairRelay> relay(new ImpairRelay);
    relay->thread_.setObjectName(QStringLiteral("impair-relay"));
    relay->impairer_ = new LinkImpairer(std::move(std::get<sim::LinkTrace>(read)), slotCount);
    relay->control_ = new ImpairControl(relay->impairer_);
    relay->impairer_->moveToThread(&relay->thread_);
    relay->control_->moveToThread(&relay->thread_);
    QObject::connect(&relay->thread_, &QThread::finished, relay->impairer_, &QObject::deleteLater);
    QObject::connect(&relay->thread_, &QThread::finished, relay->control_, &QObject::deleteLater);
    relay->thread_.start();
    // Sockets belong to the thread that creates them: listen on the relay's thread.
    bool ok = false;
    QMetaObject::invokeMethod(
        relay->impairer_,
        [&] {
            // The relay is a measuring instrument: on a busy machine its timers must not wait
            // behind the engine or a compiler. A higher priority needs CAP_SYS_NICE; without it
            // the relay runs as it is (its lateness is in `stats` either way).
            if (setpriority(PRIO_PROCESS, id_t(gettid()), kRelayNice) != 0)
                qCWarning(lcImpair) << "running at normal priority (no CAP_SYS_NICE)";
            ok = relay->impairer_->listen(error) && relay->control_->listen(controlPath, error);
            relay->ports_ = relay->impairer_->ports();
        },
        Qt::BlockingQueuedConnection);
    if (!ok)
        return nullptr;
    return relay;
}

ImpairRelay::~ImpairRelay() {
    thread_.quit();
    thread_.wait();
}

} // namespace onionvoice::cli
