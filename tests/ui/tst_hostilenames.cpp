// Attacks through names, offscreen and without a network (the engine's tor is /bin/false, which
// fails to start): a contact name holding markup, as an onionvoice: link may carry it, shows as the
// text it is in the incoming-call prompt, the call window and the desktop notification (on a
// private D-Bus session bus); and a rename to a name the contact book refuses leaves the contact
// whole in the engine's book (its block and access keys), not removed.
#include "../contacts/ContactTestData.h"
#include "NotificationServer.h"
#include "OffscreenTestMain.h"
#include "WidgetLookup.h"
#include "contacts/ContactBook.h"
#include "ui/AddressText.h"
#include "ui/CallWindow.h"
#include "ui/EngineHost.h"
#include "ui/IncomingCallDialog.h"
#include "ui/MainWindow.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace onionvoice;

namespace {

// Markup that would draw a second line under the caller's name, looking like the prompt's own.
const QString kHostileName =
    QStringLiteral("<b>x</b><br>verified <img src=\"http://192.0.2.1/p.png\">");

} // namespace

class HostileNamesTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir data_;
    std::unique_ptr<NotificationServer> notifications_;
    std::unique_ptr<ui::EngineHost> host_;
    // Added at a whole second: the book stores the date to the second.
    const QDateTime added_{QDate(2026, 11, 20), QTime(12, 0), Qt::UTC};
    const contacts::Contact hostile_{testAddress(1), kHostileName, added_, false, false, {}, {}};
    const contacts::Contact blocked_{
        testAddress(2),      QStringLiteral("Mallory"), added_, true, true,
        QByteArray(32, 'i'), QByteArray(32, 'o')};
    // Added from a bare ID or a shared link, which carry no name.
    const contacts::Contact nameless_{testAddress(3), QString(), added_, false, false, {}, {}};

private slots:
    void initTestCase() {
        // Before anything in this process uses the session bus.
        notifications_ = std::make_unique<NotificationServer>();
        QString error;
        QVERIFY2(notifications_->start(&error), qPrintable(error));
        contacts::ContactBook book(data_.filePath(QStringLiteral("contacts.json")));
        book.load();
        QVERIFY(book.add(hostile_, &error));
        QVERIFY(book.add(blocked_, &error));
        QVERIFY(book.add(nameless_, &error));
        QVERIFY2(book.save(&error), qPrintable(error));

        host_ = std::make_unique<ui::EngineHost>();
        QSignalSpy contactsChanged(host_.get(), &ui::EngineHost::contactsChanged);
        call::EngineConfig config;
        config.dataDirectory = data_.path();
        config.torExecutable = QStringLiteral("/bin/false");
        host_->start(config);
        QTRY_COMPARE(host_->phase(), ui::EngineHost::Phase::Running);
        QTRY_COMPARE(contactsChanged.size(), 1);
        QCOMPARE(host_->contacts().size(), 3);
    }

    void cleanupTestCase() {
        host_.reset();
        notifications_.reset();
    }

    // Attack: the name of a contact's link is markup. The prompt, the desktop notification and
    // the call window show it as written.
    void hostileNameShowsAsText() {
        ui::MainWindow window(host_.get());
        QVERIFY(!window.isActiveWindow()); // never shown: the call is announced on the desktop
        notifications_->shown.clear();
        emit host_->incomingCall(hostile_.address, hostile_.displayName);
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        ui::IncomingCallDialog* prompt = window.incomingCallDialog();
        QVERIFY(QTest::qWaitForWindowExposed(prompt));
        auto* caller = find<QLabel>(prompt, "incomingCaller");
        QCOMPARE(caller->textFormat(), Qt::PlainText);
        QCOMPARE(caller->text(), kHostileName);
        QCOMPARE(find<QLabel>(prompt, "incomingAddress")->textFormat(), Qt::PlainText);

        // Servers may read the body as markup: escaped, it shows the name and fetches nothing.
        QTRY_COMPARE(notifications_->shown.size(), 1);
        QCOMPARE(notifications_->shown.first().second, kHostileName.toHtmlEscaped());

        QTest::mouseClick(find<QPushButton>(prompt, "acceptCallButton"), Qt::LeftButton);
        QTRY_VERIFY(window.callWindow() && window.callWindow()->isVisible());
        auto* peer = find<QLabel>(window.callWindow(), "callPeer");
        QCOMPARE(peer->textFormat(), Qt::PlainText);
        QCOMPARE(peer->text(), kHostileName);
        QVERIFY(window.callWindow()->windowTitle().contains(kHostileName));
        window.callWindow()->close();
    }

    // Fault: a contact saved without a name called, and the prompt and the notification said
    // "Unknown caller", as for a stranger, while the user chose whether to answer or to block.
    void aContactWithoutANameIsNoStranger() {
        ui::MainWindow window(host_.get());
        notifications_->shown.clear();
        emit host_->incomingCall(nameless_.address, QString());
        QTRY_VERIFY(window.incomingCallDialog() && window.incomingCallDialog()->isVisible());
        auto* caller = find<QLabel>(window.incomingCallDialog(), "incomingCaller");
        QCOMPARE(caller->text(), QStringLiteral("A contact without a name"));
        QTRY_COMPARE(notifications_->shown.size(), 1);
        // Without a name, the short ID says which contact it is.
        QCOMPARE(notifications_->shown.first().second,
                 QStringLiteral("A contact without a name ") + ui::shortAddress(nameless_.address));

        emit host_->incomingCall(testAddress(4), QString()); // a stranger's, for contrast
        QCOMPARE(caller->text(), QStringLiteral("Unknown caller"));
        QTRY_COMPARE(notifications_->shown.size(), 2);
        QCOMPARE(notifications_->shown.last().second,
                 QStringLiteral("Unknown caller ") + ui::shortAddress(testAddress(4)));
        window.incomingCallDialog()->dismiss();
    }

    // Fault: a zero-width space pasted into the rename dialog. The book refuses the name, and the
    // contact must stay as it was: removing it before adding it again under the new name lost
    // its block and keys (a blocked caller rang again, the service was republished without its
    // key) while the window still listed it.
    void refusedRenameKeepsTheContact() {
        QSignalSpy errors(host_.get(), &ui::EngineHost::errorOccurred);
        host_->renameContact(blocked_.address, "Mal" + QString(QChar(0x200B)) + "lory");
        QTRY_COMPARE(errors.size(), 1);
        QCOMPARE(errors.first().first().toString(),
                 QStringLiteral("The name contains invisible formatting characters."));

        // The next change of the book is saved; the engine's book must still hold the contact.
        QSignalSpy contactsChanged(host_.get(), &ui::EngineHost::contactsChanged);
        host_->renameContact(blocked_.address, QStringLiteral("Mal"));
        QTRY_COMPARE(contactsChanged.size() + errors.size(), 2);
        QCOMPARE(errors.size(), 1);
        contacts::Contact renamed = blocked_;
        renamed.displayName = QStringLiteral("Mal");
        QCOMPARE(host_->contact(blocked_.address), renamed);
        contacts::ContactBook saved(data_.filePath(QStringLiteral("contacts.json")));
        QCOMPARE(saved.load().outcome, contacts::ContactBook::LoadOutcome::Loaded);
        QCOMPARE(saved.find(blocked_.address), renamed);
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(HostileNamesTest)
#include "tst_hostilenames.moc"
