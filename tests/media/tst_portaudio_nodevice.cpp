// Integration test of the PortAudio backend on a machine without sound devices (CI, and this test
// runs with an empty HOME and no PulseAudio server): starting gives a clear error, not a crash.
// Skipped where real sound hardware exists (not merely where the backend reports devices). And
// the fault of the desktop app's two threads using PortAudio at once (Settings lists devices while
// a call opens its streams): PortAudio itself keeps no lock, and two first initializations at once
// abort inside it.
#include "SoundHardware.h"
#include "media/PortAudioBackend.h"

#include <QStringList>
#include <QTest>
#include <array>
#include <thread>

using namespace onionvoice::media;

class TestPortAudioNoDevice : public QObject {
    Q_OBJECT
private slots:
    void noDeviceIsAClearError() {
        QString error;
        auto backend = PortAudioBackend::create(&error);
        QVERIFY2(backend, qPrintable(error));
        if (onionvoice::test::machineHasSoundHardware())
            QSKIP("this machine has sound hardware");
        QCOMPARE(backend->devices().size(), 0);
        AudioRings rings;
        // The check a call makes before it rings anyone gives the same answer as the start.
        QVERIFY(!backend->devicesPresent(&error));
        QCOMPARE(error, QStringLiteral("no microphone found"));
        error.clear();
        QVERIFY(!backend->start(rings, &error));
        QCOMPARE(error, QStringLiteral("no microphone found"));
        backend->setInputDevice({{}, QStringLiteral("anything")});
        QVERIFY(!backend->devicesPresent(&error));
        QVERIFY2(error.contains("not found"), qPrintable(error));
        QVERIFY(!backend->start(rings, &error));
        QVERIFY2(error.contains("not found"), qPrintable(error));
        backend->setStreams(PortAudioBackend::Streams::PlaybackOnly);
        QVERIFY(!backend->devicesPresent(&error));
        QCOMPARE(error, QStringLiteral("no speaker found"));
        QVERIFY(!backend->start(rings, &error));
        QCOMPARE(error, QStringLiteral("no speaker found")); // the microphone is not looked for
        QVERIFY2(backend->refreshDevices(&error), qPrintable(error));
        QCOMPARE(backend->latency().output.count(), 0);
    }

    // Each round of each thread must still see what one thread alone sees: no devices, and a
    // start refused with the clear error. A round that PortAudio's shared state broke says
    // something else (or aborts).
    void twoThreadsUsePortAudioAtOnce() {
        {
            QString error;
            auto backend = PortAudioBackend::create(&error);
            QVERIFY2(backend, qPrintable(error));
            if (onionvoice::test::machineHasSoundHardware())
                QSKIP("this machine has sound hardware");
            QCOMPARE(backend->devices().size(), 0);
        }
        constexpr int kRounds = 10;
        const QString noMicrophone = QStringLiteral("no microphone found");
        std::array<int, 2> created{};
        std::array<int, 2> refusedClearly{};
        std::array<QStringList, 2> otherAnswers;
        const auto use = [&](std::size_t thread) {
            for (int i = 0; i < kRounds; ++i) {
                QString error;
                auto backend = PortAudioBackend::create(&error);
                if (!backend) {
                    otherAnswers[thread].append(QStringLiteral("create: ") + error);
                    continue;
                }
                ++created[thread];
                const int devices = int(backend->devices().size());
                AudioRings rings;
                const bool started = backend->start(rings, &error);
                if (!started && devices == 0 && error == noMicrophone)
                    ++refusedClearly[thread];
                else
                    otherAnswers[thread].append(
                        QStringLiteral("%1 devices, %2: %3")
                            .arg(devices)
                            .arg(QLatin1String(started ? "started" : "refused"), error));
            }
        };
        std::thread first(use, 0);
        std::thread second(use, 1);
        first.join();
        second.join();
        QVERIFY2(otherAnswers[0].isEmpty() && otherAnswers[1].isEmpty(),
                 qPrintable((otherAnswers[0] + otherAnswers[1]).join(QStringLiteral("; "))));
        QCOMPARE(created, (std::array{kRounds, kRounds}));
        QCOMPARE(refusedClearly, (std::array{kRounds, kRounds}));
    }
};

QTEST_GUILESS_MAIN(TestPortAudioNoDevice)
#include "tst_portaudio_nodevice.moc"
