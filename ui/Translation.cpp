// Compiled translations, installed at start.
#include "Translation.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcTranslation, "onionvoice.ui.translation")

namespace onionvoice::ui {

std::vector<std::unique_ptr<QTranslator>> installTranslations(const QLocale& locale) {
    std::vector<std::unique_ptr<QTranslator>> installed;
    auto app = std::make_unique<QTranslator>();
    if (!app->load(locale, QStringLiteral("onionvoice"), QStringLiteral("_"),
                   QStringLiteral(":/i18n"))) {
        qCDebug(lcTranslation, "no translation for %s", qPrintable(locale.name()));
        return installed;
    }
    QCoreApplication::installTranslator(app.get());
    installed.push_back(std::move(app));
    // Qt's own strings (standard dialog buttons) in the same language, where Qt ships them.
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        installed.push_back(std::move(qt));
    }
    return installed;
}

} // namespace onionvoice::ui
