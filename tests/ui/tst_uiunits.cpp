// Unit tests of the GUI's pure parts: what the add-contact field (and the name beside it)
// accepts and why it refuses, QR codes read back from the images they are drawn as, the call
// rating and link health thresholds, settings persistence and which changes restart tor (also when
// put off), the settings dialog's call parameters and sound test, the bridge-line check, a
// contact's note of the calls with them, and the compiled translation.
#include "OffscreenTestMain.h"
#include "WidgetLookup.h"
#include "call/CallTypes.h"
#include "call/Handshake.h"
#include "contacts/ContactBook.h"
#include "contacts/ContactName.h"
#include "media/PortAudioErrors.h"
#include "tor/OnionAddress.h"
#include "tor/OnionIdentity.h"
#include "tor/SecurityPreset.h"
#include "tor/TorLauncher.h"
#include "ui/AppSettings.h"
#include "ui/CallRating.h"
#include "ui/ContactActivity.h"
#include "ui/ContactInput.h"
#include "ui/ContactListPanel.h"
#include "ui/QrCode.h"
#include "ui/SettingsDialog.h"
#include "ui/Translation.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace onionvoice;
using namespace onionvoice::ui;

namespace {
// The fixed test vector of tor/OnionIdentity: seed 00..1f.
const QString kAddress = QStringLiteral("aoqqpp7tzyil4hlq3umoos6atft6jvrqtosq2xy53sdgiesvgg4bqead");
QString otherAddress() {
    static const QString a = tor::OnionIdentity::generate().address();
    return a;
}
// Whether the engine starts with this bitrate and the other call parameters at their defaults
// (the packet period is one the app never changes).
bool engineAcceptsBitrate(int bitrate) {
    call::CallParameters p;
    p.bitrate = std::uint32_t(bitrate);
    return !call::checkParameters(p).has_value();
}
} // namespace

class UiUnitsTest : public QObject {
    Q_OBJECT
private slots:
    void contactInputAcceptsAddressesAndLinks() {
        const ContactInput bare = ContactInputCheck::check(kAddress, otherAddress(), {});
        QVERIFY(bare.isValid());
        QCOMPARE(bare.contact.address, kAddress);
        // As an ID card shows it: groups of seven, and upper case with ".onion".
        QString grouped;
        for (int i = 0; i < kAddress.size(); i += 7)
            grouped += kAddress.mid(i, 7) + ' ';
        QVERIFY(ContactInputCheck::check(grouped, otherAddress(), {}).isValid());
        QVERIFY(
            ContactInputCheck::check(kAddress.toUpper() + ".ONION", otherAddress(), {}).isValid());
        const QByteArray key(32, '\x07');
        const ContactInput link = ContactInputCheck::check(
            QStringLiteral("onionvoice:%1?name=Ann%20Lee&auth=%2")
                .arg(kAddress, QString::fromLatin1(key.toBase64(QByteArray::Base64UrlEncoding |
                                                                QByteArray::OmitTrailingEquals))),
            otherAddress(), {});
        QVERIFY2(link.isValid(), qPrintable(link.reason));
        QCOMPARE(link.contact.displayName, QStringLiteral("Ann Lee"));
        QCOMPARE(link.contact.outboundAuthPrivateKey, key);
        // A link a mail client broke in two before its '?' (a review found it refused as
        // "Character 29 (line break)").
        const ContactInput broken = ContactInputCheck::check(
            QStringLiteral("onionvoice:%1\n%2?name=Bob").arg(kAddress.left(28), kAddress.mid(28)),
            otherAddress(), {});
        QVERIFY2(broken.isValid(), qPrintable(broken.reason));
        QCOMPARE(broken.contact.address, kAddress);
    }

