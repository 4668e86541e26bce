// InstanceGuard: one primary per data directory, onionvoice: links forwarded to it from other
// processes, takeover after the primary died, and malformed requests refused without harm.
// The second instance always runs in a child process (this binary with --claim), as on a desktop;
// so does a holder of the lock that takes no links (--hold, as onionvoice-cli).
#include "InstanceGuard.h"

#include <QCryptographicHash>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdio>
#include <pwd.h>
#include <unistd.h>

using onionvoice::app::InstanceGuard;

namespace {

const QString kLink = QStringLiteral(
    "onionvoice:aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53sdgiesvgg4bqead?name=Alice%20B");
const QString kLinkWithKey =
    kLink + QStringLiteral("&auth=5rwnbiaa3rsxlbl4lpjgsbg6bhyzjnz7t4qsalkl4u6qf6tobxpq");
constexpr QFileDevice::Permissions kOthersOrGroup =
    QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
    QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;

// This process and its children see `shared` as the temporary directory and no runtime
// directory: XDG_RUNTIME_DIR unset, and a file (another user's, say) where Qt would make one.
class SharedTempWithoutRuntime {
public:
    explicit SharedTempWithoutRuntime(const QString& shared)
        : oldTmp_(qgetenv("TMPDIR"))
        , oldRuntime_(qgetenv("XDG_RUNTIME_DIR")) {
        qputenv("TMPDIR", QFile::encodeName(shared));
        qunsetenv("XDG_RUNTIME_DIR");
        // Qt's name for it; a user without a passwd entry gets "runtime-" alone.
        const passwd* user = ::getpwuid(::geteuid());
        QFile blocker(shared + QStringLiteral("/runtime-") +
                      QString::fromLocal8Bit(user ? user->pw_name : ""));
        if (!blocker.open(QIODevice::WriteOnly))
            qFatal("cannot create %s", qPrintable(blocker.fileName()));
    }
    ~SharedTempWithoutRuntime() {
        restore("TMPDIR", oldTmp_);
        restore("XDG_RUNTIME_DIR", oldRuntime_);
    }
    SharedTempWithoutRuntime(const SharedTempWithoutRuntime&) = delete;
    SharedTempWithoutRuntime& operator=(const SharedTempWithoutRuntime&) = delete;

private:
    static void restore(const char* name, const QByteArray& value) {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    }
    QByteArray oldTmp_;
    QByteArray oldRuntime_;
};

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

// A child holding `dir` as onionvoice-cli does (--hold), until this object goes.
class Holder {
public:
    explicit Holder(const QString& dir,
                    const QString& program = QCoreApplication::applicationFilePath()) {
        process_.start(program, {QStringLiteral("--hold"), dir});
        while (process_.waitForStarted() && !process_.canReadLine() &&
               process_.waitForReadyRead(10000)) {
        }
        holds_ = process_.canReadLine() && process_.readLine().trimmed() == "held";
    }
    ~Holder() {
        process_.closeWriteChannel();
        process_.waitForFinished();
    }
    Holder(const Holder&) = delete;
    Holder& operator=(const Holder&) = delete;

