// Integration test of the PortAudio backend on real devices: a private PulseAudio null sink set up
// by the pulse fixture (see pulse_fixture.sh). Input and output run as separate streams; the test
// checks that both callbacks deliver samples at real-time pace, measured on the output stream's
// own clock, that a tone played to the sink comes back through its monitor source, and that a
// missing device gives a clear error.
#include "media/PortAudioBackend.h"

#include <QElapsedTimer>
#include <QTest>
#include <cmath>
#include <numbers>
#include <thread>
#include <vector>

using namespace onionvoice::media;

class TestPortAudio : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (qEnvironmentVariableIsEmpty("PULSE_SERVER"))
            QSKIP("needs the media_pulse fixture (run through ctest)");
    }

    void listsDevices() {
        QString error;
        auto backend = PortAudioBackend::create(&error);
        QVERIFY2(backend, qPrintable(error));
        const auto devices = backend->devices();
        QVERIFY(!devices.isEmpty());
        const bool haveDuplex = std::any_of(devices.begin(), devices.end(), [](const auto& d) {
            return d.inputChannels > 0 && d.outputChannels > 0;
        });
        QVERIFY(haveDuplex);
        QVERIFY2(backend->refreshDevices(&error), qPrintable(error));
        QCOMPARE(backend->devices().size(), devices.size());
    }

    void unknownDeviceIsAClearError() {
        QString error;
        auto backend = PortAudioBackend::create(&error);
        QVERIFY(backend);
        backend->setInputDevice({QStringLiteral("ALSA"), QStringLiteral("no such microphone")});
        AudioRings rings;
        QVERIFY(!backend->devicesPresent(&error));
        QVERIFY2(error.contains("no such microphone") && error.contains("not found"),
                 qPrintable(error));
        error.clear();
        QVERIFY(!backend->start(rings, &error));
        QVERIFY2(error.contains("no such microphone") && error.contains("not found"),
                 qPrintable(error));
    }

    // Fault: the ringtone opened the microphone as well, so it lit the system's microphone
    // indicator while the phone rang, and a machine without a microphone rang with a beep only.
    void playbackOnlyLeavesTheMicrophoneClosed() {
        QString error;
        auto backend = PortAudioBackend::create(&error);
        QVERIFY(backend);
        backend->setStreams(PortAudioBackend::Streams::PlaybackOnly);
        backend->setInputDevice({QStringLiteral("ALSA"), QStringLiteral("no such microphone")});
        AudioRings rings;
        QVERIFY2(backend->start(rings, &error), qPrintable(error));
        QTRY_VERIFY(rings.playedSamples.load() > 4800);
        QCOMPARE(rings.capturedSamples.load(), 0u);
        QCOMPARE(backend->latency().input.count(), 0);
        QVERIFY(backend->latency().output.count() > 0);
    }

    void callbacksRunAtRealTimePaceAndLoopBack() {
        QString error;
        auto backend = PortAudioBackend::create(&error);
        QVERIFY(backend);
        AudioRings rings;
        QVERIFY2(backend->devicesPresent(&error), qPrintable(error));
        QVERIFY2(backend->start(rings, &error), qPrintable(error));
        QString refreshError;
        QVERIFY(!backend->refreshDevices(&refreshError)); // not while streams run

        // The engine side: keep the speaker fed with a 1 kHz tone and drain the microphone.
        std::vector<float> tone(480);
        double phase = 0.0;
        std::vector<float> captured(4800);
        double toneEnergy = 0.0;
        std::size_t toneSamples = 0;
        const auto pump = [&] {
            while (rings.playback.writable() >= tone.size()) {
                for (float& s : tone) {
                    s = float(0.3 * std::sin(phase));
                    phase += 2 * std::numbers::pi * 1000.0 / 48000.0;
                }
                rings.playback.write(tone);
            }
            const std::size_t n = rings.capture.read(captured);
            // Only the second half of the run counts, after the loop has filled.
            if (rings.capturedSamples.load() > 48000)
                for (std::size_t i = 0; i < n; ++i, ++toneSamples)
                    toneEnergy += double(captured[i]) * captured[i];
        };

        // Let the streams settle, then measure a stretch of at least one second of audio clock.
        QElapsedTimer wall;
        wall.start();
        while (rings.playedSamples.load() < 9600 && wall.elapsed() < 20000) {
            pump();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        const double startClock = backend->outputStreamTime();
        const std::uint64_t startPlayed = rings.playedSamples.load();
        const std::uint64_t startCaptured = rings.capturedSamples.load();
        while (backend->outputStreamTime() - startClock < 1.5 && wall.elapsed() < 30000) {
            pump();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        const double audioSeconds = backend->outputStreamTime() - startClock;
        const double played = double(rings.playedSamples.load() - startPlayed);
        const double capturedCount = double(rings.capturedSamples.load() - startCaptured);
        const AudioLatency latency = backend->latency();
        backend->stop();

        qInfo("%.2f s of audio clock: %.0f samples/s out, %.0f in; latency %.1f ms in, %.1f ms out",
              audioSeconds, played / audioSeconds, capturedCount / audioSeconds,
              double(latency.input.count()) / 1000.0, double(latency.output.count()) / 1000.0);
        QVERIFY2(audioSeconds >= 1.5, qPrintable(QString::number(audioSeconds)));
        // Real-time pace: about 48000 samples per second of the audio clock in each direction.
        // The bounds are loose on purpose; a free-running device (ALSA's null plugin) runs many
        // times faster, a stalled one far slower.
        const double outRate = played / audioSeconds;
        const double inRate = capturedCount / audioSeconds;
        QVERIFY2(outRate > 48000 * 0.7 && outRate < 48000 * 1.4,
                 qPrintable(QString::number(outRate)));
        QVERIFY2(inRate > 48000 * 0.7 && inRate < 48000 * 1.4, qPrintable(QString::number(inRate)));
        QVERIFY(latency.output.count() > 0);
        QVERIFY(latency.input.count() > 0);
        // The tone played into the null sink comes back through its monitor: RMS near 0.3/sqrt(2).
        QVERIFY(toneSamples > 0);
        const double rms = std::sqrt(toneEnergy / double(toneSamples));
        QVERIFY2(rms > 0.05, qPrintable(QString::number(rms)));
    }
};

QTEST_GUILESS_MAIN(TestPortAudio)
#include "tst_portaudio.moc"
