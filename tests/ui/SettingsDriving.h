// Drives the desktop app's Settings dialog as the user does, for the tests of GuiApp.
#pragma once

#include "GuiApp.h"
#include "ui/MainWindow.h"

#include <QApplication>
#include <QDialog>
#include <QTest>
#include <QTimer>
#include <functional>

namespace onionvoice::test {

// Opens Settings as the menu does; `act` gets the dialog and closes it.
inline void inSettings(gui::GuiApp& app, const std::function<void(QDialog*)>& act) {
    QTimer::singleShot(0, [act] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        QVERIFY(dialog && dialog->objectName() == QStringLiteral("settingsDialog"));
        act(dialog);
    });
    emit app.window()->settingsRequested();
}

} // namespace onionvoice::test
