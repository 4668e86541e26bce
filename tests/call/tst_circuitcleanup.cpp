// Unit test of which circuits an ended call closes (call::joinedRendezvousCircuits), on
// circuit-status lines as tor's control port gives them: only the joined rendezvous circuits of
// the call's own link attempts; and of which attempt tor introduced and left waiting for a
// rendezvous (call::introducedWithoutRendezvous).
#include "call/OutgoingDial.h"

#include <QTest>

using namespace onionvoice;

class CircuitCleanupTest : public QObject {
    Q_OBJECT
private slots:
    // Fault: every circuit of the call's SOCKS usernames was closed, also introduction circuits
    // of links still being set up when the call ended. tor counted each as a failure of that
    // introduction point, and after a few such calls it refused every connection to the peer
    // ("onion service introduction failed") for minutes: on a loaded machine, tst_calls
    // `rejected` failed after `audioThatCannotStartEndsTheCallAsSuch`.
    void onlyJoinedRendezvousCircuitsOfTheCallClose() {
        const QByteArray path = "$AA~relay0,$BB~relay1,$CC~relay2";
        const auto line = [&](const char* id, const char* purpose, const char* state,
                              const char* user) {
            return QByteArray(id) + " BUILT " + path +
                   " BUILD_FLAGS=IS_INTERNAL,NEED_CAPACITY PURPOSE=" + purpose +
                   " HS_STATE=" + state +
                   " REND_QUERY=bobaddress TIME_CREATED=2026-11-27T07:00:00.000000" +
                   " SOCKS_USERNAME=\"" + user + "\" SOCKS_PASSWORD=\"\"";
        };
        const QByteArray status =
            line("5", "HS_CLIENT_REND", "HSCR_JOINED", "link-a") + "\n" +
            line("6", "HS_CLIENT_INTRO", "HSCI_INTRO_SENT", "link-b") + "\n" +
            line("7", "HS_CLIENT_REND", "HSCR_ESTABLISHED_WAITING", "link-b") + "\n" +
            line("8", "HS_CLIENT_REND", "HSCR_JOINED", "another-call") + "\n" +
            line("9", "HS_CLIENT_REND", "HSCR_JOINED", "link-c") + "\n" + "10 BUILT " + path +
            " PURPOSE=GENERAL TIME_CREATED=2026-11-27T07:00:00.000000\n";
        const QList<QByteArray> ids =
            call::joinedRendezvousCircuits(status, {"link-a", "link-b", "link-c"});
        QCOMPARE(ids, (QList<QByteArray>{"5", "9"}));
        QVERIFY(call::joinedRendezvousCircuits(status, {}).isEmpty());
        QVERIFY(call::joinedRendezvousCircuits({}, {"link-a"}).isEmpty());

        // Which attempt tor introduced and left waiting for the peer's rendezvous: only link-b,
        // whose rendezvous circuit is HSCR_ESTABLISHED_WAITING (the dial purges tor's state for
        // it).
        QVERIFY(call::introducedWithoutRendezvous(status, "link-b"));
        for (const QByteArray key : {"link-a", "link-c", "another-call", "", "nobody"})
            QVERIFY2(!call::introducedWithoutRendezvous(status, key), key.constData());
        QVERIFY(!call::introducedWithoutRendezvous({}, "link-b"));
    }
};

QTEST_GUILESS_MAIN(CircuitCleanupTest)
#include "tst_circuitcleanup.moc"