    bool holds() const { return holds_; }
    qint64 processId() const { return process_.processId(); }

private:
    QProcess process_;
    bool holds_ = false;
};

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
        const Holder holder(dir.path(), cli);
        QVERIFY(holder.holds());
        InstanceGuard guard(dir.path());
        QCOMPARE(guard.claim(kLink, std::chrono::milliseconds(300)), InstanceGuard::Role::Failed);
        const QString error = guard.errorString();
        QVERIFY2(error.contains(QStringLiteral("onionvoice-cli")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("(process %1)").arg(holder.processId())),
                 qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("does not answer")), qPrintable(error));
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
        QCOMPARE(primary.claim({}), InstanceGuard::Role::Primary);
        QVERIFY(!primary.socketPath().startsWith(deep));
        QSignalSpy spy(&primary, &InstanceGuard::activationRequested);
        QCOMPARE(runClaim({deep, kLink}).output, QStringLiteral("Forwarded"));
        QTRY_COMPARE(spy.count(), 1);
    }

    // Attack: without a runtime directory (XDG_RUNTIME_DIR unset, and where Qt would make one
    // another user left a file), a long data directory's socket went to the shared temporary
    // directory under a name anyone can compute from the path. Another user listening there
    // first, while onionvoice-cli held the data directory, was handed the link of the next start,
    // access key and all, and answered OK.
    void aLongDataDirectoryNeverListensWhereAnotherUserCan() {
        QTemporaryDir dataParent;
        const QString deep = dataParent.filePath(QString(120, QLatin1Char('d')));
        QTemporaryDir shared;
        const SharedTempWithoutRuntime env(shared.path());
        QVERIFY(QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation).isEmpty());

        QLocalServer other;
        const QByteArray hash =
            QCryptographicHash::hash(deep.toUtf8(), QCryptographicHash::Sha256).toHex().left(32);
        QVERIFY(other.listen(
            shared.filePath(QStringLiteral("onionvoice-%1.sock").arg(QLatin1String(hash)))));
        QByteArrayList stolen;
        connect(&other, &QLocalServer::newConnection, &other, [&] {
            QLocalSocket* socket = other.nextPendingConnection();
            connect(socket, &QLocalSocket::readyRead, socket, [&stolen, socket] {
                stolen += socket->readAll();
                socket->write("OK\n");
            });
        });

        Holder holder(deep);
        QVERIFY(holder.holds());
        const ChildResult second = runClaim({deep, kLinkWithKey});
        QVERIFY2(stolen.isEmpty(), stolen.join().constData());
        QCOMPARE(second.output, QStringLiteral("Failed"));

        InstanceGuard guard(deep);
        QCOMPARE(guard.claim(kLinkWithKey, std::chrono::milliseconds(300)),
                 InstanceGuard::Role::Failed);
        const QFileInfo socketDir(QFileInfo(guard.socketPath()).path());
        QCOMPARE(socketDir.ownerId(), uint(::geteuid()));
        QCOMPARE(socketDir.permissions() & kOthersOrGroup, QFileDevice::Permissions());
        QVERIFY(socketDir.absoluteFilePath() != QFileInfo(shared.path()).absoluteFilePath());
    }

    // A directory of ours under the temporary directory that others may enter is not used, nor
    // a link there to a private directory of ours (its maker could point it elsewhere later).
    void aSharedSocketDirectoryThatIsNotPrivateIsRefused_data() {
        QTest::addColumn<bool>("link");
        QTest::newRow("open to others") << false;
        QTest::newRow("a link to a private directory") << true;
    }
    void aSharedSocketDirectoryThatIsNotPrivateIsRefused() {
        QFETCH(bool, link);
        QTemporaryDir dataParent;
        const QString deep = dataParent.filePath(QString(120, QLatin1Char('d')));
        QTemporaryDir privateTarget;
        QTemporaryDir shared;
        const SharedTempWithoutRuntime env(shared.path());
        const QString own = shared.filePath(QStringLiteral("onionvoice-%1").arg(::geteuid()));
        if (link) {
            QVERIFY(QFile::setPermissions(privateTarget.path(), QFileDevice::ReadOwner |
                                                                    QFileDevice::WriteOwner |
                                                                    QFileDevice::ExeOwner));
            QVERIFY(QFile::link(privateTarget.path(), own));
        } else {
            QVERIFY(QDir().mkdir(own));
            QVERIFY(QFile::setPermissions(
                own, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                         QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther));
        }
        InstanceGuard guard(deep);
        QCOMPARE(guard.claim({}), InstanceGuard::Role::Failed);
        QVERIFY2(guard.errorString().contains(own), qPrintable(guard.errorString()));
        QVERIFY(guard.socketPath().isEmpty());
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