    void contactInputRefusesWithAReason() {
        const ContactInput own = ContactInputCheck::check(kAddress, kAddress, {});
        QCOMPARE(own.verdict, ContactInput::Verdict::OwnAddress);
        QVERIFY(own.reason.contains("your own ID"));
        contacts::Contact existing;
        existing.address = kAddress;
        existing.displayName = QStringLiteral("Ann");
        const ContactInput again = ContactInputCheck::check(
            QStringLiteral("onionvoice:") + kAddress, otherAddress(), {existing});
        QCOMPARE(again.verdict, ContactInput::Verdict::AlreadyContact);
        QVERIFY(again.reason.contains("\"Ann\""));
        QString wrongChecksum = kAddress;
        wrongChecksum[10] = wrongChecksum[10] == 'a' ? 'b' : 'a';
        const ContactInput bad = ContactInputCheck::check(wrongChecksum, otherAddress(), {});
        QCOMPARE(bad.verdict, ContactInput::Verdict::Invalid);
        QCOMPARE(bad.reason, tor::checkOnionAddress(wrongChecksum).reason);
        const ContactInput badLink = ContactInputCheck::check(
            QStringLiteral("onionvoice:%1?auth=short").arg(kAddress), otherAddress(), {});
        QCOMPARE(badLink.verdict, ContactInput::Verdict::Invalid);
        QVERIFY(!badLink.reason.isEmpty());
        QVERIFY(!ContactInputCheck::check(QString(), otherAddress(), {}).reason.isEmpty());
    }

    // A contact made a new access key and sent their link again: refusing it as "already in your
    // contacts" left no way to take the key short of removing the contact (and their block,
    // allowlisting and keys) and adding it again.
    void contactInputTakesANewAccessKeyForAContact() {
        contacts::Contact existing;
        existing.address = kAddress;
        existing.displayName = QStringLiteral("Ann");
        existing.outboundAuthPrivateKey = QByteArray(32, '\x01');
        const auto linkWithKey = [](const QByteArray& key) {
            return QStringLiteral("onionvoice:%1?auth=%2")
                .arg(kAddress, QString::fromLatin1(key.toBase64(QByteArray::Base64UrlEncoding |
                                                                QByteArray::OmitTrailingEquals)));
        };
        const QByteArray fresh(32, '\x02');
        const ContactInput update =
            ContactInputCheck::check(linkWithKey(fresh), otherAddress(), {existing});
        QCOMPARE(update.verdict, ContactInput::Verdict::NewAccessKey);
        QVERIFY(update.isActionable());
        QVERIFY(!update.isValid()); // not a new contact
        QCOMPARE(update.contact.address, kAddress);
        QCOMPARE(update.contact.outboundAuthPrivateKey, fresh);
        QVERIFY2(update.reason.contains("\"Ann\"") && update.reason.contains("access key"),
                 qPrintable(update.reason));
        // The key it already has, or a link without one: nothing to take.
        for (const QString& text : {linkWithKey(existing.outboundAuthPrivateKey),
                                    QStringLiteral("onionvoice:%1?name=Ann").arg(kAddress)}) {
            const ContactInput same = ContactInputCheck::check(text, otherAddress(), {existing});
            QCOMPARE(same.verdict, ContactInput::Verdict::AlreadyContact);
            QVERIFY(!same.isActionable());
        }
    }

    // Fault: the Name beside the add field was not checked. The contact book then refused a name
    // over 64 characters or with an invisible format character (the joiner in a ZWJ emoji), after
    // the panel had cleared both fields: the pasted ID was lost, and only a status-bar message
    // said why. The panel refuses the name next to the field and keeps what was typed.
    void addFieldRefusesANameTheBookWouldRefuse() {
        ContactListPanel panel;
        panel.setOwnAddress(otherAddress());
        panel.show();
        QSignalSpy adds(&panel, &ContactListPanel::addRequested);
        auto* id = find<QLineEdit>(&panel, "addContactField");
        auto* name = find<QLineEdit>(&panel, "addContactName");
        auto* add = find<QPushButton>(&panel, "addContactButton");
        auto* error = find<QLabel>(&panel, "addContactError");
        id->setText(kAddress);
        const QString tooLong(contacts::kMaxNameLength + 1, QChar('a'));
        const QString zwjEmoji = QString::fromUcs4(U"Ann \U0001F469\u200D\U0001F4BB");
        for (const QString& refused : {tooLong, zwjEmoji}) {
            name->setText(refused);
            QTest::mouseClick(add, Qt::LeftButton);
            QTRY_VERIFY(error->isVisible());
            QCOMPARE(error->text(), contacts::checkDisplayName(refused).value_or(QString()));
            QCOMPARE(adds.size(), 0);
            QCOMPARE(id->text(), kAddress);
            QCOMPARE(name->text(), refused);
        }
        name->setText(QStringLiteral("Ann"));
        QTRY_VERIFY(!error->isVisible());
        QTest::mouseClick(add, Qt::LeftButton);
        QCOMPARE(adds.size(), 1);
        QCOMPARE(adds.first().first().value<contacts::Contact>().displayName,
                 QStringLiteral("Ann"));
        QVERIFY(id->text().isEmpty());
        QVERIFY(name->text().isEmpty());
    }

