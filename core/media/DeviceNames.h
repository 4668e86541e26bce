// Finds a saved sound device again after it was unplugged and plugged back in. The names the
// systems give a device carry where it was plugged in: ALSA ends them with the card's index,
// "USB Headset: Audio (hw:2,0)", and Windows puts a port number in, "Headset (2- USB Audio)".
// Plugged into another port, the same headset gets another index, and a saved choice compared
// by the full name was lost without a word.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace onionvoice::media {

// The device's name without what tells where it is plugged in.
QString deviceIdentity(const QString& name);

// The index in `present` of the saved device: the same name, else the first with the same
// identity (two of one headset model are the same to the user).
std::optional<qsizetype> findSavedDevice(const QStringList& present, const QString& saved);

} // namespace onionvoice::media
