// bundledTorrcLines: the torrc lines for geoip files and pluggable transports shipped next to a
// bundled tor, and nothing for files that are missing or not executable; bridgeTorrcLines: every
// transport of the plugin a bridge line needs.
#include "tor/BundledTor.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using onionvoice::tor::bridgeTorrcLines;
using onionvoice::tor::bundledTorrcLines;
using onionvoice::tor::pluginTransports;

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
        QCOMPARE(bundledTorrcLines(dir.filePath(QStringLiteral("tor"))),
                 QStringList{QStringLiteral(
                                 "ClientTransportPlugin obfs4,meek_lite,webtunnel exec %1/lyrebird")
                                 .arg(dir.path())});
    }

    void pluginsAreKnownByTheirTransports() {
        QCOMPARE(pluginTransports(QStringLiteral("/opt/tor/lyrebird.exe")),
                 (QStringList{"obfs4", "meek_lite", "webtunnel"}));
        QCOMPARE(pluginTransports(QStringLiteral("/usr/bin/obfs4proxy")),
                 (QStringList{"obfs4", "meek_lite"}));
        QCOMPARE(pluginTransports(QStringLiteral("/usr/bin/snowflake-client")),
                 QStringList{"snowflake"});
        QVERIFY(pluginTransports(QStringLiteral("/usr/bin/obfs4proxy-wrapper")).isEmpty());
        QVERIFY(pluginTransports(QString()).isEmpty());
    }

    // A meek_lite or webtunnel bridge line is useless unless its plugin line names the transport:
    // tor then has no plugin for it and never connects.
    void everyBridgeTransportGetsItsPlugin() {
        QTemporaryDir dir;
        for (const char* name : {"tor", "lyrebird", "snowflake-client"})
            touch(dir.filePath(QLatin1String(name)), true);
        const QString d = dir.path();
        const QStringList bridges{
            QStringLiteral("meek_lite 192.0.2.18:80 BE776A53492E1E044A26F17306E1BC46A55A1625 "
                           "url=https://meek.example/ front=cdn.example"),
            QStringLiteral("webtunnel [2001:db8::1]:443 AAAA url=https://w.example/p ver=0.0.1")};
        QCOMPARE(
            bridgeTorrcLines(bridges,
                             {dir.filePath(QStringLiteral("lyrebird")),
                              dir.filePath(QStringLiteral("snowflake-client")), QString()},
                             dir.filePath(QStringLiteral("tor"))),
            (QStringList{
                QStringLiteral("UseBridges 1"),
                QStringLiteral("ClientTransportPlugin obfs4,meek_lite,webtunnel exec %1/lyrebird")
                    .arg(d),
                QStringLiteral("ClientTransportPlugin snowflake exec %1/snowflake-client").arg(d),
                QStringLiteral("Bridge ") + bridges.at(0),
                QStringLiteral("Bridge ") + bridges.at(1),
            }));
        QCOMPARE(
            bridgeTorrcLines({}, {QStringLiteral("/usr/bin/obfs4proxy")}, QString()),
            (QStringList{
                QStringLiteral("UseBridges 1"),
                QStringLiteral("ClientTransportPlugin obfs4,meek_lite exec /usr/bin/obfs4proxy")}));
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
