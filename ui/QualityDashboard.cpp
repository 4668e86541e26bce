// The quality dashboard.
#include "QualityDashboard.h"

#include "CallRating.h"
#include "DelayChart.h"
#include "LinkTableModel.h"
#include "Tone.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace onionvoice::ui {

QualityDashboard::QualityDashboard(QWidget* parent)
    : QWidget(parent)
    , grid_(new QGridLayout)
    , links_(new LinkTableModel(this))
    , table_(new QTableView(this))
    , chart_(new DelayChart(this)) {
    setObjectName(QStringLiteral("qualityDashboard"));
    rating_ = addRow(tr("Quality:"), QStringLiteral("ratingLabel"),
                     tr("Estimated mean opinion score (1–5) and E-model R: good from R 80, fair "
                        "from R 60, poor below"));
    diagnosis_ = addRow(tr("Trouble:"), QStringLiteral("diagnosisLabel"),
                        tr("Whether the network or the other side is the problem"));
    diagnosis_->setWordWrap(true);
    delay_ = addRow(tr("Delay:"), QStringLiteral("delayLabel"),
                    tr("Estimated one-way network delay of the frames, median and 99th "
                       "percentile over the last 30 seconds"));
    jitter_ = addRow(tr("Jitter buffer:"), QStringLiteral("jitterLabel"),
                     tr("How long frames wait before they are played: the target the buffer "
                        "aims for and what it holds now"));
    losses_ = addRow(tr("Late / lost / concealed:"), QStringLiteral("lossLabel"),
                     tr("Frames that came too late, frames that never came, and how much audio "
                        "was made up to hide them"));
    cells_ = addRow(tr("Tor cells:"), QStringLiteral("cellsLabel"),
                    tr("Tor cells this call sends per second (one per record)"));
    linksUp_ =
        addRow(tr("Links:"), QStringLiteral("linksUpLabel"), tr("Tor circuits carrying this call"));
    preset_ = addRow(tr("Security preset:"), QStringLiteral("presetLabel"),
                     tr("The security preset in force for this call"));
    grid_->setColumnStretch(1, 1);

    table_->setObjectName(QStringLiteral("linkTable"));
    table_->setModel(links_);
    table_->setAccessibleName(tr("Tor links of the call")); // for screen readers: no label
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    // Tab leaves the table: it is read-only, and walking its cells trapped the keyboard in it.
    table_->setTabKeyNavigation(false);
    table_->setToolTip(tr("Each Tor link of the call; green is healthy, yellow slow, red bad, "
                          "grey down"));
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(chart_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(grid_);
    layout->addWidget(split, 1);
    clear();
}

QLabel* QualityDashboard::addRow(const QString& label, const QString& objectName,
                                 const QString& toolTip) {
    const int row = grid_->rowCount();
    auto* name = new QLabel(label, this);
    auto* value = new QLabel(this);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    name->setToolTip(toolTip);
    value->setToolTip(toolTip);
    grid_->addWidget(name, row, 0, Qt::AlignTop);
    grid_->addWidget(value, row, 1);
    return value;
}

void QualityDashboard::setPreset(const QString& preset) {
    preset_->setText(preset);
}

void QualityDashboard::clear() {
    for (QLabel* l : {rating_, diagnosis_, delay_, jitter_, losses_, cells_, linksUp_})
        l->setText(tr("–"));
    links_->setLinks({});
    chart_->clear();
    history_.clear();
}

void QualityDashboard::update(const call::CallStatistics& s) {
    using namespace std::chrono_literals;
    history_.emplace_back(s.duration, CallProgress{s.framesReceived, s.speakerStarved});
    while (history_.size() > 1 && history_[1].first <= s.duration - 2s)
        history_.pop_front();
    const CallRating rating = rateCall(s);
    static const QHash<CallRating, Tone> tones{{CallRating::Good, Tone::Good},
                                               {CallRating::Fair, Tone::Fair},
                                               {CallRating::Poor, Tone::Error},
                                               {CallRating::Unknown, Tone::Muted}};
    rating_->setText(rating == CallRating::Unknown
                         ? CallJudgement::describe(rating)
                         // %L: the user's decimal comma and digit grouping ("MOS 4,10" in German).
                         : tr("<b style=\"color:%1\">%2</b> — MOS %L3, R %L4")
                               .arg(toneColour(tones.value(rating), this).name(),
                                    CallJudgement::describe(rating))
                               .arg(s.mos, 0, 'f', 2)
                               .arg(s.rFactor, 0, 'f', 0));
    diagnosis_->setText(CallJudgement::diagnose(s, history_.front().second));
    delay_->setText(tr("%L1 ms median, %L2 ms p99 (budget %L3 ms)")
                        .arg(s.networkDelayP50Ms, 0, 'f', 0)
                        .arg(s.networkDelayP99Ms, 0, 'f', 0)
                        .arg(RatingThresholds::kDelayBudgetMs));
    jitter_->setText(
        tr("target %L1 ms, holding %L2 ms").arg(s.jitterTarget.count()).arg(s.jitterLevel.count()));
    losses_->setText(tr("%L1 late, %L2 lost, %L3 ms concealed")
                         .arg(s.late)
                         .arg(s.lost)
                         .arg(s.concealed.count()));
    cells_->setText(tr("%L1 per second").arg(s.cellsPerSecond, 0, 'f', 1));
    linksUp_->setText(tr("%1 of %2 open").arg(s.linksUp()).arg(s.links.size()));
    links_->setLinks(s.links);
    if (s.intervalDelayMaxMs >= 0)
        chart_->addPoint(s.duration, s.intervalDelayMaxMs);
}

} // namespace onionvoice::ui
