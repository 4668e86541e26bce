// onionvoice-cli refusing what it cannot honour, before any tor starts: option values a timer
// cannot hold. No network needed.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString output, errors;
};

// tor is /bin/false: code that wrongly gets as far as starting tor fails at once, and no tor
// process is ever left behind.
Run cli(const QStringList& arguments) {
    QProcess p;
    p.start(QStringLiteral(ONIONVOICE_CLI), arguments);
    if (!p.waitForFinished(30000)) {
        p.kill();
        p.waitForFinished();
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class CliUsageTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir data_;

    // A valid address that is not ours: another data directory's identity.
    QString otherAddress() {
        static QTemporaryDir other;
        const Run r = cli({"id", "--data-dir", other.path(), "--json"});
        return QJsonDocument::fromJson(r.output.toUtf8()).object().value("address").toString();
    }

private slots:
    // Fault: QTimer holds milliseconds in an int. 2200000 s became a negative interval (the call
    // was never hung up) and 4294968 s became 704 ms.
    void timesATimerCannotHoldAreUsageErrors_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        QTest::newRow("seconds huge") << "--seconds"
                                      << "99999999";
        QTest::newRow("seconds negative interval") << "--seconds"
                                                   << "2200000";
        QTest::newRow("seconds wraps to 704 ms") << "--seconds"
                                                 << "4294968";
        QTest::newRow("seconds over a day") << "--seconds"
                                            << "86401";
        QTest::newRow("dial-timeout huge") << "--dial-timeout"
                                           << "99999999";
        QTest::newRow("dial-timeout over a day") << "--dial-timeout"
                                                 << "86401";
    }
    void timesATimerCannotHoldAreUsageErrors() {
        QFETCH(QString, option);
        QFETCH(QString, value);
        const QString peer = otherAddress();
        QCOMPARE(peer.size(), 56);
        const Run r = cli({"call", peer, option, value, "--tor", "/bin/false", "--data-dir",
                           data_.filePath("caller")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errors.contains(option) && r.errors.contains("86400"), qPrintable(r.errors));
    }
};

QTEST_GUILESS_MAIN(CliUsageTest)
#include "tst_cliusage.moc"
