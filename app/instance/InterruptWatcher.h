// Turns SIGINT and SIGTERM into a Qt signal on the main thread (self-pipe trick): the handler only
// writes one byte, the event loop does the hang-up and the orderly stop of tor.
#pragma once

#include <QObject>
#include <QSocketNotifier>
#include <memory>

namespace onionvoice::app {

class InterruptWatcher : public QObject {
    Q_OBJECT
public:
    explicit InterruptWatcher(QObject* parent = nullptr);
    ~InterruptWatcher() override;

    int count() const { return count_; }

signals:
    // Emitted for each SIGINT / SIGTERM received.
    void interrupted(int count);

private:
    void onReadable();

    std::unique_ptr<QSocketNotifier> notifier_;
    int count_ = 0;
};

} // namespace onionvoice::app
