// What the tests of call engines and onionvoice-cli processes on the private network share: how
// long they wait for a start and for a call, and an engine configuration whose tor joins the
// network. Kept apart from TestnetEnv.h, which the tests of the tor layer alone use.
#pragma once

#include "TestnetEnv.h"
#include "call/CallEngine.h"

#include <QDir>
#include <QString>

namespace onionvoice::testnet {

// Upper bounds, not expectations: a tor that bootstraps and publishes its service on a machine
// busy with other tests takes far longer than on an idle one.
constexpr int kStartTimeout = 120000;
constexpr int kCallTimeout = 60000;

// Whether an app's data directory is made afresh (identity, contacts and tor state gone) or kept
// from an earlier instance (a test that wrote its contact book before the engine starts).
enum class AppData { Fresh, Kept };

// `base` with its data in <network>/../apps/NAME and its tor joining the network.
inline call::EngineConfig engineConfig(const QString& name, call::EngineConfig base = {},
                                       AppData data = AppData::Fresh) {
    base.dataDirectory =
        data == AppData::Fresh
            ? clientConfig(name).dataDirectory
            : QDir(networkDirectory()).absoluteFilePath(QStringLiteral("../apps/") + name);
    base.extraTorrcLines = clientTorrcLines();
    return base;
}

} // namespace onionvoice::testnet
