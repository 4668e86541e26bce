// Unit test of the ITU-T G.107 E-model against values worked out by hand from the formulas in
// CallQuality.h, and of the mouth-to-ear budget.
#include "media/CallQuality.h"

#include <QTest>

using namespace onionvoice::media;
using namespace std::chrono_literals;

class TestCallQuality : public QObject {
    Q_OBJECT
private slots:
    void defaultsGiveTheG107Reference() {
        // G.107: with all default values R = 93.2, which Annex B maps to MOS 4.41.
        const EModelResult r = computeEModel({});
        QCOMPARE(r.rFactor, 93.2);
        QVERIFY(std::abs(r.mos - 4.409) < 0.001);
    }

    void delayImpairment_data() {
        QTest::addColumn<int>("ta");
        QTest::addColumn<double>("idd");
        // X = log2(Ta/100); Idd = 25 ((1+X^6)^(1/6) - 3 (1+(X/3)^6)^(1/6) + 2)
        QTest::newRow("100 ms") << 100 << 0.0;
        QTest::newRow("150 ms") << 150 << 0.1635;  // X = 0.585
        QTest::newRow("200 ms") << 200 << 3.0444;  // X = 1
        QTest::newRow("400 ms") << 400 << 24.0701; // X = 2
        QTest::newRow("800 ms") << 800 << 40.8325; // X = 3
    }

    void delayImpairment() {
        QFETCH(int, ta);
        QFETCH(double, idd);
        const EModelResult r = computeEModel({std::chrono::milliseconds(ta)});
        QVERIFY2(std::abs(r.delayImpairment - idd) < 0.001,
                 qPrintable(QString::number(r.delayImpairment, 'f', 4)));
        QVERIFY(std::abs(r.rFactor - (93.2 - idd)) < 0.001);
    }

    void lossImpairment() {
        EModelInput in;
        in.packetLossPercent = 5.0;
        // Ie,eff = 0 + 95 * 5 / (5 + 25.1) = 15.781
        EModelResult r = computeEModel(in);
        QVERIFY(std::abs(r.effectiveEquipmentImpairment - 15.781) < 0.001);
        QVERIFY(std::abs(r.rFactor - 77.419) < 0.001);
        // MOS(77.419) = 1 + 2.70966 + 77.419 * 17.419 * 22.581 * 7e-6 = 3.9229
        QVERIFY2(std::abs(r.mos - 3.9229) < 0.001, qPrintable(QString::number(r.mos)));

        // Bursty loss hurts more: BurstR = 2 gives 95 * 5 / (2.5 + 25.1) = 17.210.
        in.burstRatio = 2.0;
        r = computeEModel(in);
        QVERIFY(std::abs(r.effectiveEquipmentImpairment - 17.210) < 0.001);

        // A codec with Ie = 10, Bpl = 20 at 2 % loss: 10 + 85 * 2 / 22 = 17.727.
        in = {};
        in.packetLossPercent = 2.0;
        in.equipmentImpairment = 10.0;
        in.lossRobustness = 20.0;
        r = computeEModel(in);
        QVERIFY(std::abs(r.effectiveEquipmentImpairment - 17.727) < 0.001);
    }

    void mosClampsAtTheEnds() {
        QCOMPARE(mosFromR(-5.0), 1.0);
        QCOMPARE(mosFromR(0.0), 1.0);
        QCOMPARE(mosFromR(120.0), 4.5);
        // R = 50: 1 + 1.75 + 50 * (-10) * 50 * 7e-6 = 2.575
        QVERIFY(std::abs(mosFromR(50.0) - 2.575) < 1e-9);
        EModelInput terrible;
        terrible.mouthToEar = 2000ms;
        terrible.packetLossPercent = 60.0;
        const EModelResult r = computeEModel(terrible);
        QVERIFY(r.rFactor < 0);
        QCOMPARE(r.mos, 1.0);
    }

    void mouthToEarAddsItsParts() {
        MouthToEarBudget budget;
        budget.captureLatency = 10ms;
        budget.network = 250ms;
        budget.jitterBuffer = 60ms;
        budget.playbackLatency = 20ms;
        QCOMPARE(budget.total(),
                 std::chrono::microseconds(10000 + 40000 + 6500 + 250000 + 60000 + 20000));
    }
};

QTEST_GUILESS_MAIN(TestCallQuality)
#include "tst_callquality.moc"
