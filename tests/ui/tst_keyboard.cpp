// The windows for people who use the keyboard or a screen reader, offscreen and without a
// network (an engine host that is never started): Tab leaves every widget it enters and an ended
// call's window has a button to take the focus.
#include "OffscreenTestMain.h"
#include "WidgetLookup.h"
#include "ui/AppSettings.h"
#include "ui/CallWindow.h"
#include "ui/SettingsDialog.h"

#include <QApplication>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QTest>

using namespace onionvoice;
using namespace onionvoice::ui;

namespace {

// A call with `links` open links, so that the link table has rows to walk through.
call::CallStatistics withLinks(int links) {
    call::CallStatistics s;
    s.duration = std::chrono::seconds(5);
    s.framesReceived = 200;
    for (int i = 0; i < links; ++i) {
        call::LinkStatistics link;
        link.slot = i;
        link.state = QStringLiteral("up");
        link.relativeDelayMs = 10;
        s.links.append(link);
    }
    return s;
}

void pressTab(int times) {
    for (int i = 0; i < times; ++i)
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
}

} // namespace

class KeyboardTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: the link table moved its current cell on Tab, so Tab never left it.
    void tabLeavesTheLinkTable() {
        CallWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.setCallState(call::CallState::Active, call::EndReason::None);
        window.updateStatistics(withLinks(2));
        auto* table = find<QTableView>(&window, "linkTable");
        table->setFocus();
        QTRY_VERIFY(table->hasFocus());
        pressTab(3);
        QVERIFY(!table->hasFocus());
    }

    // Fault: Hang up, disabled at the end, handed the focus to the link table (a trap, above);
    // the ended call's window now offers Close, which Esc also means.
    void anEndedCallFocusesClose() {
        CallWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.setCallState(call::CallState::Active, call::EndReason::None);
        window.updateStatistics(withLinks(2));
        auto* hangUp = find<QPushButton>(&window, "hangUpButton");
        hangUp->setFocus();
        QTRY_VERIFY(hangUp->hasFocus());
        window.setCallState(call::CallState::Ended, call::EndReason::HungUpLocally);
        QWidget* table = find<QTableView>(&window, "linkTable");
        QTRY_VERIFY(QApplication::focusWidget() != nullptr);
        QVERIFY(QApplication::focusWidget() != table);
        auto* close = find<QPushButton>(&window, "closeCallButton");
        QVERIFY(close->isVisible());
        QVERIFY(close->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QTRY_VERIFY(!window.isVisible());
    }

    // Fault: the bridge-lines box typed a tab character instead of moving on.
    void tabLeavesTheBridgeLines() {
        SettingsDialog dialog(AppSettings{}, SettingsEnvironment{});
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        auto* bridges = find<QPlainTextEdit>(&dialog, "bridgeLines");
        bridges->setFocus();
        QTRY_VERIFY(bridges->hasFocus());
        pressTab(1);
        QVERIFY(!bridges->hasFocus());
        QVERIFY(bridges->toPlainText().isEmpty());
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(KeyboardTest)
#include "tst_keyboard.moc"