    void qrCodeRoundTrip() {
        const QString link = QStringLiteral("onionvoice:%1?name=Ann").arg(kAddress);
        const QImage image = encodeQrCode(link, 4);
        QVERIFY(!image.isNull());
        const QrDecode decoded = decodeQrCode(image);
        QVERIFY2(decoded.text, qPrintable(decoded.error));
        QCOMPARE(*decoded.text, link);
        // Scaled, on a larger canvas, as a photo or screenshot would be.
        QImage canvas(image.width() * 3, image.height() * 3, QImage::Format_RGB32);
        canvas.fill(Qt::white);
        QPainter(&canvas).drawImage(QRect(100, 80, image.width() * 2, image.height() * 2), image);
        QCOMPARE(decodeQrCode(canvas).text.value_or(QString()), link);
        QImage blank(200, 200, QImage::Format_RGB32);
        blank.fill(Qt::white);
        const QrDecode none = decodeQrCode(blank);
        QVERIFY(!none.text);
        QVERIFY(!none.error.isEmpty());
        QVERIFY(!decodeQrCode(QImage()).error.isEmpty());
    }

    void ratingThresholds() {
        call::CallStatistics s;
        QCOMPARE(rateCall(s), CallRating::Unknown); // nothing received yet
        s.framesReceived = 100;
        s.rFactor = 80;
        QCOMPARE(rateCall(s), CallRating::Good);
        s.rFactor = 79.9;
        QCOMPARE(rateCall(s), CallRating::Fair);
        s.rFactor = 60;
        QCOMPARE(rateCall(s), CallRating::Fair);
        s.rFactor = 59.9;
        QCOMPARE(rateCall(s), CallRating::Poor);
    }

    void linkHealthThresholds() {
        call::LinkStatistics l;
        l.state = call::SlotState::Down;
        QCOMPARE(linkHealth(l), LinkHealth::Down);
        l.state = call::SlotState::Joining;
        QCOMPARE(linkHealth(l), LinkHealth::Joining);
        l.state = call::SlotState::Up;
        QCOMPARE(linkHealth(l), LinkHealth::Idle); // up, nothing measured: kept in reserve
        l.relativeDelayMs = 59;
        QCOMPARE(linkHealth(l), LinkHealth::Healthy);
        l.relativeDelayMs = 60;
        QCOMPARE(linkHealth(l), LinkHealth::Slow);
        l.relativeDelayMs = 150;
        QCOMPARE(linkHealth(l), LinkHealth::Bad);
        QVERIFY(healthColour(LinkHealth::Bad) != healthColour(LinkHealth::Healthy));
    }

    // A call `duration` long with `linksUp` links up that has received `frames`.
    static call::CallStatistics callWithLinksUp(std::chrono::milliseconds duration, int linksUp,
                                                std::uint64_t frames) {
        call::CallStatistics s;
        s.duration = duration;
        call::LinkStatistics link;
        link.state = call::SlotState::Up;
        for (int i = 0; i < linksUp; ++i)
            s.links.append(link);
        s.framesReceived = frames;
        return s;
    }

