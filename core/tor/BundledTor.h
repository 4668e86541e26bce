// The files a tor bundle ships next to its tor executable (tor-bundle/manifest), and the torrc
// lines that make tor use them: the bundle's GeoIP files (a bundled tor cannot rely on the system's
// /usr/share/tor) and its pluggable transports for bridges.
#pragma once

#include <QString>
#include <QStringList>

namespace onionvoice::tor {

// GeoIPFile / GeoIPv6File for geoip files, ClientTransportPlugin lines for lyrebird (obfs4,
// meek_lite, webtunnel) or else obfs4proxy (obfs4, meek_lite) and snowflake-client found in the
// directory of torExecutable. Empty for a tor without such files beside it (a system tor uses its
// own defaults). A transport that configuredLines (the rest of the torrc) already has a
// ClientTransportPlugin for is left to it: tor accepts one plugin per transport.
QStringList bundledTorrcLines(const QString& torExecutable,
                              const QStringList& configuredLines = {});

// The bridge transports a pluggable-transport executable runs, known by its file name (".exe" or
// not): lyrebird obfs4, meek_lite and webtunnel; obfs4proxy obfs4 and meek_lite; snowflake-client
// snowflake. Empty for any other file.
QStringList pluginTransports(const QString& executable);

// "ClientTransportPlugin <transports> exec <executable>" for the tor at torExecutable, or an empty
// string when tor cannot be told to run executable. tor splits the line on whitespace and knows
// no quoting, so a path with a space would run its first word. TorLauncher runs tor in tor's own
// directory: an executable there is then named relative to it ("./lyrebird"). A path with
// whitespace elsewhere cannot be written; unless tor's bundle has its own plugin for these
// transports (bundledTorrcLines adds it), a warning says why their bridges cannot work.
QString transportPluginLine(const QString& transports, const QString& executable,
                            const QString& torExecutable);

// The torrc lines that make tor connect through bridges: "UseBridges 1", a ClientTransportPlugin
// line for each of pluginExecutables with every transport it runs (pluginTransports), and
// "Bridge <line>" for each of bridgeLines.
QStringList bridgeTorrcLines(const QStringList& bridgeLines, const QStringList& pluginExecutables,
                             const QString& torExecutable);

} // namespace onionvoice::tor
