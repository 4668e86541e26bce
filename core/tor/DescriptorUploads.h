// Follows HS_DESC events for one onion address: how many descriptor uploads tor launched and how
// many each HSDir confirmed or refused. The first confirmation makes the service reachable; only
// an answer to an upload launched since the last reset counts, so an upload of the descriptor a
// republished service replaced, still in flight, does not make the new one reachable.
#pragma once

#include "TorController.h"

#include <QHash>
#include <QObject>

namespace onionvoice::tor {

class DescriptorUploads : public QObject {
    Q_OBJECT
public:
    DescriptorUploads(TorController* controller, QString address, QObject* parent = nullptr);

    // Forgets earlier uploads (a republished service starts counting again).
    void reset();

    int launched() const { return launched_; }
    int uploaded() const { return uploaded_; }
    int failed() const { return failed_; }
    // Every launched upload has been answered and at least one succeeded.
    bool allSettled() const { return uploaded_ > 0 && uploaded_ + failed_ >= launched_; }

signals:
    void firstUploaded();

private:
    void onEvent(const TorEvent& event);

    QString address_;
    int launched_ = 0;
    int uploaded_ = 0;
    int failed_ = 0;
    QHash<QByteArray, int> awaited_; // HSDir -> uploads launched there and not answered yet
};

} // namespace onionvoice::tor