    void diagnosisNamesTheSide() {
        call::CallStatistics s = callWithLinksUp(std::chrono::seconds(10), 12, 500);
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 400}).contains("no trouble"));
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 500}).startsWith("Other side"));
        s.networkDelayP99Ms = 500;
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 400}).startsWith("Network"));
        s.networkDelayP99Ms = 100;
        for (auto& l : s.links)
            l.state = call::SlotState::Down;
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 400}).startsWith("Network"));
    }

    // Fault: our own speaker starved (the engine fell behind on a busy computer): clicks and
    // dropouts, and the window said "no trouble", since every network figure was fine.
    void aStarvedSpeakerIsThisComputersTrouble() {
        using namespace std::chrono_literals;
        call::CallStatistics s = callWithLinksUp(10s, 3, 500);
        s.speakerStarved = 140ms;
        const QString now =
            CallJudgement::diagnose(s, {.framesReceived = 400, .speakerStarved = 100ms});
        QVERIFY2(now.startsWith("This computer") && now.contains("40 ms"), qPrintable(now));
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 400, .speakerStarved = 140ms})
                    .contains("no trouble")); // starved earlier in the call, not now
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 400, .speakerStarved = 130ms})
                    .contains("no trouble")); // under a frame
        s.recentLossPct = 10;                 // the network's trouble is named first
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 400, .speakerStarved = 100ms})
                    .startsWith("Network"));
    }

    // Fault: an hour into a call, a minute with a third of the frames late. Judged on the call's
    // totals (900 of 93 000 frames, under 1 %) it said "no trouble"; and a bad first minute kept
    // saying "late or lost" long after the call had recovered.
    void diagnosisFollowsTheLastSeconds() {
        call::CallStatistics s = callWithLinksUp(std::chrono::minutes(62), 3, 93000);
        s.late = 900;
        s.recentLossPct = 30;
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 92950})
                    .startsWith("Network: frames arrive late"));
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 92950}).contains("30.0 %"));
        s.late = 20000; // the first minutes were bad
        s.recentLossPct = 0;
        QVERIFY(CallJudgement::diagnose(s, {.framesReceived = 92950}).contains("no trouble"));
    }

    void settingsPersistAndKnowWhatRestartsTor() {
        QTemporaryDir dir;
        QSettings store(dir.filePath("settings.ini"), QSettings::IniFormat);
        AppSettings s;
        s.preset = tor::SecurityPreset::MoreGuards;
        s.access = call::ServiceAccess::ContactsOnly;
        s.unknownCallers = call::UnknownCallers::Refuse;
        s.bridgeLines = {"obfs4 192.0.2.1:443 AAAA cert=x iat-mode=0"};
        s.useBridges = true;
        s.links = 8;
        s.policy = "double-send";
        QString error;
        QVERIFY2(s.save(store, &error), qPrintable(error));
        QSettings again(dir.filePath("settings.ini"), QSettings::IniFormat);
        QCOMPARE(AppSettings::load(again), s);

        AppSettings devices = s;
        devices.outputDevice = "USB headset";
        devices.unknownCallers = call::UnknownCallers::Ring;
        QVERIFY(!devices.needsRestartFrom(s));
        AppSettings preset = s;
        preset.preset = tor::SecurityPreset::Standard;
        QVERIFY(preset.needsRestartFrom(s));
        AppSettings bridges = s;
        bridges.useBridges = false;
        QVERIFY(bridges.needsRestartFrom(s));
    }

    // Fault: answering "No" to "Restart now?" during a call left the change unapplied for good:
    // the next change was compared with the saved choice, not with what tor ran with, so a
    // switch to contacts-only never reached tor.
    void aRestartPutOffStaysDue() {
        AppSettings open;
        SettingsInEffect settings(open);
        QVERIFY(!settings.restartDue());
        AppSettings contactsOnly = open;
        contactsOnly.access = call::ServiceAccess::ContactsOnly;
        settings.choose(contactsOnly); // "No": the engine is not started
        QVERIFY(settings.restartDue());
        AppSettings alsoNewSpeaker = contactsOnly;
        alsoNewSpeaker.outputDevice = "USB headset";
        settings.choose(alsoNewSpeaker); // a change that alone needs no restart
        QVERIFY(settings.restartDue());
        settings.started(); // the call ended: tor restarted with the choice
        QVERIFY(!settings.restartDue());
        QCOMPARE(settings.running().access, call::ServiceAccess::ContactsOnly);
        settings.choose(open); // changing back before a restart is no restart at all
        settings.choose(contactsOnly);
        QVERIFY(!settings.restartDue());
    }

    // Fault: the dialog offered 58000-64000 bit/s, which the engine refuses at 40 ms packets; the
    // setting was saved and every start of the engine failed after that.
    void settingsOfferOnlyBitratesTheEngineAccepts() {
        AppSettings tooHigh;
        tooHigh.bitrate = 64000;
        SettingsDialog dialog(tooHigh, SettingsEnvironment{});
        QSpinBox* bitrate = nullptr;
        for (QSpinBox* spin : dialog.findChildren<QSpinBox*>())
            if (spin->suffix().contains("bit/s"))
                bitrate = spin;
        QVERIFY(bitrate);
        QVERIFY(engineAcceptsBitrate(bitrate->minimum()));
        QVERIFY(engineAcceptsBitrate(bitrate->maximum()));
        QVERIFY(bitrate->maximum() >= 54000); // the range is not cut short either
        QVERIFY(engineAcceptsBitrate(dialog.settings().bitrate));

        QTemporaryDir dir;
        QSettings store(dir.filePath("settings.ini"), QSettings::IniFormat);
        store.setValue("call/bitrate", 64000);
        QVERIFY(engineAcceptsBitrate(AppSettings::load(store).bitrate));
        store.setValue("call/bitrate", 1000);
        QVERIFY(engineAcceptsBitrate(AppSettings::load(store).bitrate));
        store.setValue("call/bitrate", 48000);
        QCOMPARE(AppSettings::load(store).bitrate, 48000);
    }

    // Fault: any stored choice of who may call but "refuse" meant ring: a typo or a damaged file
    // ("refus", "Refuse") opened the door to strangers without a word. Such a value refuses now,
    // and the app is told why; a missing one (a first start) and "ring" still ring.
    void aGarbledChoiceOfWhoMayCallDoesNotOpenTheDoor_data() {
        QTest::addColumn<QVariant>("stored");
        QTest::addColumn<bool>("refuses");
        QTest::addColumn<bool>("garbled");
        QTest::newRow("absent") << QVariant() << false << false;
        QTest::newRow("ring") << QVariant("ring") << false << false;
        QTest::newRow("refuse") << QVariant("refuse") << true << false;
        QTest::newRow("cut short") << QVariant("refus") << true << true;
        QTest::newRow("capitalised") << QVariant("Refuse") << true << true;
        QTest::newRow("empty") << QVariant("") << true << true;
        QTest::newRow("number") << QVariant(1) << true << true;
    }
    void aGarbledChoiceOfWhoMayCallDoesNotOpenTheDoor() {
        QFETCH(QVariant, stored);
        QFETCH(bool, refuses);
        QFETCH(bool, garbled);
        QTemporaryDir dir;
        QSettings store(dir.filePath("settings.ini"), QSettings::IniFormat);
        if (stored.isValid())
            store.setValue("security/unknownCallers", stored);
        QCOMPARE(AppSettings::load(store).unknownCallers,
                 refuses ? call::UnknownCallers::Refuse : call::UnknownCallers::Ring);
        QStringList problems;
        AppSettings::load(store, &problems);
        QCOMPARE(problems.size(), garbled ? 1 : 0);
        if (garbled)
            QVERIFY2(problems.first().contains("\"" + stored.toString() + "\"") &&
                         problems.first().contains("refused"),
                     qPrintable(problems.first()));
    }

    // Fault: Sound test in Settings tested the saved devices, not the ones chosen in the dialog.
    void soundTestUsesTheDevicesChosenInTheDialog() {
        SettingsEnvironment environment;
        environment.inputDevices = {"Mic A", "Mic B"};
        environment.outputDevices = {"Speaker A", "Speaker B"};
        AppSettings saved;
        saved.inputDevice = "Mic A";
        saved.outputDevice = "Speaker A";
        SettingsDialog dialog(saved, environment);
        auto* input = dialog.findChild<QComboBox*>("inputDeviceCombo");
        auto* output = dialog.findChild<QComboBox*>("outputDeviceCombo");
        QVERIFY(input && output);
        input->setCurrentIndex(input->findData("Mic B"));
        output->setCurrentIndex(0); // the system default
        QSignalSpy requests(&dialog, &SettingsDialog::soundTestRequested);
        dialog.findChild<QPushButton*>("soundTestButton")->click();
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests.at(0).size(), 2);
        QCOMPARE(requests.at(0).at(0).toString(), QStringLiteral("Mic B"));
        QCOMPARE(requests.at(0).at(1).toString(), QString());
    }

    void bridgeLinesNeedTheirTransport() {
        SettingsEnvironment none;
        QVERIFY(SettingsDialog::checkBridges({"obfs4 192.0.2.1:443 AAAA cert=x iat-mode=0"}, none)
                    .contains("obfs4proxy"));
        QVERIFY(SettingsDialog::checkBridges({"snowflake 192.0.2.3:80 BBBB"}, none)
                    .contains("snowflake-client"));
        QVERIFY(SettingsDialog::checkBridges({"192.0.2.1:443 CCCC"}, none).isEmpty());
        QVERIFY(!SettingsDialog::checkBridges({"UseBridges 0"}, none).isEmpty());
        QVERIFY(!SettingsDialog::checkBridges({}, none).isEmpty());
        SettingsEnvironment obfs4;
        obfs4.obfs4Executable = "/usr/bin/obfs4proxy";
        QVERIFY(SettingsDialog::checkBridges({"obfs4 192.0.2.1:443 AAAA cert=x iat-mode=0"}, obfs4)
                    .isEmpty());
        const QString meek{
            "meek_lite 192.0.2.18:80 BE77 url=https://meek.example/ front=cdn.example"};
        const QString webtunnel{
            "webtunnel [2001:db8::1]:443 AAAA url=https://w.example/p ver=0.0.1"};
        QVERIFY(SettingsDialog::checkBridges({meek}, none).contains("obfs4proxy"));
        QVERIFY(SettingsDialog::checkBridges({meek}, obfs4).isEmpty());
        QVERIFY(SettingsDialog::checkBridges({webtunnel}, obfs4).contains("lyrebird"));
        SettingsEnvironment lyrebird;
        lyrebird.obfs4Executable = "/opt/tor/lyrebird";
        QVERIFY(SettingsDialog::checkBridges({meek, webtunnel}, lyrebird).isEmpty());
        QVERIFY(SettingsDialog::checkBridges({"scramblesuit 192.0.2.1:443 AAAA"}, lyrebird)
                    .contains("not a bridge line"));
    }

    // The Status column's note: what is under way, then what became of it, with the time of day
    // (and the date once it is another day) and a finished call's length.
    void contactActivitySaysWhatHappened() {
        using call::CallState;
        using call::EndReason;
        const QDateTime nine(QDate(2026, 11, 27), QTime(21, 0));
        // The C locale's short formats carry seconds, which the notes leave out (next to a
        // call's length they read as another length).
        const QLocale before;
        QLocale::setDefault(QLocale::c());
        const auto restore = qScopeGuard([before] { QLocale::setDefault(before); });
        const QString at9 = QStringLiteral("21:00");
        ContactActivity a;
        const QString carol = QStringLiteral("carol"), dave = QStringLiteral("dave");
        QCOMPARE(a.noteFor(carol, nine), ContactNote{});

        a.onCallState(CallState::Ringing, carol, EndReason::None, false, nine);
        QCOMPARE(a.noteFor(carol, nine).text, QStringLiteral("calling you…"));
        a.onCallState(CallState::Ended, carol, EndReason::Cancelled, false, nine.addSecs(20));
        const ContactNote missed = a.noteFor(carol, nine.addSecs(60));
        QCOMPARE(missed.text, QStringLiteral("missed call 21:00"));
        QVERIFY(missed.needsAttention);
        // An Ended that comes again (the engine's end and a tor restart) changes nothing.
        a.onCallState(CallState::Ended, carol, EndReason::HungUpLocally, false, nine.addSecs(90));
        QCOMPARE(a.noteFor(carol, nine.addSecs(60)), missed);
        // The next day the time has its date.
        QCOMPARE(a.noteFor(carol, nine.addDays(1)).text,
                 QStringLiteral("missed call 27 Nov 2026 21:00"));

        // Calling back: the missed call gives way, and the call's length counts from Active.
        a.onCallState(CallState::Dialing, carol, EndReason::None, true, nine.addSecs(100));
        QCOMPARE(a.noteFor(carol, nine), ContactNote{QStringLiteral("calling…")});
        a.onCallState(CallState::Active, carol, EndReason::None, true, nine.addSecs(110));
        QCOMPARE(a.noteFor(carol, nine).text, QStringLiteral("in call"));
        a.onCallState(CallState::Ended, carol, EndReason::HungUpByPeer, true,
                      nine.addSecs(110 + 3600 + 12 * 60 + 4));
        QCOMPARE(a.noteFor(carol, nine).text, QStringLiteral("last call 21:01, 1:12:04"));

        // Our call that did not get through says why; one they made that we declined says so.
        a.onCallState(CallState::Dialing, dave, EndReason::None, true, nine);
        a.onCallState(CallState::Ringing, dave, EndReason::None, true, nine);
        QCOMPARE(a.noteFor(dave, nine).text, QStringLiteral("ringing…"));
        a.onCallState(CallState::Ended, dave, EndReason::NoAnswer, true, nine);
        QCOMPARE(a.noteFor(dave, nine), ContactNote{QStringLiteral("no answer %1").arg(at9)});
        a.onCallState(CallState::Ringing, dave, EndReason::None, false, nine);
        a.onCallState(CallState::Ended, dave, EndReason::RejectedLocally, false, nine);
        QCOMPARE(a.noteFor(dave, nine), ContactNote{QStringLiteral("you declined %1").arg(at9)});
        // Answered, and the microphone would not start: not a missed call.
        a.onCallState(CallState::Ringing, dave, EndReason::None, false, nine);
        a.onCallState(CallState::Ended, dave, EndReason::AudioFailed, false, nine);
        QCOMPARE(a.noteFor(dave, nine), ContactNote{QStringLiteral("audio failed %1").arg(at9)});

        // A contact who called while we were in a call with another heard "busy": missed. A
        // refusal of the peer of the call under way (a stray twin) leaves that call alone.
        const QString erin = QStringLiteral("erin");
        a.onRefused(erin, EndReason::Busy, nine);
        QCOMPARE(a.noteFor(erin, nine),
                 (ContactNote{QStringLiteral("missed call %1").arg(at9), true}));
        a.onRefused(QStringLiteral("frank"), EndReason::NotAccepted, nine);
        QCOMPARE(a.noteFor(QStringLiteral("frank"), nine), ContactNote{});
        a.onCallState(CallState::Active, erin, EndReason::None, true, nine);
        a.onRefused(erin, EndReason::Busy, nine);
        QCOMPARE(a.noteFor(erin, nine).text, QStringLiteral("in call"));
        a.onCallState(CallState::Ended, erin, EndReason::HungUpLocally, true, nine);

        // Tor restarted: a call under way is over (a short one: 0:07), a caller's ring missed.
        a.onCallState(CallState::Active, carol, EndReason::None, true, nine);
        a.onCallState(CallState::Ringing, dave, EndReason::None, false, nine);
        a.endAll(nine.addSecs(7));
        QCOMPARE(a.noteFor(carol, nine).text, QStringLiteral("last call %1, 0:07").arg(at9));
        QVERIFY(a.noteFor(dave, nine).needsAttention);
        QCOMPARE(a.notes(nine).size(), 3);

        // Locales whose short time has no seconds keep their own form (Finnish: 21.00).
        QLocale::setDefault(QLocale(QLocale::Finnish, QLocale::Finland));
        QCOMPARE(a.noteFor(carol, nine).text, QStringLiteral("last call 21.00, 0:07"));
    }

    void compiledTranslationIsLoadedForTheLocale() {
        QVERIFY(installTranslations(QLocale(QLocale::English, QLocale::UnitedKingdom)).empty());
        const auto ui = [](const char* context, const char* text, int n = -1) {
            return QCoreApplication::translate(context, text, nullptr, n);
        };
        {
            const auto german = installTranslations(QLocale(QLocale::German, QLocale::Austria));
            QVERIFY(!german.empty());
            QCOMPARE(ui("onionvoice::ui::CallWindow", "In call"), QStringLiteral("Im Gespräch"));
            QCOMPARE(ui("onionvoice::ui::IncomingCallDialog", "Unknown caller"),
                     QStringLiteral("Unbekannter Anrufer"));
            QCOMPARE(ui("ContactActivity", "missed call %1"), QStringLiteral("Anruf verpasst %1"));
            QVERIFY(ui("CallJudgement",
                       "Other side: nothing has arrived for two seconds although %n link(s) are "
                       "open; their app or their connection may have stopped.",
                       3)
                        .contains(QStringLiteral("obwohl 3 Verbindungen offen sind")));
            // The engine's words for how a call ended, shown in the call window and status bar.
            QCOMPARE(onionvoice::call::describe(onionvoice::call::EndReason::Busy),
                     QStringLiteral("besetzt"));
            // Why the add field refuses what was pasted: the address check, the link and the
            // name checks of the core libraries (they were English in the German app).
            QCOMPARE(ContactInputCheck::check(QStringLiteral("hello"), otherAddress(), {}).reason,
                     QStringLiteral("Eine Onion-Adresse hat 56 Zeichen, diese hat 5."));
            QCOMPARE(
                ContactInputCheck::check(QStringLiteral("onionvoice:%1?auth=short").arg(kAddress),
                                         otherAddress(), {})
                    .reason,
                QStringLiteral("Der Zugangsschlüssel im Link ist beschädigt."));
            QCOMPARE(ContactInputCheck::check(
                         QStringLiteral("onionvoice:%1?name=%2").arg(kAddress, QString(70, 'a')),
                         otherAddress(), {})
                         .reason,
                     QStringLiteral("Der Name ist länger als 64 Zeichen."));
            // What the core libraries say of the security presets (the settings' trade-off), the
            // contact book, the identity file and tor's options (they were English in the German
            // app).
            QCOMPARE(tor::describePreset(tor::SecurityPreset::OneWayHotline).name,
                     QStringLiteral("Einweg-Hotline"));
            QVERIFY(tor::describePreset(tor::SecurityPreset::Standard)
                        .tradeoff.startsWith(QStringLiteral("Sie und Ihr Gesprächspartner")));
            QTemporaryDir dir;
            QString error;
            QVERIFY(
                !contacts::ContactBook(dir.filePath(QStringLiteral("contacts.json"))).save(&error));
            QCOMPARE(error, QStringLiteral("Die Kontaktliste wurde nicht gelesen und wird daher "
                                           "nicht überschrieben."));
            QVERIFY(!tor::OnionIdentity::load(dir.filePath(QStringLiteral("none")), &error));
            QVERIFY(error.startsWith(QStringLiteral("Die Identitätsdatei")));
            tor::TorLaunchConfig torConfig;
            torConfig.dataDirectory = dir.path();
            QCOMPARE(tor::TorLauncher::checkTorrcValues(torConfig, {QStringLiteral("Bridge a#b")}),
                     QStringLiteral("Die tor-Option Bridge enthält „#“."));
            // Why the audio could not start, in the call window and the sound check: the meaning
            // of the sound system's error codes (they were English; its sentences: tst_guiapp,
            // which may start PortAudio, whose host libraries leak under LeakSanitizer).
            constexpr int kDeviceUnavailable = -9985; // PortAudio's paDeviceUnavailable
            QCOMPARE(
                media::describePortAudioError(kDeviceUnavailable),
                QStringLiteral(
                    "das Gerät ist nicht verfügbar; vielleicht nutzt es ein anderes Programm"));
        }
        // Gone with its translators: English again.
        QCOMPARE(ui("onionvoice::ui::CallWindow", "In call"), QStringLiteral("In call"));
        QCOMPARE(onionvoice::call::describe(onionvoice::call::EndReason::Busy),
                 QStringLiteral("busy"));
        QCOMPARE(tor::checkOnionAddress(QStringLiteral("hello")).reason,
                 QStringLiteral("An onion address has 56 characters; this one has 5."));
    }
};

ONIONVOICE_OFFSCREEN_TEST_MAIN(UiUnitsTest)
#include "tst_uiunits.moc"
