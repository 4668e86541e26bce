// The link-impairing relay of `onionvoice-cli call --impair` without tor: a fake SOCKS server
// stands in for tor. The SOCKS exchange passes untouched; data is held back at least the trace's
// delay in each direction (it may be late under load, never early) and never reordered; a `down`
// row closes the slot's stream and refuses new ones until the slot's next link; the control
// commands break slots, add delay spikes and report statistics, and refuse malformed input and
// values the relay's clock cannot hold.
#include "ImpairControl.h"
#include "LinkImpairer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <sstream>

using namespace onionvoice;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// tor's side of SOCKS5 with username/password, then an echo that notes when bytes arrived.
class FakeTor : public QObject {
public:
    FakeTor() {
        server_.listen(QHostAddress(QHostAddress::LocalHost), 0);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server_.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, this, [this, s] { onData(s); });
        });
    }
    quint16 port() const { return server_.serverPort(); }

    QByteArray received;
    std::vector<std::pair<Clock::time_point, qsizetype>> arrivals; // when, bytes so far

private:
    void onData(QTcpSocket* s) {
        QByteArray& in = buffers_[s];
        in += s->readAll();
        int& step = steps_[s];
        if (step == 0 && in.size() >= 3) { // 05 01 02
            s->write(QByteArray::fromHex("0502"));
            in.remove(0, 3);
            step = 1;
        }
        if (step == 1 && in.size() >= 2 && in.size() >= 3 + in[1] &&
            in.size() >= 3 + in[1] + in[2 + in[1]]) { // 01 ulen user plen pass
            in.remove(0, 3 + in[1] + in[2 + in[1]]);
            s->write(QByteArray::fromHex("0100"));
            step = 2;
        }
        if (step == 2 && in.size() >= 5 && in.size() >= 7 + in[4]) { // CONNECT, domain name
            in.remove(0, 7 + in[4]);
            s->write(QByteArray::fromHex("05000001000000000000"));
            step = 3;
        }
        if (step == 3 && !in.isEmpty()) {
            received += in;
            arrivals.push_back({Clock::now(), received.size()});
            s->write(in); // echoed at once
            in.clear();
        }
    }

    QTcpServer server_;
    std::map<QTcpSocket*, QByteArray> buffers_;
    std::map<QTcpSocket*, int> steps_;
};

sim::LinkTrace traceOf(const char* csv) {
    std::istringstream in(csv);
    return std::get<sim::LinkTrace>(sim::readLinkTrace(in, "test"));
}

// Slot 0: 120 ms engine → tor, 60 ms back. Slot 1: breaks at 1.5 s, a new link from 3 s.
constexpr const char* kTrace = "# onionvoice-link-trace v1\n"
                               "slot,t_ms,ab_ms,ba_ms\n"
                               "0,0,120,60\n"
                               "0,60000,120,60\n"
                               "1,0,10,10\n"
                               "1,1500,down,down\n"
                               "1,3000,10,10\n";

const QByteArray kSocksRequest = QByteArray::fromHex("050102") +     // greeting: user/password
                                 QByteArray::fromHex("0101750170") + // "u" / "p"
                                 QByteArray::fromHex("050100030178") + QByteArray::fromHex("1e14");
const QByteArray kSocksReply = QByteArray::fromHex("0502"
                                                   "0100"
                                                   "05000001000000000000");

double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

} // namespace

class LinkImpairerTest : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<FakeTor> tor_;
    std::unique_ptr<cli::LinkImpairer> relay_;
    std::unique_ptr<cli::ImpairControl> control_;

    // A client through slot `slot` that has finished its SOCKS exchange.
    std::unique_ptr<QTcpSocket> open(int slot) {
        auto s = std::make_unique<QTcpSocket>();
        s->connectToHost(QHostAddress(QHostAddress::LocalHost), relay_->ports()[std::size_t(slot)]);
        s->write(kSocksRequest);
        // The reply, or the relay closing a refused stream (the caller checks which).
        static_cast<void>(QTest::qWaitFor(
            [&] {
                return s->bytesAvailable() >= kSocksReply.size() ||
                       s->state() == QAbstractSocket::UnconnectedState;
            },
            10000));
        return s;
    }

    QJsonObject slotStats(int slot) {
        const auto stats = QJsonDocument::fromJson(control_->execute("stats")).object();
        return stats.value("slots").toArray().at(slot).toObject();
    }

