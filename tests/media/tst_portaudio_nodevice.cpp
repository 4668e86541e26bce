// Integration test of the PortAudio backend on a machine without sound devices (CI, and this test
// runs with an empty HOME and no PulseAudio server): starting gives a clear error, not a crash.
// Skipped where real sound hardware exists.
#include "media/PortAudioBackend.h"

#include <QTest>

using namespace onionvoice::media;

class TestPortAudioNoDevice : public QObject {
    Q_OBJECT
private slots:
    void noDeviceIsAClearError() {
        QString error;
        auto backend = PortAudioBackend::create(&error);
        QVERIFY2(backend, qPrintable(error));
        if (!backend->devices().isEmpty())
            QSKIP("this machine has sound devices");
        AudioRings rings;
        QVERIFY(!backend->start(rings, &error));
        QCOMPARE(error, QStringLiteral("no audio input device found"));
        backend->setInputDevice({{}, QStringLiteral("anything")});
        QVERIFY(!backend->start(rings, &error));
        QVERIFY2(error.contains("not found"), qPrintable(error));
        QVERIFY2(backend->refreshDevices(&error), qPrintable(error));
        QCOMPARE(backend->latency().output.count(), 0);
    }
};

QTEST_GUILESS_MAIN(TestPortAudioNoDevice)
#include "tst_portaudio_nodevice.moc"
