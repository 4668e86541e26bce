// The contact list for a user with a keyboard and a search field, offscreen and without a network:
// the keyboard's way into the list selects the contact it lands on and Enter calls it, a contact
// the search hides is no longer the one the buttons act on, Call says why it is greyed out, and
// removing a contact asks by name, says that its block goes too, and a reflex Enter keeps it; one's
// own ID is not called; the Status notes of a flood of strangers do not pile up.
#include "../contacts/ContactTestData.h"
#include "OffscreenTestMain.h"
#include "WidgetLookup.h"
#include "ui/ContactActivity.h"
#include "ui/ContactListPanel.h"
#include "ui/EngineHost.h"

#include <QApplication>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace onionvoice;
using onionvoice::ui::ContactListPanel;
using Calling = ContactListPanel::Calling;

namespace {

contacts::Contact contact(std::uint8_t n, const QString& name, bool blocked = false) {
    contacts::Contact c;
    c.address = testAddress(n);
    c.displayName = name;
    c.blocked = blocked;
    return c;
}

} // namespace

Q_DECLARE_METATYPE(Calling)

class ContactListTest : public QObject {
    Q_OBJECT
private slots:
    // Fault (a review found it): Tab from the search made the only contact current, not
    // selected: Enter, the arrow keys and Home did nothing and Call stayed greyed out; only Space
    // selected it.
    void theKeyboardSelectsAndEnterCalls() {
        ContactListPanel panel;
        const auto alice = contact(1, QStringLiteral("Alice"));
        panel.setContacts({alice});
        panel.setCalling(Calling::Possible);
        panel.show();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        auto* search = find<QLineEdit>(&panel, "contactSearch");
        auto* list = find<QTreeWidget>(&panel, "contactList");
        search->setFocus();
        QTRY_VERIFY(search->hasFocus());
        QSignalSpy calls(&panel, &ContactListPanel::callRequested);
        QTest::keyClick(search, Qt::Key_Tab);
        QTRY_VERIFY(list->hasFocus());
        QVERIFY(find<QPushButton>(&panel, "callButton")->isEnabled());
        QTest::keyClick(list, Qt::Key_Return);
        QCOMPARE(calls.count(), 1);
        QCOMPARE(calls.at(0).at(0).toString(), alice.address);
    }

    // Fault (a review found it): the search hid the selected contact and left Call, Rename, Block
    // and Remove enabled; Call then dialled "" ("The address is empty.").
    void aContactTheSearchHidesIsNotActedOn() {
        ContactListPanel panel;
        panel.setContacts({contact(1, QStringLiteral("Alice")), contact(2, QStringLiteral("Bob"))});
        panel.setCalling(Calling::Possible);
        auto* list = find<QTreeWidget>(&panel, "contactList");
        list->setCurrentItem(list->topLevelItem(0)); // Alice
        QVERIFY(find<QPushButton>(&panel, "callButton")->isEnabled());
        QSignalSpy calls(&panel, &ContactListPanel::callRequested);
        find<QLineEdit>(&panel, "contactSearch")->setText(QStringLiteral("Bob"));
        for (const char* name : {"callButton", "renameButton", "blockButton", "removeButton"})
            QVERIFY2(!find<QPushButton>(&panel, name)->isEnabled(), name);
        find<QPushButton>(&panel, "callButton")->click();
        QVERIFY(calls.isEmpty());
    }

    // Call greyed out says why (a review found that with tor failed it still promised that
    // waiting would do, and that it stayed enabled during a call, where it only put "A call is
    // already under way." in the status bar).
    void callSaysWhyItIsGreyedOut_data() {
        QTest::addColumn<Calling>("calling");
        QTest::addColumn<QString>("says");
        QTest::newRow("tor connecting")
            << Calling::TorConnecting << QStringLiteral("not connected yet");
        QTest::newRow("tor failed") << Calling::TorFailed << QStringLiteral("could not start");
        QTest::newRow("call under way") << Calling::CallUnderWay << QStringLiteral("under way");
    }
    void callSaysWhyItIsGreyedOut() {
        QFETCH(Calling, calling);
        QFETCH(QString, says);
        ContactListPanel panel;
        panel.setContacts({contact(1, QStringLiteral("Alice"))});
        auto* list = find<QTreeWidget>(&panel, "contactList");
        list->setCurrentItem(list->topLevelItem(0));
        auto* call = find<QPushButton>(&panel, "callButton");
        panel.setCalling(calling);
        QVERIFY(!call->isEnabled());
        QVERIFY2(call->toolTip().contains(says), qPrintable(call->toolTip()));
        if (calling == Calling::TorFailed)
            QVERIFY2(!call->toolTip().contains(QStringLiteral("yet")), qPrintable(call->toolTip()));
        panel.setCalling(Calling::Possible);
        QVERIFY(call->isEnabled());
        QCOMPARE(call->toolTip(), QStringLiteral("Call the selected contact"));
    }

