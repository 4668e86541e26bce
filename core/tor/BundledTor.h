// The files a tor bundle ships next to its tor executable (tor-bundle/manifest), and the torrc
// lines that make tor use them: the bundle's GeoIP files (a bundled tor cannot rely on the system's
// /usr/share/tor) and its pluggable transports for bridges.
#pragma once

#include <QString>
#include <QStringList>

namespace onionvoice::tor {

// GeoIPFile / GeoIPv6File for geoip files, ClientTransportPlugin lines for obfs4proxy or lyrebird
// (obfs4, meek_lite) and snowflake-client found in the directory of torExecutable. Empty for a
// tor without such files beside it (a system tor uses its own defaults). A transport that
// configuredLines (the rest of the torrc) already has a ClientTransportPlugin for is left to it:
// tor accepts one plugin per transport.
QStringList bundledTorrcLines(const QString& torExecutable,
                              const QStringList& configuredLines = {});

} // namespace onionvoice::tor
