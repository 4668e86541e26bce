// onionvoice-cli refusing what it cannot honour, before any tor starts: option values a timer
// cannot hold, and names and addresses the rest of the app refuses. No network needed.
#include <QDir>
#include <QFile>
#include <QJsonArray>
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

    QString ownAddress() {
        const Run r = cli({"id", "--data-dir", data_.path(), "--json"});
        return QJsonDocument::fromJson(r.output.toUtf8()).object().value("address").toString();
    }
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

    // Fault: `id --name` printed links that `contacts add` and the GUI refuse.
    void idRefusesNamesLinksCannotCarry() {
        for (const QString& name : {QString(70, 'x'), QString("Bob\nEve")}) {
            const Run r = cli({"id", "--data-dir", data_.path(), "--name", name});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.errors.contains("--name"), qPrintable(r.errors));
            QVERIFY(r.output.isEmpty());
        }
        QCOMPARE(cli({"id", "--data-dir", data_.path(), "--name", QString(64, 'x')}).exitCode, 0);
    }

    // Fault: `contacts add --name` skipped the length and control-character checks.
    void contactsAddRefusesNamesTheAppRefuses() {
        const QString peer = otherAddress();
        for (const QString& name : {QString(70, 'x'), QString("Bob\nEve")}) {
            const Run r =
                cli({"contacts", "add", peer, "--name", name, "--data-dir", data_.path()});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.errors.contains("--name"), qPrintable(r.errors));
        }
        QCOMPARE(cli({"contacts", "list", "--data-dir", data_.path()}).output, QString());
    }

    // Fault: `contacts add <own address>` put the user in their own book (the GUI refuses).
    void contactsAddRefusesTheOwnAddress() {
        const QString own = ownAddress();
        QCOMPARE(own.size(), 56);
        for (const char* action : {"add", "block"}) {
            const Run r = cli({"contacts", action, own, "--data-dir", data_.path()});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.errors.contains("own"), qPrintable(r.errors));
        }
        QCOMPARE(cli({"contacts", "list", "--data-dir", data_.path()}).output, QString());
    }

    // Fault: `call <link with a key>` for a contact already in the book removed it and added it
    // again with the key, and the add checks the name: a contact whose name an older version
    // stored (65 characters) could not be called through their link, "FileError".
    void aLinksKeyIsKeptForAContactAnyVersionStored() {
        const QString peer = otherAddress();
        const QString dir = data_.filePath("keyed");
        QCOMPARE(cli({"contacts", "add", peer, "--name", "Bob", "--data-dir", dir}).exitCode, 0);
        QFile book(QDir(dir).filePath("contacts.json"));
        QVERIFY(book.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(book.readAll()).object();
        book.close();
        QJsonArray list = root["contacts"].toArray();
        QJsonObject bob = list.at(0).toObject();
        const QString oldName(65, 'b');
        bob["name"] = oldName;
        list.replace(0, bob);
        root["contacts"] = list;
        QVERIFY(book.open(QIODevice::WriteOnly | QIODevice::Truncate));
        book.write(QJsonDocument(root).toJson());
        book.close();

        const QByteArray key(32, '\x2a');
        const QString link = "onionvoice:" + peer + "?auth=" +
                             QString::fromLatin1(key.toBase64(QByteArray::Base64UrlEncoding |
                                                              QByteArray::OmitTrailingEquals));
        const Run r = cli({"call", link, "--tor", "/bin/false", "--data-dir", dir});
        QCOMPARE(r.exitCode, 5); // as far as starting tor, which is /bin/false
        QVERIFY(book.open(QIODevice::ReadOnly));
        const QJsonObject kept =
            QJsonDocument::fromJson(book.readAll()).object()["contacts"].toArray().at(0).toObject();
        QCOMPARE(kept["name"].toString(), oldName);
        QCOMPARE(kept["outbound_auth_private_key"].toString(), QString::fromLatin1(key.toBase64()));
    }
};

QTEST_GUILESS_MAIN(CliUsageTest)
#include "tst_cliusage.moc"
