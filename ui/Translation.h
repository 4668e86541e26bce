// The compiled translations of the app (ui/translations/*.ts, built into .qm files and embedded
// under :/i18n) and Qt's own ones for the standard buttons, chosen by the user's locale at start.
#pragma once

#include <QLocale>
#include <QTranslator>
#include <memory>
#include <vector>

namespace onionvoice::ui {

// Loads and installs the translations for `locale` on the running application; they stay
// installed while the returned translators live. Empty when OnionVoice has no translation for
// that language (English needs none).
std::vector<std::unique_ptr<QTranslator>> installTranslations(const QLocale& locale);

} // namespace onionvoice::ui
