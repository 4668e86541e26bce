// Unit tests of LinkGroups: initial fill, re-ranking, one demotion and promotion per window, and
// broken/replacement links.
#include "multipath/LinkGroups.h"

#include <QTest>
#include <map>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

namespace {

LinkGroups twelveLinks() {
    LinkGroups g({3, 3});
    for (LinkId l = 0; l < 12; ++l)
        g.linkUp(l);
    return g;
}

std::vector<LinkId> ids(std::initializer_list<int> v) {
    return std::vector<LinkId>(v.begin(), v.end());
}

} // namespace

class LinkGroupsTest : public QObject {
    Q_OBJECT
private slots:
    void firstLinksFillTheGroups() {
        const LinkGroups g = twelveLinks();
        QCOMPARE(g.members(LinkGroup::First), ids({0, 1, 2}));
        QCOMPARE(g.members(LinkGroup::Second), ids({3, 4, 5}));
        QCOMPARE(g.members(LinkGroup::Inactive).size(), std::size_t(6));
    }

    void rerankSortsAndRotatesOneLink() {
        LinkGroups g = twelveLinks();
        g.markUsed(1s, 6);
        g.markUsed(2s, 7); // 8 … 11 were never used: 8 is the longest idle (first in line)
        const std::map<LinkId, double> key{{0, 5}, {1, 1}, {2, 9}, {3, 0}, {4, 7}, {5, 3}};
        g.rerank([&](LinkId l) -> std::optional<double> {
            if (auto it = key.find(l); it != key.end())
                return it->second;
            return std::nullopt;
        });
        // Sorted: 3 1 5 0 4 2; worst (2) demoted, 8 promoted into the last place.
        QCOMPARE(g.members(LinkGroup::First), ids({3, 1, 5}));
        QCOMPARE(g.members(LinkGroup::Second), ids({0, 4, 8}));
        QCOMPARE(g.group(2), LinkGroup::Inactive);
        QCOMPARE(g.group(8), LinkGroup::Second);
    }

    void unknownRanksLast() {
        LinkGroups g = twelveLinks();
        g.rerank([](LinkId l) -> std::optional<double> {
            if (l == 0)
                return std::nullopt;
            return double(10 - l);
        });
        // 0 has no score: it ranks last and is the one demoted.
        QCOMPARE(g.group(0), LinkGroup::Inactive);
        QCOMPARE(g.members(LinkGroup::First), ids({5, 4, 3}));
    }

    void brokenLinkIsReplacedFromInactiveAndReturnsInactive() {
        LinkGroups g = twelveLinks();
        g.markUsed(1s, 6);
        g.linkDown(1);
        QCOMPARE(g.state(1), LinkState::Broken);
        QVERIFY(!g.group(1).has_value());
        // 7 … 11 never used; 7 is first in line.
        QCOMPARE(g.members(LinkGroup::First), ids({0, 2, 7}));
        g.linkUp(1); // its replacement
        QCOMPARE(g.group(1), LinkGroup::Inactive);
        QCOMPARE(g.upLinks().size(), std::size_t(12));
    }

    void fewLinksStillWork() {
        LinkGroups g({3, 3});
        g.linkUp(0);
        g.linkUp(1);
        g.rerank([](LinkId l) { return std::optional<double>(-double(l)); });
        QCOMPARE(g.members(LinkGroup::First), ids({1, 0}));
        QVERIFY(g.members(LinkGroup::Second).empty());
        g.linkDown(0);
        g.linkDown(1);
        QVERIFY(g.upLinks().empty());
        g.rerank([](LinkId) { return std::optional<double>(0); });
        QVERIFY(g.members(LinkGroup::First).empty());
    }
};

QTEST_APPLESS_MAIN(LinkGroupsTest)
#include "tst_linkgroups.moc"
