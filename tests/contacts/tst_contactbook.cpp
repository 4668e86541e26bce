// Unit tests of ContactBook: round trip, refusals, owner-only permissions, a damaged file kept
// aside, and no data lost when the writer is killed in the middle of a save.
#include "ContactTestData.h"
#include "contacts/ContactBook.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <sys/stat.h>

using namespace onionvoice::contacts;

class ContactBookTest : public QObject {
    Q_OBJECT
private slots:
    void roundTrip() {
        QTemporaryDir dir;
        const QString path = dir.filePath("data/contacts.json");
        ContactBook book(path);
        QCOMPARE(book.load().outcome, ContactBook::LoadOutcome::NoFile);
        QString error;
        const QDateTime added = QDateTime(QDate(2026, 11, 21), QTime(12, 0), Qt::UTC);
        QVERIFY(
            book.add({testAddress(1), "Ana", added, false, true, QByteArray(32, 'k'), {}}, &error));
        QVERIFY(book.add({testAddress(2).toUpper() + ".onion",
                          "Bo",
                          added,
                          true,
                          false,
                          {},
                          QByteArray(32, 's')},
                         &error));
        QVERIFY(book.save(&error));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);

        ContactBook again(path);
        QCOMPARE(again.load().outcome, ContactBook::LoadOutcome::Loaded);
        QCOMPARE(again.contacts(), book.contacts());
        QCOMPARE(again.find(testAddress(2))->displayName, QString("Bo"));
        QVERIFY(again.find(testAddress(2))->blocked);
        QCOMPARE(again.find(testAddress(1))->inboundAuthPublicKey, QByteArray(32, 'k'));
    }

    void refusesBadAndDuplicateAddresses() {
        ContactBook book(QString{});
        QString error;
        QVERIFY(!book.add({"not an address", "x", {}, false, false, {}, {}}, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(book.add({testAddress(3), "x", {}, false, false, {}, {}}, &error));
        QVERIFY(!book.add({testAddress(3), "y", {}, false, false, {}, {}}, &error));
        QVERIFY(book.contacts().front().added.isValid());
        QVERIFY(book.setBlocked(testAddress(3), true));
        QVERIFY(book.setAllowlisted(testAddress(3), true));
        QVERIFY(!book.setBlocked(testAddress(4), true));
        QVERIFY(book.remove(testAddress(3)));
        QVERIFY(book.contacts().isEmpty());
    }

    void damagedFileIsKeptAside_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("truncated") << QByteArray("{\"version\": 1, \"contacts\": [{\"addr");
        QTest::newRow("not json") << QByteArray("\x00\x01garbage", 9);
        QTest::newRow("wrong version") << QByteArray("{\"version\": 7, \"contacts\": []}");
        QTest::newRow("bad address") << QByteArray(
            "{\"version\": 1, \"contacts\": [{\"address\": \"abc\", \"name\": \"x\", \"added\": "
            "\"2026-01-01T00:00:00Z\", \"blocked\": false, \"allowlisted\": false}]}");
    }
    void damagedFileIsKeptAside() {
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        const QString path = dir.filePath("contacts.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        ContactBook book(path);
        const auto result = book.load();
        QCOMPARE(result.outcome, ContactBook::LoadOutcome::CorruptKeptAside);
        QVERIFY(!result.message.isEmpty());
        QFile aside(result.keptAsideAs);
        QVERIFY(aside.open(QIODevice::ReadOnly));
        QCOMPARE(aside.readAll(), content); // nothing of it is lost
        QVERIFY(book.contacts().isEmpty());
        QString error;
        QVERIFY(book.save(&error));
    }

    void killedMidSaveLosesNothing() {
        QTemporaryDir dir;
        const QString path = dir.filePath("contacts.json");
        for (int run = 0; run < 5; ++run) {
            QProcess saver;
            saver.start(CONTACTBOOK_SAVER, {path});
            QVERIFY(saver.waitForStarted());
            QVERIFY(saver.waitForReadyRead(30000)); // it has saved a few times and goes on
            QTest::qWait(20 * (run + 1));
            ::kill(pid_t(saver.processId()), SIGKILL);
            QVERIFY(saver.waitForFinished());
            ContactBook book(path);
            const auto result = book.load();
            QCOMPARE(result.outcome, ContactBook::LoadOutcome::Loaded);
            QVERIFY(book.contacts().size() >= 6);
        }
    }
};

QTEST_GUILESS_MAIN(ContactBookTest)
#include "tst_contactbook.moc"
