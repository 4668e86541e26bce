// How onionvoice-cli and the desktop app end on their own: a tor that never connects is given up
// with exit code 5 (a real tor kept offline by DisableNetwork), and SIGTERM stops the app as its
// Quit does; neither can leave a core dump. No network needed.
#include "StandInTor.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <unistd.h>

class ProcessLifeTest : public QObject {
    Q_OBJECT
private:
    // A valid address: another data directory's identity.
    static QString otherAddress() {
        static QTemporaryDir other;
        QProcess id;
        id.start(QStringLiteral(ONIONVOICE_CLI), {"id", "--data-dir", other.path(), "--json"});
        id.waitForFinished(30000);
        return QJsonDocument::fromJson(id.readAllStandardOutput())
            .object()
            .value("address")
            .toString();
    }

    // DIR/data, whose settings.ini has the app run a tor that waits: it never connects.
    static QString dataWithWaitingTor(const QTemporaryDir& dir) {
        const QString data = dir.filePath("data");
        QDir().mkpath(data);
        QSettings(data + "/settings.ini", QSettings::IniFormat)
            .setValue("tor/path", waitingTor(dir));
        return data;
    }

private slots:
    // Fault (a review found it): with a tor that never connects (no network, a censored one, a
    // wrong clock) `call` and `serve` waited without end, printing "tor: 0% Starting"; exit code
    // 5 never came, and --dial-timeout did not apply (no dial starts before tor is ready).
    // DisableNetwork keeps a real tor at 0 %.
    void aTorThatNeverConnectsIsGivenUp_data() {
        QTest::addColumn<QString>("command");
        QTest::newRow("call") << QStringLiteral("call");
        QTest::newRow("serve") << QStringLiteral("serve");
    }
    void aTorThatNeverConnectsIsGivenUp() {
        QFETCH(QString, command);
        QTemporaryDir network;
        QFile torrc(network.filePath("client.torrc"));
        QVERIFY(torrc.open(QIODevice::WriteOnly));
        torrc.write("DisableNetwork 1\n");
        torrc.close();
        QStringList arguments{command};
        if (command == QLatin1String("call"))
            arguments << otherAddress();
        QTemporaryDir data;
        arguments << QStringList{"--testnet", network.path(), "--bootstrap-timeout",
                                 "3",         "--data-dir",   data.filePath("data")};
        QProcess cli;
        cli.start(QStringLiteral(ONIONVOICE_CLI), arguments);
        if (!cli.waitForFinished(30000)) {
            cli.kill();
            cli.waitForFinished();
            QFAIL("still waiting after 30 s");
        }
        const QString errors = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitCode(), 5);
        QVERIFY2(errors.contains("did not connect to the Tor network within 3 s") &&
                     errors.contains("0%"),
                 qPrintable(errors));
    }

    // Contacts' access keys and bridge lines live in ordinary memory: a crash (a sound driver's
    // too) wrote them into a core file, which systemd-coredump keeps for days. Neither program
    // may leave one: its core size is 0 while it runs, and it is not dumpable, so that not even
    // its own user may read what a debugger would (root runs it as nobody to tell).
    void neitherProgramLeavesACoreDump_data() {
        QTest::addColumn<QString>("program");
        QTest::newRow("onionvoice-cli") << QStringLiteral(ONIONVOICE_CLI);
#ifdef ONIONVOICE_GUI
        QTest::newRow("onionvoice") << QStringLiteral(ONIONVOICE_GUI);
#endif
    }
    void neitherProgramLeavesACoreDump() {
        QFETCH(QString, program);
        if (!QFile::exists(QStringLiteral("/proc/self/limits")))
            QSKIP("no /proc/PID/limits here");
        const bool asNobody = ::geteuid() == 0;
        const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
        if (asNobody && setpriv.isEmpty())
            QSKIP("root without setpriv cannot run the program as another user");
        // As nobody (uid 65534), through setpriv: the reading of /proc below too.
        const auto asNobodyArguments = [](QStringList command) {
            return QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", "--"} + command;
        };
        QTemporaryDir dir;
        if (asNobody) {
            QProcess probe; // a checkout under /root, or no uid 65534 in this user namespace
            probe.start(setpriv, asNobodyArguments({"test", "-x", program}));
            if (!probe.waitForFinished(10000) || probe.exitCode() != 0)
                QSKIP("nobody cannot run the program here");
        }
        const QString data = dataWithWaitingTor(dir);
        QStringList arguments{program, "--data-dir", data};
        if (program == QLatin1String(ONIONVOICE_CLI)) {
            arguments.insert(1, QStringLiteral("serve"));
            arguments << "--tor" << waitingTor(dir); // the CLI reads no tor path from settings
        }
        QProcess running;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        if (asNobody) {
            constexpr uid_t kNobody = 65534;
            QDirIterator files(dir.path(), QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                               QDirIterator::Subdirectories);
            QVERIFY(::chown(QFile::encodeName(dir.path()).constData(), kNobody, kNobody) == 0);
            while (files.hasNext())
                QVERIFY(::chown(QFile::encodeName(files.next()).constData(), kNobody, kNobody) ==
                        0);
            env.insert("HOME", dir.path());
            env.insert("XDG_RUNTIME_DIR", dir.path());
            arguments = asNobodyArguments(arguments);
        }
        running.setProcessEnvironment(env);
        running.start(asNobody ? setpriv : arguments.takeFirst(), arguments);
        QVERIFY(running.waitForStarted());
        const auto stop = qScopeGuard([&running] {
            running.kill();
            running.waitForFinished();
        });
        // Past main()'s first lines: its tor is being started.
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(data + "/tor/torrc"), 20000);
        const QString proc = QStringLiteral("/proc/%1").arg(running.processId());
        QFile limits(proc + "/limits");
        QVERIFY(limits.open(QIODevice::ReadOnly));
        const QString text = QString::fromLatin1(limits.readAll());
        const auto line = text.split('\n').filter(QStringLiteral("Max core file size"));
        QCOMPARE(line.size(), 1);
        QVERIFY2(line[0].simplified().startsWith(QStringLiteral("Max core file size 0 0")),
                 qPrintable(line[0]));
        // Not dumpable: even its own user may not read its environment (a debugger's access),
        // refused for that reason while it runs.
        QString refusal;
        if (asNobody) {
            QProcess cat;
            cat.start(setpriv, asNobodyArguments({"cat", proc + "/environ"}));
            QVERIFY(cat.waitForFinished(10000));
            if (cat.exitCode() != 0)
                refusal = QString::fromLocal8Bit(cat.readAllStandardError());
        } else if (QFile environment(proc + "/environ"); !environment.open(QIODevice::ReadOnly)) {
            refusal = environment.errorString();
        }
        QVERIFY2(refusal.contains(QStringLiteral("Permission denied")), qPrintable(refusal));
        QCOMPARE(running.state(), QProcess::Running);
    }

#ifdef ONIONVOICE_GUI
    // Fault (a review found it): the app had no handler for SIGTERM or SIGINT. A logout or a
    // shutdown killed it outright: no hang-up reached the peer (its call ended "connection
    // lost"), and the instance lock and socket stayed behind. Now it stops as Quit does.
    void theAppStopsInOrderOnSigterm() {
        QTemporaryDir dir;
        const QString data = dataWithWaitingTor(dir);
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(ONIONVOICE_GUI), {"--data-dir", data});
        QVERIFY(app.waitForStarted());
        // Running, its tor started (the torrc is written just before).
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(data + "/tor/torrc"), 20000);
        QCOMPARE(app.state(), QProcess::Running);
        QVERIFY(QFile::exists(data + "/instance.lock"));
        ::kill(pid_t(app.processId()), SIGTERM);
        QVERIFY(app.waitForFinished(20000));
        QCOMPARE(app.exitStatus(), QProcess::NormalExit);
        QCOMPARE(app.exitCode(), 0);
        QVERIFY(!QFile::exists(data + "/instance.lock"));
    }
#endif
};

QTEST_GUILESS_MAIN(ProcessLifeTest)
#include "tst_processlife.moc"
