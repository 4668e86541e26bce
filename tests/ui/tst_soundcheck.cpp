// The sound test's audio on real PortAudio streams (a PulseAudio null sink, fixture media_pulse):
// the microphone is metered, a recording is played back, and a recording sent through a
// simulated Tor path (onionvoice-sim + onionvoice-cli audio-loop, found as the app finds them)
// comes back with its report and is played.
#include "DeviceSoundCheck.h"

#include <QSignalSpy>
#include <QTest>

using namespace onionvoice;
using namespace std::chrono_literals;
using Phase = ui::SoundCheck::Phase;

class SoundCheckTest : public QObject {
    Q_OBJECT
private:
    static QList<Phase> phases(const QSignalSpy& spy) {
        QList<Phase> out;
        for (const auto& args : spy)
            out.append(args.at(0).value<Phase>());
        return out;
    }

private slots:
    void recordPlayBackAndTorPath() {
        gui::DeviceSoundCheck check({}, {});
        QString error;
        QVERIFY2(check.start(&error), qPrintable(error));
        QSignalSpy changes(&check, &ui::SoundCheck::phaseChanged);
        QSignalSpy reports(&check, &ui::SoundCheck::report);

        check.recordAndPlayBack(1s);
        QTRY_COMPARE_WITH_TIMEOUT(
            phases(changes), (QList<Phase>{Phase::Recording, Phase::Playing, Phase::Listening}),
            10000);

        changes.clear();
        check.recordThroughTorPath(2s, QStringLiteral("congested"));
        QTRY_COMPARE_WITH_TIMEOUT(
            phases(changes),
            (QList<Phase>{Phase::Recording, Phase::Processing, Phase::Playing, Phase::Listening}),
            60000);
        QCOMPARE(reports.size(), 1);
        const QString report = reports.first().at(0).toString();
        QVERIFY2(report.contains(QStringLiteral("mouth to ear")), qPrintable(report));
        qInfo("%s", qPrintable(report));
        check.stop();
    }
};

QTEST_GUILESS_MAIN(SoundCheckTest)
#include "tst_soundcheck.moc"
