// InstanceGuard: one primary per data directory, onionvoice: links forwarded to it from other
// processes, takeover after the primary died, and malformed requests refused without harm.
// The second instance always runs in a child process (this binary with --claim), as on a desktop;
// so does a holder of the lock that takes no links (--hold, as onionvoice-cli).
#include "InstanceGuard.h"

#include <QLocalSocket>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdio>

using onionvoice::app::InstanceGuard;

namespace {

const QString kLink = QStringLiteral(
    "onionvoice:aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53sdgiesvgg4bqead?name=Alice%20B");

// Child mode: hold DIR as onionvoice-cli does (the lock, no socket); prints "held", then keeps it
// until its standard input closes. The lock names the holder by its executable's file name.
int runHolder(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    onionvoice::app::DataDirectoryLock lock(app.arguments().value(2));
    if (lock.tryAcquire() != onionvoice::app::DataDirectoryLock::Result::Acquired)
        return 1;
    std::printf("held\n");
    std::fflush(stdout);
    while (std::getchar() != EOF) {
    }
    return 0;
}

// Child mode: claim DIR [URI] [--die]; prints the role, exits 0 for Primary/Forwarded.
int runChild(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    InstanceGuard guard(args.value(2));
    const QString uri = args.value(3) == QLatin1String("--die") ? QString() : args.value(3);
    const InstanceGuard::Role role = guard.claim(uri, std::chrono::milliseconds(3000));
    std::printf("%s\n", QVariant::fromValue(role).toString().toUtf8().constData());
    std::fflush(stdout);
    if (args.contains(QStringLiteral("--die")))
        std::raise(SIGKILL); // a crash: the lock and the socket file stay behind
    return role == InstanceGuard::Role::Failed ? 1 : 0;
}

struct ChildResult {
    int exitCode = -1;
    QString output;
};

ChildResult runClaim(const QStringList& args) {
    QProcess child;
    child.start(QCoreApplication::applicationFilePath(),
                QStringList{QStringLiteral("--claim")} + args);
    // The child blocks on our socket: keep our event loop turning until it is done.
    [&] {
        QVERIFY(QTest::qWaitFor([&] { return child.state() == QProcess::NotRunning; }, 20000));
    }();
    return {child.exitCode(), QString::fromUtf8(child.readAllStandardOutput()).trimmed()};
}

} // namespace

