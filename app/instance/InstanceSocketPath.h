// Where the running OnionVoice of a data directory listens for the links of later starts: a path
// that no other local user can take first, since what a later start hands over may carry a
// contact's access key.
#pragma once

#include <QString>

namespace onionvoice::app {

struct InstanceSocketPath {
    QString path;  // empty when no private place was found
    QString error; // why, for the user
};

// <data dir>/instance.sock when it fits a Unix socket address; else a name hashed from the data
// directory in the user's runtime directory, or, without one, in a directory of this user's own
// under the temporary directory, which must be private (this user's, mode 0700, not a link).
InstanceSocketPath resolveInstanceSocketPath(const QString& absoluteDataDirectory);

} // namespace onionvoice::app
