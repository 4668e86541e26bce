// How onion addresses are shown to people: in groups of seven for reading aloud, or shortened
// to their first and last characters where space is short.
#pragma once

#include <QString>
#include <QStringList>

namespace onionvoice::ui {

inline QString groupedAddress(const QString& address) {
    QStringList groups;
    for (qsizetype i = 0; i < address.size(); i += 7)
        groups.append(address.mid(i, 7));
    return groups.join(' ');
}

inline QString shortAddress(const QString& address) {
    return address.size() <= 20 ? address
                                : address.left(10) + QStringLiteral("…") + address.right(6);
}

} // namespace onionvoice::ui
