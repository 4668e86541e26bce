// onionvoice-cli on the desktop app's data directory (its default) honours what the app saved
// in settings.ini: it never starts a tor without the bridges the app uses, it serves contacts
// only where the app does, it refuses strangers where the app does unless --unknown-callers is
// given, it takes the app's preset unless --preset is given, and it refuses a settings file it
// cannot read. Before, it ignored the file: the tor of a user behind bridges
// connected to the Tor network directly, and `serve` published an open service. No network
// needed: the tor is a stand-in that never connects.
#include "StandInTor.h"
#include "call/SavedAppChoices.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace onionvoice;

namespace {

struct Run {
    int exitCode = -1;
    QJsonObject identity; // the identity event (--json), empty if none came
    QString errors;
};

Run serve(const QString& data, const QStringList& extra, const QTemporaryDir& dir) {
    QProcess cli;
    cli.start(QStringLiteral(ONIONVOICE_CLI),
              QStringList{"serve", "--json", "--tor", waitingTor(dir), "--data-dir", data,
                          "--bootstrap-timeout", "2"} +
                  extra);
    if (!cli.waitForFinished(30000)) {
        cli.kill();
        cli.waitForFinished();
        return {};
    }
    Run run{cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1,
            {},
            QString::fromUtf8(cli.readAllStandardError())};
    for (const QByteArray& line : cli.readAllStandardOutput().split('\n'))
        if (const QJsonObject event = QJsonDocument::fromJson(line).object();
            event.value("event") == QLatin1String("identity"))
            run.identity = event;
    return run;
}

} // namespace

class SavedChoicesTest : public QObject {
    Q_OBJECT
private slots:
    void aTorBehindBridgesIsNotStartedWithout() {
        QTemporaryDir dir;
        const QString data = dir.filePath("data");
        QVERIFY(QDir().mkpath(data));
        {
            QSettings app(data + "/" + call::kSettingsFileName, QSettings::IniFormat);
            app.setValue(call::settings_key::kUseBridges, true);
        }
        const Run run = serve(data, {}, dir);
        QCOMPARE(run.exitCode, 5);
        QVERIFY2(run.errors.contains("bridges"), qPrintable(run.errors));
        QVERIFY(!QFile::exists(data + "/tor/torrc")); // no tor was started
    }

    // Each row: what settings.ini holds (key=value, none: no file), the command line's extra
    // options, and what the service became.
    void theAppsServiceChoicesAreKept_data() {
        QTest::addColumn<QStringList>("saved");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("access");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("unknownCallers");
        QTest::newRow("no settings.ini") << QStringList{} << QStringList{} << "open"
                                         << "standard"
                                         << "ring";
        QTest::newRow("contacts only") << QStringList{call::settings_key::kContactsOnly + "=true"}
                                       << QStringList{} << "contacts-only"
                                       << "standard"
                                       << "ring";
        QTest::newRow("the app's preset")
            << QStringList{call::settings_key::kPreset + "=more-guards"} << QStringList{} << "open"
            << "more-guards"
            << "ring";
        QTest::newRow("--preset wins") << QStringList{call::settings_key::kPreset + "=more-guards"}
                                       << QStringList{"--preset", "standard"} << "open"
                                       << "standard"
                                       << "ring";
        QTest::newRow("strangers refused")
            << QStringList{call::settings_key::kUnknownCallers + "=refuse"} << QStringList{}
            << "open"
            << "standard"
            << "refuse";
        QTest::newRow("--unknown-callers wins")
            << QStringList{call::settings_key::kUnknownCallers + "=refuse"}
            << QStringList{"--unknown-callers", "ring"} << "open"
            << "standard"
            << "ring";
    }
    void theAppsServiceChoicesAreKept() {
        QFETCH(QStringList, saved);
        QFETCH(QStringList, extra);
        QFETCH(QString, access);
        QFETCH(QString, preset);
        QFETCH(QString, unknownCallers);
        QTemporaryDir dir;
        const QString data = dir.filePath("data");
        QVERIFY(QDir().mkpath(data));
        if (!saved.isEmpty()) {
            QSettings app(data + "/" + call::kSettingsFileName, QSettings::IniFormat);
            for (const QString& entry : saved)
                app.setValue(entry.section('=', 0, 0), entry.section('=', 1));
        }
        const Run run = serve(data, extra, dir);
        QCOMPARE(run.exitCode, 5); // the stand-in tor never connects
        QVERIFY(!run.identity.isEmpty());
        QCOMPARE(run.identity.value("access").toString(), access);
        QCOMPARE(run.identity.value("preset").toString(), preset);
        QCOMPARE(run.identity.value("unknown_callers").toString(), unknownCallers);
    }

    // The app fails closed on a settings file it cannot read, and on one missing beside the
    // unreadable one it set aside (the save that was to replace it failed); so does the command
    // line.
    void anUnreadableSettingsFileIsRefused_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("a line Qt cannot parse") << call::kSettingsFileName;
        QTest::newRow("set aside, never replaced")
            << call::kSettingsFileName + QStringLiteral(".unreadable-20261129T100000");
    }
    void anUnreadableSettingsFileIsRefused() {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const QString data = dir.filePath("data");
        QVERIFY(QDir().mkpath(data));
        QFile file(data + "/" + name);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("[security]\ncontactsOnly=true\n[tor]\nuseBridges tr\xc3ue\n");
        file.close();
        const Run run = serve(data, {}, dir);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.errors.contains(call::kSettingsFileName) &&
                     run.errors.contains("choices for this data directory"),
                 qPrintable(run.errors));
        QVERIFY(!QFile::exists(data + "/tor/torrc"));
    }
};

QTEST_GUILESS_MAIN(SavedChoicesTest)
#include "tst_savedchoices.moc"
