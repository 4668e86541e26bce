// Unit tests of the link-trace reader: the format of ARCHITECTURE.md, interpolation, breakage and
// replacement, and a file-and-line error for each kind of malformed input or value out of range.
#include "sim/LinkTrace.h"

#include <QTest>
#include <sstream>

using namespace onionvoice::sim;

namespace {

std::variant<LinkTrace, TraceError> parse(const std::string& text) {
    std::istringstream in(text);
    return readLinkTrace(in, "t.csv");
}

const char* kGood = "# onionvoice-link-trace v1\n"
                    "slot,t_ms,ab_ms,ba_ms\n"
                    "0,0,182.4,179.0\n"
                    "# a comment\n"
                    "1,0,300,310\n"
                    "0,20,181.0,184.2\n"
                    "0,61200,down,down\n"
                    "0,67340,210.2,205.5\n";

} // namespace

class LinkTraceTest : public QObject {
    Q_OBJECT
private slots:
    void readsTheArchitectureExample() {
        const auto parsed = parse(kGood);
        QVERIFY(std::holds_alternative<LinkTrace>(parsed));
        const auto& t = std::get<LinkTrace>(parsed);
        QCOMPARE(t.bySlot.size(), std::size_t(2));
        QCOMPARE(t.bySlot[0].size(), std::size_t(2));
        QCOMPARE(t.durationMs, 67340.0);
        const LinkLife& first = t.bySlot[0][0];
        QCOMPARE(first.delayAt(Direction::AtoB, 10), (182.4 + 181.0) / 2);
        QCOMPARE(first.delayAt(Direction::BtoA, 30000), 184.2); // held after the last sample
        QVERIFY(first.aliveAt(61199.9));
        QVERIFY(!first.aliveAt(61200));
        const LinkLife& replacement = t.bySlot[0][1];
        QVERIFY(!replacement.aliveAt(67000));
        QVERIFY(replacement.aliveAt(67340));
        QCOMPARE(replacement.delayAt(Direction::AtoB, 70000), 210.2);
    }

    void writeThenReadIsTheSame() {
        const auto t = std::get<LinkTrace>(parse(kGood));
        std::stringstream out;
        writeLinkTrace(out, t);
        const auto again = std::get<LinkTrace>(readLinkTrace(out, "again"));
        QCOMPARE(again.bySlot.size(), t.bySlot.size());
        QCOMPARE(again.bySlot[0][1].samples.front().abMs, 210.2);
        QCOMPARE(*again.bySlot[0][0].downMs, 61200.0);
    }

    void malformed_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        const QString head = "# onionvoice-link-trace v1\nslot,t_ms,ab_ms,ba_ms\n";
        QTest::newRow("no magic") << "slot,t_ms,ab_ms,ba_ms\n0,0,1,1\n" << 1;
        QTest::newRow("wrong version") << "# onionvoice-link-trace v2\n" << 1;
        QTest::newRow("no header") << "# onionvoice-link-trace v1\n0,0,1,1\n" << 2;
        QTest::newRow("fields") << head + "0,0,1\n" << 3;
        QTest::newRow("slot text") << head + "x,0,1,1\n" << 3;
        QTest::newRow("slot range") << head + "16,0,1,1\n" << 3;
        QTest::newRow("slot fraction") << head + "1.5,0,1,1\n" << 3;
        QTest::newRow("negative time") << head + "0,-1,1,1\n" << 3;
        QTest::newRow("time backwards") << head + "0,10,1,1\n0,5,1,1\n" << 4;
        QTest::newRow("same time") << head + "0,10,1,1\n0,10,1,1\n" << 4;
        QTest::newRow("nan") << head + "0,0,nan,1\n" << 3;
        QTest::newRow("inf") << head + "0,0,1,inf\n" << 3;
        QTest::newRow("negative delay") << head + "0,0,-3,1\n" << 3;
        QTest::newRow("half down") << head + "0,0,1,1\n0,5,down,7\n" << 4;
        QTest::newRow("down twice") << head + "0,0,1,1\n0,5,down,down\n0,6,down,down\n" << 5;
        QTest::newRow("down first") << head + "0,0,down,down\n" << 3;
        QTest::newRow("slot gap") << head + "1,0,1,1\n" << 3;
        QTest::newRow("empty") << "" << 1;
        QTest::newRow("trailing junk") << head + "0,0,1,1x\n" << 3;
        // Fault: no upper limits. A t_ms of 1e12 made the simulator allocate until it failed
        // (exit status 1, no FILE:LINE), a delay of 1e300 came out of `run --json` as another
        // number, and the impairing relay's clock overflowed past 9.2e12 ms.
        QTest::newRow("time 1e12") << head + "0,1e12,1,1\n" << 3;
        QTest::newRow("time past two days") << head + "0,0,1,1\n0,172800000.1,1,1\n" << 4;
        QTest::newRow("down past two days") << head + "0,0,1,1\n0,1e13,down,down\n" << 4;
        QTest::newRow("delay 1e300") << head + "0,0,1,1e300\n" << 3;
        QTest::newRow("delay over an hour") << head + "0,0,3600000.1,1\n" << 3;
    }
    void malformed() {
        QFETCH(QString, text);
        QFETCH(int, line);
        const auto parsed = parse(text.toStdString());
        QVERIFY(std::holds_alternative<TraceError>(parsed));
        const auto& e = std::get<TraceError>(parsed);
        QCOMPARE(e.line, line);
        QCOMPARE(e.file, std::string("t.csv"));
        QVERIFY(!e.message.empty());
        QVERIFY(e.toString().find("t.csv:" + std::to_string(line) + ":") == 0);
    }

    void theLimitsThemselvesAreAccepted() {
        const auto parsed = parse("# onionvoice-link-trace v1\nslot,t_ms,ab_ms,ba_ms\n"
                                  "0,0,3600000,0\n0,172800000,0,3600000\n");
        QVERIFY(std::holds_alternative<LinkTrace>(parsed));
        QCOMPARE(std::get<LinkTrace>(parsed).durationMs, kMaxTraceTimeMs);
    }

    void missingFile() {
        const auto parsed = readLinkTraceFile("/nonexistent/trace.csv");
        QVERIFY(std::holds_alternative<TraceError>(parsed));
    }
};

QTEST_APPLESS_MAIN(LinkTraceTest)
#include "tst_linktrace.moc"
