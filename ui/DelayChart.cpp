// The frame delay chart.
#include "DelayChart.h"

#include "CallRating.h"

#include <QLineSeries>
#include <QValueAxis>

namespace onionvoice::ui {
namespace {
constexpr double kWindowSeconds = 60;
}

DelayChart::DelayChart(QWidget* parent)
    // Handed over at construction: QChartView(parent) makes a chart of its own, and setChart()
    // releases the one it replaces to nobody.
    : QChartView(new QChart, parent)
    , delay_(new QLineSeries)
    , budget_(new QLineSeries)
    , x_(new QValueAxis)
    , y_(new QValueAxis) {
    setObjectName(QStringLiteral("delayChart"));
    setAccessibleName(tr("Frame delay chart")); // for screen readers: a chart has no label
    setToolTip(tr("Estimated one-way delay of the frames received, largest per quarter second; "
                  "above the red line speech arrives too late for a natural conversation"));
    QChart* chart = this->chart();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    delay_->setName(tr("frame delay"));
    budget_->setName(tr("%1 ms budget").arg(RatingThresholds::kDelayBudgetMs));
    QPen budgetPen(QColor(0xc0, 0x20, 0x20));
    budgetPen.setStyle(Qt::DashLine);
    budgetPen.setWidth(2);
    budget_->setPen(budgetPen);
    chart->addSeries(delay_);
    chart->addSeries(budget_);
    x_->setTitleText(tr("seconds"));
    x_->setLabelFormat(QStringLiteral("%d"));
    y_->setTitleText(tr("ms"));
    y_->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    for (QLineSeries* s : {delay_, budget_}) {
        s->attachAxis(x_);
        s->attachAxis(y_);
    }
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(180);
    clear();
}

void DelayChart::clear() {
    delay_->clear();
    x_->setRange(0, kWindowSeconds);
    y_->setRange(0, 400);
    budget_->replace({{0, RatingThresholds::kDelayBudgetMs},
                      {kWindowSeconds, RatingThresholds::kDelayBudgetMs}});
}

int DelayChart::pointCount() const {
    return int(delay_->count());
}

void DelayChart::addPoint(std::chrono::milliseconds at, double delayMs) {
    const double t = double(at.count()) / 1000.0;
    delay_->append(t, delayMs);
    while (delay_->count() > 0 && delay_->at(0).x() < t - kWindowSeconds)
        delay_->remove(0);
    const double start = std::max(0.0, t - kWindowSeconds);
    x_->setRange(start, start + kWindowSeconds);
    budget_->replace({{start, RatingThresholds::kDelayBudgetMs},
                      {start + kWindowSeconds, RatingThresholds::kDelayBudgetMs}});
    double top = 400;
    for (const QPointF& p : delay_->points())
        top = std::max(top, p.y() * 1.1);
    y_->setRange(0, top);
}

} // namespace onionvoice::ui
