// DONAR's link groups (§4.1): first-class, second-class and inactive links, re-ranked every window,
// with one demotion and one promotion per window so that every link gets measured now and then.
#pragma once

#include "Types.h"

#include <array>
#include <functional>
#include <optional>
#include <vector>

namespace onionvoice::multipath {

enum class LinkState { Absent, Up, Broken };
enum class LinkGroup { First, Second, Inactive };

struct GroupSizes {
    std::size_t first = 3;
    std::size_t second = 3;
};

class LinkGroups {
public:
    explicit LinkGroups(GroupSizes sizes = {});

    // A link (new, or the replacement in a broken link's slot) is usable. It fills a group that
    // is short of links, else it waits in INACTIVE.
    void linkUp(LinkId link);
    // The link broke: it leaves its group, and the longest-idle inactive link takes its place.
    void linkDown(LinkId link);
    void markUsed(Time now, LinkId link);

    // Ranking key of a link: lower is better; nullopt for a link without a score, which ranks
    // after every scored link (broken links are in no group at all).
    using RankKey = std::function<std::optional<double>(LinkId)>;
    // Sorts the active links by key into FIRST and SECOND, after demoting the worst active link
    // and promoting the longest-idle inactive one (once per call of rerank, i.e. once per window).
    void rerank(const RankKey& key);

    LinkState state(LinkId link) const;
    std::optional<LinkGroup> group(LinkId link) const;
    // Members of a group, best ranked first.
    const std::vector<LinkId>& members(LinkGroup group) const;
    std::vector<LinkId> upLinks() const;
    std::optional<Time> lastUsed(LinkId link) const;

private:
    std::vector<LinkId>& list(LinkGroup group);
    std::optional<LinkId> longestIdleInactive() const;
    void remove(LinkId link);

    GroupSizes sizes_;
    std::array<LinkState, kMaxLinks> states_{};
    std::array<std::optional<Time>, kMaxLinks> lastUsed_{};
    std::vector<LinkId> first_, second_, inactive_;
};

} // namespace onionvoice::multipath
