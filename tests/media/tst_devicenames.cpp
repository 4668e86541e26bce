// Unit tests of the saved sound device found again after a re-plug (media/DeviceNames.h): the
// names ALSA and Windows give one headset in two ports, and devices that only look alike.
#include "media/DeviceNames.h"

#include <QTest>

using namespace onionvoice::media;

class DeviceNamesTest : public QObject {
    Q_OBJECT
private slots:
    void theSameHeadsetInAnotherPortIsFound_data() {
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QString>("saved");
        QTest::addColumn<int>("expected");
        QTest::newRow("alsa card index")
            << QStringList{"HDA Intel PCH: ALC3246 Analog (hw:0,0)", "USB Headset: Audio (hw:3,0)"}
            << "USB Headset: Audio (hw:2,0)" << 1;
        QTest::newRow("windows port number")
            << QStringList{"Microphone (Realtek Audio)", "Headset (3- Jabra Evolve 40)"}
            << "Headset (2- Jabra Evolve 40)" << 1;
        QTest::newRow("windows: saved before any port number")
            << QStringList{"Headset (2- Jabra Evolve 40)"} << "Headset (Jabra Evolve 40)" << 0;
        QTest::newRow("the exact name before a look-alike")
            << QStringList{"USB Headset: Audio (hw:1,0)", "USB Headset: Audio (hw:2,0)"}
            << "USB Headset: Audio (hw:2,0)" << 1;
        QTest::newRow("names without a position")
            << QStringList{"default", "pulse"} << "pulse" << 1;
    }
    void theSameHeadsetInAnotherPortIsFound() {
        QFETCH(QStringList, present);
        QFETCH(QString, saved);
        QFETCH(int, expected);
        const auto found = findSavedDevice(present, saved);
        QVERIFY(found.has_value());
        QCOMPARE(*found, qsizetype(expected));
    }

    void anotherDeviceIsNotTakenForTheSavedOne_data() {
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QString>("saved");
        QTest::newRow("another card, same position")
            << QStringList{"HDA Intel PCH: ALC3246 Analog (hw:0,0)"}
            << "USB Headset: Audio (hw:0,0)";
        QTest::newRow("another subdevice of the card")
            << QStringList{"HDA Intel PCH: HDMI 0 (hw:0,3)"} << "HDA Intel PCH: HDMI 1 (hw:0,7)";
        QTest::newRow("a number that is part of the name")
            << QStringList{"Headset (Jabra Evolve 40)"} << "Headset (Jabra Evolve 65)";
        QTest::newRow("nothing plugged in") << QStringList{} << "USB Headset: Audio (hw:2,0)";
    }
    void anotherDeviceIsNotTakenForTheSavedOne() {
        QFETCH(QStringList, present);
        QFETCH(QString, saved);
        QVERIFY(!findSavedDevice(present, saved).has_value());
    }
};

QTEST_GUILESS_MAIN(DeviceNamesTest)
#include "tst_devicenames.moc"
