// The call-quality dashboard: rating in plain words, where the trouble is, delays, jitter buffer,
// late/lost/concealed, cells per second and the preset, the per-link table and the delay chart.
// Fed by the engine's statistics snapshots (four a second).
#pragma once

#include "CallRating.h"
#include "call/CallTypes.h"

#include <QWidget>
#include <deque>

class QGridLayout;
class QLabel;
class QTableView;

namespace onionvoice::ui {

class DelayChart;
class LinkTableModel;

class QualityDashboard : public QWidget {
    Q_OBJECT
public:
    explicit QualityDashboard(QWidget* parent = nullptr);

    void setPreset(const QString& preset);
    void update(const call::CallStatistics& statistics);
    void clear();
    const LinkTableModel* linkModel() const { return links_; }

private:
    QLabel* addRow(const QString& label, const QString& objectName, const QString& toolTip);

    QGridLayout* grid_;
    QLabel* rating_;
    QLabel* diagnosis_;
    QLabel* delay_;
    QLabel* jitter_;
    QLabel* losses_;
    QLabel* cells_;
    QLabel* linksUp_;
    QLabel* preset_;
    LinkTableModel* links_;
    QTableView* table_;
    DelayChart* chart_;
    std::deque<std::pair<std::chrono::milliseconds, CallProgress>> history_; // by call duration
};

} // namespace onionvoice::ui
