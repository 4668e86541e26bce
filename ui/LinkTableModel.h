// The per-link table of the call window: one row per link slot, coloured by the link's health,
// replaced wholesale by each statistics snapshot.
#pragma once

#include "call/CallTypes.h"

#include <QAbstractTableModel>

namespace onionvoice::ui {

class LinkTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Slot, State, Group, Rtt, Delay, Sent, Received, Failures, Health, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setLinks(const QList<call::LinkStatistics>& links);
    const QList<call::LinkStatistics>& links() const { return links_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QList<call::LinkStatistics> links_;
};

} // namespace onionvoice::ui
