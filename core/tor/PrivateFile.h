// Atomic writes of files only their owner may read (torrc, contact book, service keys): the whole
// content or nothing replaces the file, with mode 0600 from the first byte.
#pragma once

#include <QByteArray>
#include <QString>

namespace onionvoice::tor {

// Returns false with a reason in *error; the previous file is then untouched.
bool writePrivateFile(const QString& path, const QByteArray& content, QString* error);

} // namespace onionvoice::tor