    // Fault (a review found it): the question named the short ID, not the name; Yes was the
    // default, so a reflex Enter removed; and a blocked contact's block went with it unsaid (they
    // could ring again).
    void removingAContactAsksByNameAndKeepsItOnEnter() {
        ContactListPanel panel;
        panel.setContacts({contact(1, QStringLiteral("Spammer"), true)});
        panel.show();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        auto* list = find<QTreeWidget>(&panel, "contactList");
        list->setCurrentItem(list->topLevelItem(0));
        QSignalSpy removals(&panel, &ContactListPanel::removeRequested);
        QString text;
        QTimer::singleShot(100, &panel, [&] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
                    text = box->text();
                    QTest::keyClick(box, Qt::Key_Return);
                }
        });
        find<QPushButton>(&panel, "removeButton")->click();
        QVERIFY2(text.contains(QStringLiteral("Spammer")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("block"), Qt::CaseInsensitive), qPrintable(text));
        QCOMPARE(removals.count(), 0);
    }

    // Fault (a review found it): dialling one's own address (onionvoice-cli call takes any)
    // rang our own service as a stranger's call: "Ringing" for 30 s, then "no answer".
    void dialingTheOwnAddressIsRefusedAtOnce() {
        QTemporaryDir data;
        ui::EngineHost host;
        call::EngineConfig own;
        own.dataDirectory = data.path();
        own.torExecutable = QStringLiteral("/bin/false"); // no network needed
        QSignalSpy errors(&host, &ui::EngineHost::errorOccurred);
        QSignalSpy states(&host, &ui::EngineHost::callStateChanged);
        host.start(own);
        QTRY_VERIFY(!host.address().isEmpty());
        host.dial(host.address());
        QTRY_VERIFY(!errors.isEmpty());
        QVERIFY2(errors.last().at(0).toString().contains(QStringLiteral("your own ID")),
                 qPrintable(errors.last().at(0).toString()));
        QVERIFY(states.isEmpty());
    }

    // Strangers ring from ever new addresses, for days in an app left running: what is noted of
    // callers stays bounded, the newest stay, a call under way is never forgotten, and a
    // contact's missed call outlives the flood.
    void aFloodOfStrangersLeavesTheNotesBounded() {
        using call::CallState;
        using call::EndReason;
        ui::ContactActivity activity;
        const QString carol = testAddress(1), dave = testAddress(2);
        activity.setContactCheck([carol](const QString& address) { return address == carol; });
        const QDateTime start(QDate(2026, 11, 27), QTime(9, 0));
        activity.onCallState(CallState::Ringing, carol, EndReason::None, false, start);
        activity.onCallState(CallState::Ended, carol, EndReason::Cancelled, false, start);
        activity.onCallState(CallState::Active, dave, EndReason::None, true, start);
        const int strangers = 6 * 60 * 24 * 3; // three days at the engine's stranger rate
        QDateTime at = start;
        for (int i = 0; i < strangers; ++i) {
            at = at.addSecs(10);
            const QString stranger = QStringLiteral("stranger-%1").arg(i);
            activity.onCallState(CallState::Ringing, stranger, EndReason::None, false, at);
            activity.onCallState(CallState::Ended, stranger, EndReason::Cancelled, false, at);
        }
        const auto notes = activity.notes(at);
        QVERIFY2(notes.size() <= 256, qPrintable(QString::number(notes.size())));
        QVERIFY(activity.noteFor(carol, at).needsAttention);
        QCOMPARE(activity.noteFor(dave, at).text, QStringLiteral("in call"));
        QVERIFY(
            activity.noteFor(QStringLiteral("stranger-%1").arg(strangers - 1), at).needsAttention);
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(ContactListTest)
#include "tst_contactlist.moc"
