// The scheduling policy interface: which link(s) carry the next packet, and how links are ranked
// into groups at each window. Implementations: simple, torfone, alternate, double-send (DONAR
// §4.2) and OnionVoice's adaptive policy.
#pragma once

#include "DeliveryTracker.h"
#include "LinkGroups.h"
#include "LinkMonitor.h"
#include "Types.h"

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace onionvoice::multipath {

struct SchedulingContext {
    Time now;
    const LinkGroups& groups;
    const LinkMonitor& monitor;
    const DeliveryTracker& delivery;
    LinkId previousLink; // the link of the previous packet's first copy (kNoLink at start)
};

// Up to two links for one packet; each gets its own record (own transmission number).
class LinkSelection {
public:
    void add(LinkId link) {
        if (link != kNoLink && count_ < links_.size() && !contains(link))
            links_[count_++] = link;
    }
    bool contains(LinkId link) const {
        return std::find(links_.begin(), links_.begin() + long(count_), link) !=
               links_.begin() + long(count_);
    }
    std::span<const LinkId> links() const { return {links_.data(), count_}; }
    bool empty() const { return count_ == 0; }

private:
    std::array<LinkId, 2> links_{kNoLink, kNoLink};
    std::size_t count_ = 0;
};

class SchedulingPolicy {
public:
    virtual ~SchedulingPolicy() = default;
    virtual std::string_view name() const = 0;
    // Ranking key used when the groups are re-ranked (lower is better); nullopt ranks last.
    virtual std::optional<double> rankKey(const std::optional<LinkScore>& score) const;
    virtual LinkSelection select(const SchedulingContext& context) = 0;
    // The link in this slot went down or was replaced: what the policy learnt of it describes
    // another circuit.
    virtual void linkReset(LinkId) {}
};

// The policies by their command-line names.
std::vector<std::string_view> policyNames();
// nullptr for an unknown name.
std::unique_ptr<SchedulingPolicy> makePolicy(std::string_view name);

} // namespace onionvoice::multipath
