// Benchmark of the per-record cost of the multipath engine: schedule + encode at the sender,
// decode + monitor + de-duplicate at the receiver, for each policy, on twelve healthy links.
#include "multipath/MultipathEndpoint.h"

#include <QTest>

using namespace onionvoice::multipath;
using namespace std::chrono_literals;

class MultipathBench : public QObject {
    Q_OBJECT
private slots:
    void packetRoundTrip_data() {
        QTest::addColumn<QString>("policy");
        for (auto name : policyNames())
            QTest::newRow(std::string(name).c_str())
                << QString::fromLatin1(name.data(), qsizetype(name.size()));
    }
    void packetRoundTrip() {
        QFETCH(QString, policy);
        MultipathEndpoint a(EndpointConfig{}, makePolicy(policy.toStdString()));
        MultipathEndpoint b(EndpointConfig{}, makePolicy(policy.toStdString()));
        for (LinkId l = 0; l < 12; ++l) {
            a.linkUp(l);
            b.linkUp(l);
        }
        std::vector<ReceivedFrame> delivered;
        std::uint32_t seq = 0;
        Frame frame{0, std::vector<std::uint8_t>(160, 0x5A)};
        std::uint64_t records = 0;
        // One iteration = one packet each way: what a call does every 40 ms.
        QBENCHMARK {
            const Time now = Millis(40 * seq);
            frame.seq = seq;
            for (auto* sender : {&a, &b}) {
                MultipathEndpoint* receiver = sender == &a ? &b : &a;
                for (const auto& rec : sender->sendPacket(now, std::span(&frame, 1))) {
                    delivered.clear();
                    receiver->receive(now + 150ms + Millis(seq % 7), rec.link, rec.bytes,
                                      delivered);
                    ++records;
                }
            }
            ++seq;
        }
        QVERIFY(records >= 2 * std::uint64_t(seq));
        QCOMPARE(b.receiver().counters().freshFirst + b.receiver().counters().piggybackedFirst,
                 std::uint64_t(seq));
    }
};

QTEST_APPLESS_MAIN(MultipathBench)
#include "bench_multipath.moc"
