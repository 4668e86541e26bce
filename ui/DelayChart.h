// Frame delay over the last 60 seconds of a call (Qt Charts), with the 360 ms one-way budget
// drawn as a line, so a person sees how close the call runs to being late.
#pragma once

#include <QChartView>
#include <chrono>

class QLineSeries;
class QValueAxis;

namespace onionvoice::ui {

class DelayChart : public QChartView {
    Q_OBJECT
public:
    explicit DelayChart(QWidget* parent = nullptr);

    // One point: the largest estimated one-way frame delay at `at` since the call started.
    void addPoint(std::chrono::milliseconds at, double delayMs);
    void clear();
    int pointCount() const;

private:
    QLineSeries* delay_;
    QLineSeries* budget_;
    QValueAxis* x_;
    QValueAxis* y_;
};

} // namespace onionvoice::ui
