// bundledTorrcLines: the torrc lines for geoip files and pluggable transports shipped next to a
// bundled tor, and nothing for files that are missing or not executable.
#include "tor/BundledTor.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using onionvoice::tor::bundledTorrcLines;

namespace {

void touch(const QString& path, bool executable) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QFile::Permissions permissions = QFile::ReadOwner | QFile::WriteOwner;
    if (executable)
        permissions |= QFile::ExeOwner;
    QVERIFY(file.setPermissions(permissions));
}

} // namespace

class TestBundledTor : public QObject {
    Q_OBJECT
private slots:
    void fullBundle() {
        QTemporaryDir dir;
        for (const char* name : {"tor", "obfs4proxy", "snowflake-client"})
            touch(dir.filePath(QLatin1String(name)), true);
        touch(dir.filePath(QStringLiteral("geoip")), false);
        touch(dir.filePath(QStringLiteral("geoip6")), false);
        const QString d = dir.path();
        QCOMPARE(
            bundledTorrcLines(dir.filePath(QStringLiteral("tor"))),
            (QStringList{
                QStringLiteral("GeoIPFile %1/geoip").arg(d),
                QStringLiteral("GeoIPv6File %1/geoip6").arg(d),
                QStringLiteral("ClientTransportPlugin obfs4,meek_lite exec %1/obfs4proxy").arg(d),
                QStringLiteral("ClientTransportPlugin snowflake exec %1/snowflake-client").arg(d),
            }));
    }

    void lyrebirdWinsOverObfs4proxy() {
        QTemporaryDir dir;
        for (const char* name : {"tor", "lyrebird", "obfs4proxy"})
            touch(dir.filePath(QLatin1String(name)), true);
        QCOMPARE(
            bundledTorrcLines(dir.filePath(QStringLiteral("tor"))),
            QStringList{QStringLiteral("ClientTransportPlugin obfs4,meek_lite exec %1/lyrebird")
                            .arg(dir.path())});
    }

    void transportConfiguredElsewhereIsLeftAlone() {
        QTemporaryDir dir;
        for (const char* name : {"tor", "obfs4proxy", "snowflake-client"})
            touch(dir.filePath(QLatin1String(name)), true);
        const QStringList configured{
            QStringLiteral("UseBridges 1"),
            QStringLiteral("ClientTransportPlugin obfs4 exec /usr/bin/obfs4proxy"),
        };
        QCOMPARE(
            bundledTorrcLines(dir.filePath(QStringLiteral("tor")), configured),
            QStringList{QStringLiteral("ClientTransportPlugin snowflake exec %1/snowflake-client")
                            .arg(dir.path())});
    }

    void systemTorGetsNothing() {
        QTemporaryDir dir;
        touch(dir.filePath(QStringLiteral("tor")), true);
        touch(dir.filePath(QStringLiteral("snowflake-client")), false); // not executable
        QVERIFY(bundledTorrcLines(dir.filePath(QStringLiteral("tor"))).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBundledTor)
#include "tst_bundledtor.moc"