class TestInstanceGuard : public QObject {
    Q_OBJECT
private slots:
    void secondStartForwardsItsLink() {
        QTemporaryDir dir;
        InstanceGuard primary(dir.path());
        QCOMPARE(primary.claim({}), InstanceGuard::Role::Primary);
        QSignalSpy spy(&primary, &InstanceGuard::activationRequested);

        const ChildResult second = runClaim({dir.path(), kLink});
        QCOMPARE(second.output, QStringLiteral("Forwarded"));
        QCOMPARE(second.exitCode, 0);
        QTRY_COMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), kLink);

        const ChildResult plain = runClaim({dir.path()});
        QCOMPARE(plain.output, QStringLiteral("Forwarded"));
        QTRY_COMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toString(), QString());
    }

    void otherDataDirectoryIsIndependent() {
        QTemporaryDir first, second;
        InstanceGuard primary(first.path());
        QCOMPARE(primary.claim({}), InstanceGuard::Role::Primary);
        const ChildResult other = runClaim({second.path(), kLink});
        QCOMPARE(other.output, QStringLiteral("Primary"));
    }

    void crashedPrimaryIsTakenOver() {
        QTemporaryDir dir;
        const ChildResult crashed = runClaim({dir.path(), QStringLiteral("--die")});
        QCOMPARE(crashed.output, QStringLiteral("Primary"));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("instance.lock"))));

        InstanceGuard next(dir.path());
        QCOMPARE(next.claim({}), InstanceGuard::Role::Primary);
        QSignalSpy spy(&next, &InstanceGuard::activationRequested);
        QCOMPARE(runClaim({dir.path(), kLink}).output, QStringLiteral("Forwarded"));
        QTRY_COMPARE(spy.count(), 1);
    }

    void livePrimaryThatDoesNotAnswerIsReported() {
        QTemporaryDir dir;
        QLockFile held(dir.filePath(QStringLiteral("instance.lock")));
        QVERIFY(held.tryLock(0)); // alive (our pid), but nobody listens
        InstanceGuard guard(dir.path());
        QCOMPARE(guard.claim(kLink, std::chrono::milliseconds(300)), InstanceGuard::Role::Failed);
        QVERIFY(guard.errorString().contains(QStringLiteral("does not answer")));
    }

    // Fault: `onionvoice-cli serve` holds the data directory. The lock named it and its process,
    // but claim() went on to forward the link, and when nothing answered it replaced that with
    // "already running ... but does not answer": the user learned neither what nor which process.
    void aHolderThatTakesNoLinksIsNamedWithItsProcess() {
        QTemporaryDir dir;
        QTemporaryDir bin;
        const QString cli = bin.filePath(QStringLiteral("onionvoice-cli"));
        QVERIFY(QFile::copy(QCoreApplication::applicationFilePath(), cli));
        QProcess holder;
        holder.start(cli, {QStringLiteral("--hold"), dir.path()});
        QVERIFY(holder.waitForStarted());
        QTRY_VERIFY(holder.canReadLine());
        QCOMPARE(holder.readLine().trimmed(), QByteArray("held"));
        InstanceGuard guard(dir.path());
        QCOMPARE(guard.claim(kLink, std::chrono::milliseconds(300)), InstanceGuard::Role::Failed);
        const QString error = guard.errorString();
        QVERIFY2(error.contains(QStringLiteral("onionvoice-cli")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("(process %1)").arg(holder.processId())),
                 qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("does not answer")), qPrintable(error));
        holder.closeWriteChannel();
        QVERIFY(holder.waitForFinished());
    }

    void malformedRequestsAreRefused() {
        QTemporaryDir dir;
        InstanceGuard primary(dir.path());
        QCOMPARE(primary.claim({}), InstanceGuard::Role::Primary);
        QSignalSpy spy(&primary, &InstanceGuard::activationRequested);

        const QList<QByteArray> attacks{
            QByteArray("OPEN https://example.com/\n"),
            QByteArray("RUN rm -rf /\n"),
            QByteArray(InstanceGuard::kMaxMessageBytes * 3, 'A'),
        };
        for (const QByteArray& attack : attacks) {
            QLocalSocket socket;
            socket.connectToServer(primary.socketPath());
            QVERIFY(socket.waitForConnected(5000));
            socket.write(attack);
            QTRY_VERIFY(socket.state() == QLocalSocket::UnconnectedState);
            QCOMPARE(socket.readAll(), QByteArray("ERR\n"));
        }
        QCOMPARE(spy.count(), 0);
        // Still serving genuine requests afterwards.
        QCOMPARE(runClaim({dir.path(), kLink}).output, QStringLiteral("Forwarded"));
        QTRY_COMPARE(spy.count(), 1);
    }

    void notALinkIsRefusedBeforeForwarding() {
        QTemporaryDir dir;
        InstanceGuard guard(dir.path());
        QCOMPARE(guard.claim(QStringLiteral("https://example.com/")), InstanceGuard::Role::Failed);
    }

    void longDataDirectoryUsesRuntimeSocket() {
        QTemporaryDir dir;
        const QString deep = dir.filePath(QString(120, QLatin1Char('d')));
        InstanceGuard primary(deep);
        QVERIFY(!primary.socketPath().startsWith(deep));
        QCOMPARE(primary.claim({}), InstanceGuard::Role::Primary);
        QSignalSpy spy(&primary, &InstanceGuard::activationRequested);
        QCOMPARE(runClaim({deep, kLink}).output, QStringLiteral("Forwarded"));
        QTRY_COMPARE(spy.count(), 1);
    }
};

int main(int argc, char** argv) {
    if (argc > 1 && qstrcmp(argv[1], "--claim") == 0)
        return runChild(argc, argv);
    if (argc > 1 && qstrcmp(argv[1], "--hold") == 0)
        return runHolder(argc, argv);
    QCoreApplication app(argc, argv);
    TestInstanceGuard test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_instanceguard.moc"
