// The reference policies: simple and torfone (the state of the art DONAR compares with) and
// DONAR's alternate and double-send (§4.2). The adaptive policy lives in AdaptivePolicy.cpp.
#include "AdaptivePolicy.h"
#include "SchedulingPolicy.h"

namespace onionvoice::multipath {
namespace {

// Round-robin over the members of one group, robust to the group changing between calls.
class RoundRobin {
public:
    LinkId next(const std::vector<LinkId>& members) {
        if (members.empty())
            return kNoLink;
        return members[cursor_++ % members.size()];
    }

private:
    std::size_t cursor_ = 0;
};

// One fixed link (slot 0); while it is broken, nothing is sent until its replacement is up.
class SimplePolicy final : public SchedulingPolicy {
public:
    std::string_view name() const override { return "simple"; }
    LinkSelection select(const SchedulingContext& c) override {
        LinkSelection s;
        if (c.groups.state(0) == LinkState::Up)
            s.add(0);
        return s;
    }
};

// TorFone's duplication: every packet on the same two links (slots 0 and 1).
class TorfonePolicy final : public SchedulingPolicy {
public:
    std::string_view name() const override { return "torfone"; }
    LinkSelection select(const SchedulingContext& c) override {
        LinkSelection s;
        for (LinkId link : {LinkId(0), LinkId(1)})
            if (c.groups.state(link) == LinkState::Up)
                s.add(link);
        return s;
    }
};

// DONAR ALTERNATE: one link per packet, alternating between the first- and second-class groups,
// round-robin inside each, so consecutive packets (and so a frame and its piggybacked copy)
// always travel on different links.
class AlternatePolicy final : public SchedulingPolicy {
public:
    std::string_view name() const override { return "alternate"; }
    LinkSelection select(const SchedulingContext& c) override {
        const auto& first = c.groups.members(LinkGroup::First);
        const auto& second = c.groups.members(LinkGroup::Second);
        const bool useFirst = (packet_++ % 2 == 0 && !first.empty()) || second.empty();
        LinkSelection s;
        s.add(useFirst ? firstCursor_.next(first) : secondCursor_.next(second));
        return s;
    }

private:
    std::uint64_t packet_ = 0;
    RoundRobin firstCursor_, secondCursor_;
};

// DONAR DOUBLE-SEND: every packet on two links, one from each group.
class DoubleSendPolicy final : public SchedulingPolicy {
public:
    std::string_view name() const override { return "double-send"; }
    LinkSelection select(const SchedulingContext& c) override {
        LinkSelection s;
        s.add(firstCursor_.next(c.groups.members(LinkGroup::First)));
        s.add(secondCursor_.next(c.groups.members(LinkGroup::Second)));
        return s;
    }

private:
    RoundRobin firstCursor_, secondCursor_;
};

} // namespace

std::optional<double> SchedulingPolicy::rankKey(const std::optional<LinkScore>& score) const {
    // DONAR ranks links by their out-of-order metric.
    if (!score)
        return std::nullopt;
    return score->reorder;
}

std::vector<std::string_view> policyNames() {
    return {"simple", "torfone", "alternate", "double-send", "adaptive"};
}

std::unique_ptr<SchedulingPolicy> makePolicy(std::string_view name) {
    if (name == "simple")
        return std::make_unique<SimplePolicy>();
    if (name == "torfone")
        return std::make_unique<TorfonePolicy>();
    if (name == "alternate")
        return std::make_unique<AlternatePolicy>();
    if (name == "double-send")
        return std::make_unique<DoubleSendPolicy>();
    if (name == "adaptive")
        return std::make_unique<AdaptivePolicy>();
    return nullptr;
}

} // namespace onionvoice::multipath
