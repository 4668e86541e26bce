// Unit tests of contact URIs: round trip, percent-encoded names, access keys, and refusals with a
// reason a person can read.
#include "ContactTestData.h"
#include "contacts/ContactUri.h"

#include <QTest>

using namespace onionvoice::contacts;

namespace {
// An access key as links carry it (base64url of 32 bytes, 43 characters).
const QString kKey = QString::fromLatin1(
    QByteArray(32, '\x5a')
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
} // namespace

class ContactUriTest : public QObject {
    Q_OBJECT
private slots:
    void roundTrip() {
        ContactUri uri{testAddress(1), QStringLiteral("Zoë & Ana?=%"), QByteArray(32, '\x07')};
        const QString text = uri.toString();
        QVERIFY(text.startsWith("onionvoice:" + testAddress(1) + "?name="));
        QVERIFY(!text.contains(' '));
        const ContactUriParse parsed = parseContactUri(text);
        QVERIFY2(parsed.uri.has_value(), qPrintable(parsed.error));
        QCOMPARE(parsed.uri->address, uri.address);
        QCOMPARE(parsed.uri->displayName, uri.displayName);
        QCOMPARE(parsed.uri->clientAuthKey, uri.clientAuthKey);
    }

    void plainAddressAndSpaces() {
        const ContactUriParse p = parseContactUri("  onionvoice:" + testAddress(2) + "  ");
        QVERIFY(p.uri.has_value());
        QCOMPARE(p.uri->address, testAddress(2));
        QVERIFY(p.uri->displayName.isEmpty());
        const ContactUri bare{testAddress(2), {}, {}};
        QCOMPARE(bare.toString(), "onionvoice:" + testAddress(2));
        const ContactUriParse named =
            parseContactUri("onionvoice:" + testAddress(2) + "?name=Bo%20Li");
        QCOMPARE(named.uri->displayName, QString("Bo Li"));
        // Written with slashes, as a URL with an authority (a review found it refused while
        // "onionvoice://ADDRESS" without a query was taken).
        const ContactUriParse slashes =
            parseContactUri("onionvoice://" + testAddress(2) + "?name=Bo%20Li");
        QVERIFY2(slashes.uri.has_value(), qPrintable(slashes.error));
        QCOMPARE(slashes.uri->address, testAddress(2));
    }

    void refusals_data() {
        QTest::addColumn<QString>("text");
        const QString a = testAddress(3);
        QString badChecksum = a;
        badChecksum[10] = badChecksum[10] == 'a' ? 'b' : 'a';
        QTest::newRow("no scheme") << a;
        QTest::newRow("other scheme") << "http://" + a + ".onion";
        QTest::newRow("empty") << "onionvoice:";
        QTest::newRow("checksum") << "onionvoice:" + badChecksum;
        QTest::newRow("short") << "onionvoice:" + a.left(55);
        QTest::newRow("unknown part") << "onionvoice:" + a + "?foo=1";
        QTest::newRow("short key") << "onionvoice:" + a + "?auth=AAAA";
        QTest::newRow("bad key") << "onionvoice:" + a + "?auth=" + QString(43, '*');
        QTest::newRow("long name") << "onionvoice:" + a + "?name=" + QString(65, 'x');
        QTest::newRow("control name") << "onionvoice:" + a + "?name=a%07b";
        QTest::newRow("format name") << "onionvoice:" + a + "?name=Ana%E2%80%AEevE";
    }
    void refusals() {
        QFETCH(QString, text);
        const ContactUriParse p = parseContactUri(text);
        QVERIFY(!p.uri.has_value());
        QVERIFY(!p.error.isEmpty());
    }

    // Fault: a link whose "=" got percent-encoded (`auth%3D<key>`), or with the key pasted bare
    // after the "?", is one unknown part; the refusal quoted its first 20 characters, and the app
    // writes refusals of --contact links to its log: 13 characters of a private key there.
    void aRefusalQuotesNoKey_data() {
        QTest::addColumn<QString>("query");
        QTest::newRow("encoded =") << "auth%3D" + kKey;
        QTest::newRow("bare key") << kKey;
        QTest::newRow("unknown part, key as value") << "Auth=" + kKey;
    }
    void aRefusalQuotesNoKey() {
        QFETCH(QString, query);
        const ContactUriParse p = parseContactUri("onionvoice:" + testAddress(3) + "?" + query);
        QVERIFY(!p.uri.has_value());
        QVERIFY2(!p.error.contains(kKey.left(4)), qPrintable(p.error));
        QVERIFY(parseContactUri("onionvoice:" + testAddress(3) + "?foo=1").error.contains("foo"));
    }
};

QTEST_APPLESS_MAIN(ContactUriTest)
#include "tst_contacturi.moc"
