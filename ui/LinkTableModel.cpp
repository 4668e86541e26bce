// The per-link table model.
#include "LinkTableModel.h"

#include "CallRating.h"
#include "Tone.h"

namespace onionvoice::ui {
namespace {

QString milliseconds(double ms) {
    return ms < 0 ? QStringLiteral("–") : QString::number(ms, 'f', 0);
}

QString stateText(call::SlotState state) {
    switch (state) {
    case call::SlotState::Up:
        return LinkTableModel::tr("up");
    case call::SlotState::Joining:
        return LinkTableModel::tr("joining");
    case call::SlotState::Down:
        break;
    }
    return LinkTableModel::tr("down");
}

QString groupText(std::optional<multipath::LinkGroup> group) {
    if (!group)
        return {};
    switch (*group) {
    case multipath::LinkGroup::First:
        return LinkTableModel::tr("first");
    case multipath::LinkGroup::Second:
        return LinkTableModel::tr("second");
    case multipath::LinkGroup::Inactive:
        break;
    }
    return LinkTableModel::tr("spare");
}

} // namespace

void LinkTableModel::setLinks(const QList<call::LinkStatistics>& links) {
    if (links.size() != links_.size()) {
        beginResetModel();
        links_ = links;
        endResetModel();
        return;
    }
    links_ = links;
    if (!links_.isEmpty())
        emit dataChanged(index(0, 0), index(int(links_.size()) - 1, ColumnCount - 1));
}

int LinkTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(links_.size());
}

int LinkTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LinkTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= links_.size())
        return {};
    const call::LinkStatistics& l = links_.at(index.row());
    const LinkHealth health = linkHealth(l);
    if (role == Qt::BackgroundRole)
        return healthColour(health);
    // The tints are light in every colour scheme, so the text on them is dark in every one.
    if (role == Qt::ForegroundRole)
        return textOnTint();
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Rtt && index.column() <= Failures
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Slot:
        return l.slot;
    case State:
        return stateText(l.state);
    case Group:
        return groupText(l.group);
    case Rtt:
        return milliseconds(l.rttMs);
    case Delay:
        return milliseconds(l.relativeDelayMs);
    case Sent:
        return qulonglong(l.recordsSent);
    case Received:
        return qulonglong(l.recordsReceived);
    case Failures:
        return qulonglong(l.failures);
    case Health:
        return CallJudgement::describe(health);
    }
    return {};
}

QVariant LinkTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Group:
            return tr("The link's role in the scheduler: first and second carry audio, spares "
                      "wait to replace a link that turns bad");
        case Rtt:
            return tr("Round-trip time of the link's Tor circuit");
        case Delay:
            return tr("How much later this link delivers than the fastest link");
        case Failures:
            return tr("How often this slot's link broke and was replaced");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Slot:
        return tr("Link");
    case State:
        return tr("State");
    case Group:
        return tr("Role");
    case Rtt:
        return tr("RTT ms");
    case Delay:
        return tr("Delay ms");
    case Sent:
        return tr("Sent");
    case Received:
        return tr("Received");
    case Failures:
        return tr("Failures");
    case Health:
        return tr("Health");
    }
    return {};
}

} // namespace onionvoice::ui
