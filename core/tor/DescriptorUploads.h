// Follows HS_DESC events for one onion address: how many descriptor uploads tor launched and how
// many each HSDir confirmed or refused. The first confirmation makes the service reachable.
#pragma once

#include "TorController.h"

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
};

} // namespace onionvoice::tor
