// The display-name check (its reasons translated where the app loads a translation).
#include "ContactName.h"

#include <QCoreApplication>
#include <QList>
#include <algorithm>

namespace onionvoice::contacts {

std::optional<QString> checkDisplayName(const QString& name) {
    if (name.size() > kMaxNameLength)
        return QCoreApplication::translate("ContactName", "The name is longer than %1 characters.")
            .arg(kMaxNameLength);
    // Line and paragraph separators (U+2028, U+2029) are not control characters, yet Qt's text
    // layout breaks the line at them as at a newline.
    if (std::any_of(name.begin(), name.end(), [](QChar c) {
            return c.category() == QChar::Other_Control || c.category() == QChar::Separator_Line ||
                   c.category() == QChar::Separator_Paragraph;
        }))
        return QCoreApplication::translate("ContactName", "The name contains control characters.");
    if (hasFormatCharacters(name))
        return QCoreApplication::translate("ContactName",
                                           "The name contains invisible formatting characters.");
    return std::nullopt;
}

bool hasFormatCharacters(const QString& name) {
    const QList<uint> points = name.toUcs4(); // format characters exist beyond the BMP too
    return std::any_of(points.begin(), points.end(),
                       [](uint c) { return QChar::category(char32_t(c)) == QChar::Other_Format; });
}

} // namespace onionvoice::contacts
