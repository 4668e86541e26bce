// Unit test of what onionvoice-cli prints about a call: the statistics JSON keeps the names that
// scripts and the fault tests read (each link's "state" and "group", "links_up"), whatever types
// the engine uses for them inside.
#include "CallReport.h"

#include <QJsonArray>
#include <QTest>

using namespace onionvoice;

class CallReportTest : public QObject {
    Q_OBJECT
private slots:
    void linkStatesAndGroupsKeepTheirNames() {
        using call::SlotState;
        using multipath::LinkGroup;
        call::CallStatistics s;
        const std::pair<SlotState, std::optional<LinkGroup>> links[] = {
            {SlotState::Up, LinkGroup::First},    {SlotState::Up, LinkGroup::Second},
            {SlotState::Up, LinkGroup::Inactive}, {SlotState::Joining, std::nullopt},
            {SlotState::Down, std::nullopt},
        };
        for (const auto& [state, group] : links) {
            call::LinkStatistics l;
            l.slot = std::uint8_t(s.links.size());
            l.state = state;
            l.group = group;
            s.links.append(l);
        }
        const QJsonObject json = cli::statisticsJson(s);
        QCOMPARE(json.value("links_up").toInt(), 3);
        QStringList states, groups;
        for (const QJsonValue& link : json.value("links").toArray()) {
            states.append(link.toObject().value("state").toString());
            groups.append(link.toObject().value("group").toString());
        }
        QCOMPARE(states, (QStringList{"up", "up", "up", "joining", "down"}));
        QCOMPARE(groups, (QStringList{"first", "second", "inactive", "", ""}));
        QVERIFY(cli::statisticsLine(s).contains("links 3/5"));
    }
};

QTEST_GUILESS_MAIN(CallReportTest)
#include "tst_callreport.moc"
