// Reads what a user typed for a peer: a bare onion address (with or without ".onion") or an
// onionvoice: contact link, into a contact URI, with the reason when it is neither (naming what
// was refused, without a link's query, where its access key is).
#pragma once

#include "contacts/ContactUri.h"

#include <optional>

namespace onionvoice::cli {

std::optional<contacts::ContactUri> parsePeer(const QString& text, QString* reason);

} // namespace onionvoice::cli
