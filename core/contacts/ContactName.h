// Display names of contacts: one check for names from contact links, the contact book, the GUI
// and onionvoice-cli, so that a name one of them takes is never refused by another.
#pragma once

#include <QString>
#include <optional>

namespace onionvoice::contacts {

inline constexpr int kMaxNameLength = 64;

// Why a display name cannot be used, as a sentence for a person, or nullopt when it can. Refused:
// more than kMaxNameLength characters, control characters (a line break makes one name look
// like two lines of output), and invisible format characters (see below). Empty is fine: the
// contact is then shown by address.
std::optional<QString> checkDisplayName(const QString& name);

// Whether a display name contains invisible format characters (Unicode category Cf: bidi
// overrides and isolates, zero-width joiners and spaces) that could make one name look like
// another.
bool hasFormatCharacters(const QString& name);

} // namespace onionvoice::contacts
