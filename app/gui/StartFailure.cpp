// The start-up failure report of onionvoice.
#include "StartFailure.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QMessageBox>

namespace onionvoice::gui {

bool windowsAreSeen() {
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

void reportStartFailure(const QString& reason, bool showMessageBox, std::FILE* err) {
    std::fprintf(err, "onionvoice: %s\n", qPrintable(reason));
    std::fflush(err);
    if (!showMessageBox)
        return;
    QMessageBox box(
        QMessageBox::Critical, QCoreApplication::translate("StartFailure", "OnionVoice"),
        QCoreApplication::translate("StartFailure", "OnionVoice could not start: %1").arg(reason),
        QMessageBox::Close);
    box.setObjectName(QStringLiteral("startFailureBox"));
    box.setTextFormat(Qt::PlainText); // the reason quotes paths and program names
    box.exec();                       // no other window exists yet: nothing to keep usable
}

} // namespace onionvoice::gui
