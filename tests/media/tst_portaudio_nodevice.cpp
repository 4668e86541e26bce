// Integration test of the PortAudio backend on a machine without sound devices (CI, and this test
// runs with an empty HOME and no PulseAudio server): starting gives a clear error, not a crash.
// Skipped where real sound hardware exists. And the fault of the desktop app's two threads using
// PortAudio at once (Settings lists devices while a call opens its streams): PortAudio itself
// keeps no lock, and two first initializations at once abort inside it.
#include "media/PortAudioBackend.h"

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
        if (!backend->devices().isEmpty())
            QSKIP("this machine has sound devices");
        AudioRings rings;
        QVERIFY(!backend->start(rings, &error));
        QCOMPARE(error, QStringLiteral("no microphone found"));
        backend->setInputDevice({{}, QStringLiteral("anything")});
        QVERIFY(!backend->start(rings, &error));
        QVERIFY2(error.contains("not found"), qPrintable(error));
        backend->setStreams(PortAudioBackend::Streams::PlaybackOnly);
        QVERIFY(!backend->start(rings, &error));
        QCOMPARE(error, QStringLiteral("no speaker found")); // the microphone is not looked for
        QVERIFY2(backend->refreshDevices(&error), qPrintable(error));
        QCOMPARE(backend->latency().output.count(), 0);
    }

    void twoThreadsUsePortAudioAtOnce() {
        constexpr int kRounds = 10;
        std::array<int, 2> created{};
        std::array<int, 2> answered{};
        const auto use = [&](std::size_t thread) {
            for (int i = 0; i < kRounds; ++i) {
                QString error;
                auto backend = PortAudioBackend::create(&error);
                if (!backend)
                    continue;
                ++created[thread];
                backend->devices();
                AudioRings rings;
                if (backend->start(rings, &error) || !error.isEmpty())
                    ++answered[thread]; // started, or refused with a reason
            }
        };
        std::thread first(use, 0);
        std::thread second(use, 1);
        first.join();
        second.join();
        QCOMPARE(created, (std::array{kRounds, kRounds}));
        QCOMPARE(answered, (std::array{kRounds, kRounds}));
    }
};

QTEST_GUILESS_MAIN(TestPortAudioNoDevice)
#include "tst_portaudio_nodevice.moc"
