// The data directory's files as onionvoice-cli writes them, seen through strace: never readable by
// others on the way, and on disk, name included, once saved (savedFilesReachTheDisk).
//
// Attack on the identity file by another local user: `onionvoice-cli id --data-dir DIR` on an
// existing directory anyone may enter (0755). QSaveFile writes through a temporary file that it
// narrows to 0600 only after creating it; where the file system has no O_TMPFILE (NFS, overlayfs
// before Linux 6.6, other systems) that file has a name, and with a umask of 022 it is readable
// by everyone until the chmod: a reader who opens it then reads the key once it is written.
// strace plays that file system (O_TMPFILE refused) and delays the chmod by a second, the moment
// a racing reader needs, while the test watches the directory: no file in it may ever be
// readable by anyone but its owner.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <sys/stat.h>

namespace {

QString makeSharedDirectory(const QTemporaryDir& root, const QString& name) {
    const QString dir = root.filePath(name);
    QDir().mkdir(dir);
    ::chmod(QFile::encodeName(dir).constData(), 0755);
    return dir;
}

// The sanitizer build's leak check stops the process's threads the way a debugger does, which
// a process that strace already traces does not allow: it would fail the run at exit.
QProcessEnvironment tracedEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString asan = env.value(QStringLiteral("ASAN_OPTIONS"));
    env.insert(QStringLiteral("ASAN_OPTIONS"),
               asan + (asan.isEmpty() ? "" : ":") + QStringLiteral("detect_leaks=0"));
    return env;
}

} // namespace

class PrivateFilesTest : public QObject {
    Q_OBJECT
private slots:
    void identityIsNeverReadableByOthers() {
        const QString strace = QStandardPaths::findExecutable(QStringLiteral("strace"));
        if (strace.isEmpty())
            QSKIP("needs strace");
        QTemporaryDir root;
        const QString trace = root.filePath(QStringLiteral("trace"));

        // A first run tells which open of the main thread is QSaveFile's O_TMPFILE one.
        QProcess probe;
        probe.setProcessEnvironment(tracedEnvironment());
        probe.start(strace, {"-o", trace, "-e", "trace=openat", ONIONVOICE_CLI, "id", "--data-dir",
                             makeSharedDirectory(root, "probe")});
        QVERIFY(probe.waitForFinished(30000));
        QFile probeTrace(trace);
        QVERIFY(probeTrace.open(QIODevice::ReadOnly));
        const QList<QByteArray> opens = probeTrace.readAll().split('\n');
        const auto tmpfile = std::find_if(opens.begin(), opens.end(), [](const QByteArray& l) {
            return l.contains("O_TMPFILE");
        });
        QVERIFY2(tmpfile != opens.end(), "onionvoice-cli id wrote no file through O_TMPFILE");
        const qsizetype nth = tmpfile - opens.begin() + 1;

        const QString dir = makeSharedDirectory(root, "shared");
        QProcess cli;
        cli.setProcessEnvironment(tracedEnvironment());
        cli.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // The umask most users have, whatever this test inherited.
        cli.setChildProcessModifier([] { ::umask(022); });
        cli.start(strace,
                  {"-o", trace, "-e", "trace=openat,fchmod", "-e",
                   QStringLiteral("inject=openat:error=EOPNOTSUPP:when=%1").arg(nth), "-e",
                   "inject=fchmod:delay_enter=1000000", ONIONVOICE_CLI, "id", "--data-dir", dir});
        QVERIFY(cli.waitForStarted());
        QStringList seen, exposed;
        QElapsedTimer clock;
        clock.start();
        const auto watch = [&] {
            for (const QString& name : QDir(dir).entryList(QDir::Files | QDir::Hidden)) {
                struct stat st {};
                if (::lstat(QFile::encodeName(QDir(dir).filePath(name)).constData(), &st) != 0)
                    continue; // renamed in the meantime
                if (!seen.contains(name))
                    seen.append(name);
                const QString entry = QStringLiteral("%1 (mode %2)")
                                          .arg(name)
                                          .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
                if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0 && !exposed.contains(entry))
                    exposed.append(entry);
            }
        };
        while (!cli.waitForFinished(5) && clock.elapsed() < 30000)
            watch();
        watch(); // and the files as they stay
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 0);
        QFile cliTrace(trace);
        QVERIFY(cliTrace.open(QIODevice::ReadOnly));
        const QByteArray calls = cliTrace.readAll();
        QVERIFY2(calls.contains("O_TMPFILE, 0666) = -1 EOPNOTSUPP"), calls.constData());
        // The watch saw the temporary file, not only the result (else it proves nothing).
        QVERIFY2(std::any_of(seen.begin(), seen.end(),
                             [](const QString& n) { return n.startsWith("identity.key."); }),
                 qPrintable(seen.join(", ")));
        QVERIFY2(exposed.isEmpty(), qPrintable("readable by others: " + exposed.join(", ")));
        QVERIFY(QFile::exists(QDir(dir).filePath(QStringLiteral("identity.key"))));
    }

    // Fault: a power cut right after a save. QSaveFile syncs the new file's data before it gives
    // the file its name, but nothing synced the directory holding the name: on the disk the save
    // could still be missing after the cut (a first identity key gone: a new onion address at the
    // next start, unknown to every contact). The trace must show the directory synced after the
    // file got its name, for the identity (OnionIdentity::save) and the contact book
    // (writePrivateFile).
    void savedFilesReachTheDisk_data() {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("file");
        QTest::newRow("identity") << QStringList{"id"} << QStringLiteral("identity.key");
        QTest::newRow("contacts") << QStringList{"contacts", "add",
                                                 "aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53sdgie"
                                                 "svgg4bqead",
                                                 "--name", "Test"}
                                  << QStringLiteral("contacts.json");
    }

    void savedFilesReachTheDisk() {
        QFETCH(QStringList, command);
        QFETCH(QString, file);
        const QString strace = QStandardPaths::findExecutable(QStringLiteral("strace"));
        if (strace.isEmpty())
            QSKIP("needs strace");
        QTemporaryDir root;
        const QString dir = QDir(root.path()).canonicalPath() + QStringLiteral("/data");
        const QString trace = root.filePath(QStringLiteral("trace"));
        QProcess cli;
        cli.setProcessEnvironment(tracedEnvironment());
        cli.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // The main thread saves; tracing it alone keeps each call on one line of the trace.
        cli.start(strace, QStringList{"-y", "-o", trace, "-e",
                                      "trace=linkat,rename,renameat,renameat2,fsync,fdatasync",
                                      ONIONVOICE_CLI} +
                              command + QStringList{"--data-dir", dir});
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 0);
        QFile traceFile(trace);
        QVERIFY(traceFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> calls = traceFile.readAll().split('\n');
        const QByteArray named = '"' + QFile::encodeName(dir + '/' + file) + '"';
        const auto naming = std::find_if(calls.rbegin(), calls.rend(), [&](const QByteArray& l) {
            return (l.contains("linkat(") || l.contains("rename")) && l.contains(named) &&
                   l.endsWith("= 0");
        });
        QVERIFY2(naming != calls.rend(), "the file never got its name");
        const QByteArray dirSync = "fsync(";
        const QByteArray dirFd = '<' + QFile::encodeName(dir) + ">) = 0";
        const bool synced = std::any_of(calls.rbegin(), naming, [&](const QByteArray& l) {
            return l.contains(dirSync) && l.endsWith(dirFd);
        });
        QVERIFY2(synced, qPrintable("no fsync of " + dir + " after the line: " + *naming));
    }
};

QTEST_GUILESS_MAIN(PrivateFilesTest)
#include "tst_privatefiles.moc"
