// An onionvoice: link opened while OnionVoice runs ends up in the running window's add-contact
// field: a second process (tst_instanceguard --claim, standing in for `onionvoice LINK`) forwards
// it through InstanceGuard to a real MainWindow, wired as the onionvoice program wires it.
#include "InstanceGuard.h"
#include "ui/EngineHost.h"
#include "ui/MainWindow.h"

#include <QApplication>
#include <QLineEdit>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using onionvoice::app::InstanceGuard;

class TestLinkHandoff : public QObject {
    Q_OBJECT
private slots:
    void linkFillsTheRunningWindow() {
        QTemporaryDir dir;
        onionvoice::ui::EngineHost host; // not started: no tor needed to show the window
        onionvoice::ui::MainWindow window(&host);
        window.show();
        InstanceGuard guard(dir.path());
        QCOMPARE(guard.claim({}), InstanceGuard::Role::Primary);
        connect(&guard, &InstanceGuard::activationRequested, &window,
                &onionvoice::ui::MainWindow::openAddContact);

        const QString link = QStringLiteral("onionvoice:aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53"
                                            "sdgiesvgg4bqead?name=Alice%20B");
        QProcess second;
        second.start(QStringLiteral(ONIONVOICE_CLAIM_HELPER),
                     {QStringLiteral("--claim"), dir.path(), link});
        QVERIFY(QTest::qWaitFor([&] { return second.state() == QProcess::NotRunning; }, 20000));
        QCOMPARE(QString::fromUtf8(second.readAllStandardOutput()).trimmed(),
                 QStringLiteral("Forwarded"));

        auto* field = window.findChild<QLineEdit*>(QStringLiteral("addContactField"));
        QVERIFY(field);
        QTRY_COMPARE(field->text(), link);
    }
};

QTEST_MAIN(TestLinkHandoff)
#include "tst_linkhandoff.moc"
