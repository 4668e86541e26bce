// The identity file of a data directory, shared by the commands that need the user's address
// without starting tor (id, contacts): loaded when present, created (mode 0600) when not.
#pragma once

#include "tor/OnionIdentity.h"

#include <optional>

namespace onionvoice::cli {

enum class IdentityOrigin { Loaded, Created };

struct StoredIdentity {
    tor::OnionIdentity identity;
    IdentityOrigin origin;
};

// The same file name the engine uses.
std::optional<StoredIdentity> loadOrCreateIdentity(const QString& dataDirectory, QString* error);

} // namespace onionvoice::cli