private slots:
    void init() {
        tor_ = std::make_unique<FakeTor>();
        relay_ = std::make_unique<cli::LinkImpairer>(traceOf(kTrace), 3);
        control_ = std::make_unique<cli::ImpairControl>(relay_.get());
        QString error;
        QVERIFY2(relay_->listen(&error), qPrintable(error));
        relay_->setSocksTarget(net::SocksEndpoint::loopbackPort(tor_->port()));
        relay_->startTraceClock(Clock::now());
    }
    void cleanup() {
        control_.reset();
        relay_.reset();
        tor_.reset();
    }

    void socksPassesAndDataIsHeldInOrder() {
        auto client = open(0);
        QCOMPARE(client->read(kSocksReply.size()), kSocksReply); // untouched by the relay
        QByteArray sent;
        std::vector<Clock::time_point> sentAt;
        for (char c = 'a'; c <= 'e'; ++c) {
            const QByteArray chunk(100, c);
            client->write(chunk);
            client->flush();
            sent += chunk;
            sentAt.push_back(Clock::now());
            QTest::qWait(15);
        }
        QTRY_COMPARE_WITH_TIMEOUT(tor_->received.size(), sent.size(), 10000);
        QCOMPARE(tor_->received, sent); // never reordered
        // Each byte reached tor no earlier than 120 ms after it was written.
        for (const auto& [when, total] : tor_->arrivals) {
            const auto chunk = std::size_t((total - 1) / 100);
            QVERIFY2(ms(when - sentAt[chunk]) >= 119.0,
                     qPrintable(QString::number(ms(when - sentAt[chunk]))));
        }
        // The echo comes back through the relay's 60 ms.
        QTRY_COMPARE_WITH_TIMEOUT(client->bytesAvailable(), sent.size(), 10000);
        QCOMPARE(client->readAll(), sent);
        QCOMPARE(slotStats(0).value("bytes_ab").toDouble(), double(sent.size()));
        QCOMPARE(slotStats(0).value("bytes_ba").toDouble(), double(sent.size()));
    }

    void downRowClosesTheStreamAndRefusesUntilTheNextLink() {
        auto client = open(1);
        QCOMPARE(client->read(kSocksReply.size()), kSocksReply);
        QSignalSpy closed(client.get(), &QTcpSocket::disconnected);
        QTRY_VERIFY_WITH_TIMEOUT(!closed.isEmpty(), 10000); // the 1.5 s down row
        QCOMPARE(slotStats(1).value("closed_by_trace").toDouble(), 1.0);
        QCOMPARE(slotStats(1).value("trace_state").toString(), "down");
        auto during = open(1); // the link is down: refused
        QTRY_COMPARE_WITH_TIMEOUT(during->state(), QAbstractSocket::UnconnectedState, 10000);
        QCOMPARE(slotStats(1).value("refused").toDouble(), 1.0);
        QTRY_COMPARE_WITH_TIMEOUT(slotStats(1).value("trace_state").toString(), "up", 10000);
        auto after = open(1); // the slot's next link
        QCOMPARE(after->read(kSocksReply.size()), kSocksReply);
        QCOMPARE(after->state(), QAbstractSocket::ConnectedState);
    }

    void controlBreaksSlotsAndAddsDelay() {
        auto a = open(0);
        auto b = open(2); // slot 2 is not in the trace: no link there
        QTRY_COMPARE_WITH_TIMEOUT(b->state(), QAbstractSocket::UnconnectedState, 10000);
        QCOMPARE(a->read(kSocksReply.size()), kSocksReply);
        QCOMPARE(control_->execute("delay 0 300 5"), QByteArray("ok"));
        const auto start = Clock::now();
        a->write(QByteArray(50, 'x'));
        QTRY_COMPARE_WITH_TIMEOUT(tor_->received.size(), 50, 10000);
        QVERIFY(ms(tor_->arrivals.back().first - start) >= 419.0); // 120 + 300
        QCOMPARE(slotStats(0).value("extra_delay_ms").toDouble(), 300.0);
        QSignalSpy closed(a.get(), &QTcpSocket::disconnected);
        QCOMPARE(control_->execute("break 0 for 60"), QByteArray("ok"));
        QTRY_VERIFY_WITH_TIMEOUT(!closed.isEmpty(), 10000);
        QCOMPARE(slotStats(0).value("closed_by_control").toDouble(), 1.0);
        QVERIFY(slotStats(0).value("held_down").toBool());
        auto refused = open(0); // held down for 60 s
        QTRY_COMPARE_WITH_TIMEOUT(refused->state(), QAbstractSocket::UnconnectedState, 10000);
        for (const char* bad :
             {"break", "break 7", "break 0 for", "delay 0 x 1", "delay 0 10", "frob", "break -1"})
            QVERIFY2(control_->execute(bad).startsWith("error"), bad);
    }

    // Fault: a trace's delay or `down` time above about 9.2e12 ms overflowed the conversion to the
    // relay's nanosecond clock (undefined behaviour). Such a trace is refused where it is read,
    // with its line, and a control delay is held to the trace's limit.
    void valuesTheRelaysClockCannotHoldAreRefused() {
        for (const char* rows : {"0,0,1e13,1\n", "0,0,1,1\n0,1e13,down,down\n"}) {
            std::istringstream in(std::string("# onionvoice-link-trace v1\n"
                                              "slot,t_ms,ab_ms,ba_ms\n") +
                                  rows);
            const auto read = sim::readLinkTrace(in, "impair.csv");
            QVERIFY2(std::holds_alternative<sim::TraceError>(read), rows);
        }
        QVERIFY(control_->execute("delay 0 3600001 1").startsWith("error delay"));
        QCOMPARE(control_->execute("delay 0 3600000 1"), QByteArray("ok"));
    }
};

QTEST_GUILESS_MAIN(LinkImpairerTest)
#include "tst_linkimpairer.moc"
