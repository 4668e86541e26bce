// Link group bookkeeping and the per-window re-ranking of DONAR §4.1.
#include "LinkGroups.h"

#include <algorithm>

namespace onionvoice::multipath {

LinkGroups::LinkGroups(GroupSizes sizes)
    : sizes_(sizes) {}

std::vector<LinkId>& LinkGroups::list(LinkGroup group) {
    switch (group) {
    case LinkGroup::First:
        return first_;
    case LinkGroup::Second:
        return second_;
    case LinkGroup::Inactive:
        break;
    }
    return inactive_;
}

const std::vector<LinkId>& LinkGroups::members(LinkGroup group) const {
    return const_cast<LinkGroups*>(this)->list(group);
}

void LinkGroups::remove(LinkId link) {
    for (auto* l : {&first_, &second_, &inactive_})
        std::erase(*l, link);
}

void LinkGroups::linkUp(LinkId link) {
    if (link >= kMaxLinks)
        return;
    remove(link);
    states_[link] = LinkState::Up;
    lastUsed_[link].reset();
    if (first_.size() < sizes_.first)
        first_.push_back(link);
    else if (second_.size() < sizes_.second)
        second_.push_back(link);
    else
        inactive_.push_back(link);
}

void LinkGroups::linkDown(LinkId link) {
    if (link >= kMaxLinks || states_[link] != LinkState::Up)
        return;
    const auto was = group(link);
    remove(link);
    states_[link] = LinkState::Broken;
    if (was == LinkGroup::Inactive)
        return;
    if (const auto promoted = longestIdleInactive()) {
        std::erase(inactive_, *promoted);
        list(*was).push_back(*promoted);
    }
}

void LinkGroups::markUsed(Time now, LinkId link) {
    if (link < kMaxLinks)
        lastUsed_[link] = now;
}

std::optional<LinkId> LinkGroups::longestIdleInactive() const {
    if (inactive_.empty())
        return std::nullopt;
    // Never-used links count as idle since forever; ties go to the earlier arrival in the group.
    return *std::min_element(inactive_.begin(), inactive_.end(), [this](LinkId a, LinkId b) {
        if (!lastUsed_[a] || !lastUsed_[b])
            return !lastUsed_[a] && lastUsed_[b];
        return *lastUsed_[a] < *lastUsed_[b];
    });
}

void LinkGroups::rerank(const RankKey& key) {
    std::vector<LinkId> active = first_;
    active.insert(active.end(), second_.begin(), second_.end());
    std::vector<std::pair<std::optional<double>, LinkId>> ranked;
    for (LinkId link : active)
        ranked.push_back({key(link), link});
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        if (a.first.has_value() != b.first.has_value())
            return a.first.has_value();
        return a.first.has_value() && *a.first < *b.first;
    });
    active.clear();
    for (const auto& [k, link] : ranked)
        active.push_back(link);

    if (const auto promoted = longestIdleInactive(); promoted && !active.empty()) {
        std::erase(inactive_, *promoted);
        inactive_.push_back(active.back());
        active.back() = *promoted;
    }
    const std::size_t nFirst = std::min(sizes_.first, active.size());
    first_.assign(active.begin(), active.begin() + long(nFirst));
    second_.assign(active.begin() + long(nFirst), active.end());
}

LinkState LinkGroups::state(LinkId link) const {
    return link < kMaxLinks ? states_[link] : LinkState::Absent;
}

std::optional<LinkGroup> LinkGroups::group(LinkId link) const {
    for (LinkGroup g : {LinkGroup::First, LinkGroup::Second, LinkGroup::Inactive}) {
        const auto& m = members(g);
        if (std::find(m.begin(), m.end(), link) != m.end())
            return g;
    }
    return std::nullopt;
}

std::vector<LinkId> LinkGroups::upLinks() const {
    std::vector<LinkId> up;
    for (LinkId link = 0; link < kMaxLinks; ++link)
        if (states_[link] == LinkState::Up)
            up.push_back(link);
    return up;
}

std::optional<Time> LinkGroups::lastUsed(LinkId link) const {
    return link < kMaxLinks ? lastUsed_[link] : std::nullopt;
}

} // namespace onionvoice::multipath
