// The main window.
#include "MainWindow.h"

#include "AddressText.h"
#include "AppIcon.h"
#include "CallWindow.h"
#include "ContactListPanel.h"
#include "DesktopNotifier.h"
#include "EngineHost.h"
#include "IdCard.h"
#include "IncomingCallDialog.h"
#include "TorStatusPanel.h"
#include "WindowModal.h"

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

namespace onionvoice::ui {

MainWindow::MainWindow(EngineHost* host, QWidget* parent)
    : QMainWindow(parent)
    , host_(host)
    , idCard_(new IdCard)
    , torStatus_(new TorStatusPanel)
    , contacts_(new ContactListPanel) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("OnionVoice"));
    activity_.setContactCheck([this](const QString& address) { return host_->isContact(address); });
    // Set here, not only for the application: the tray icon below is made from it.
    setWindowIcon(appIcon());
    // No fixed minimum: the layouts' own minimum (about 720×240, German included) is what the
    // content needs, and 900×600 kept the window off 800-pixel-wide screens.
    resize(1080, 680);

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(idCard_);
    leftLayout->addWidget(torStatus_);
    leftLayout->addStretch(1);
    auto* leftScroll = new QScrollArea;
    leftScroll->setObjectName(QStringLiteral("leftPane"));
    leftScroll->setWidget(left);
    leftScroll->setWidgetResizable(true);
    leftScroll->setFrameShape(QFrame::NoFrame);
    leftScroll->setMinimumWidth(360);
    // Up and down only: what does not fit the pane's width wraps (the texts) or has a row of its
    // own (tor's buttons); a sideways scroll bar hid the ends of the lines.
    leftScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Not a tab stop of its own: it was the window's first, unnamed one; the fields in it are
    // scrolled into view as the focus reaches them.
    leftScroll->setFocusPolicy(Qt::NoFocus);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(leftScroll);
    split->addWidget(contacts_);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    setCentralWidget(split);
    buildMenus();
    // The focus starts where the work is, at the contacts; Tab goes down them, then down the
    // ID card and Tor, and round. Set here, once every panel is in the window: the order the
    // widgets were made in put the add row before the search and the list above it.
    const QList<QWidget*> order =
        contacts_->tabStops() + idCard_->tabStops() + torStatus_->tabStops();
    for (qsizetype i = 1; i < order.size(); ++i)
        setTabOrder(order.at(i - 1), order.at(i));
    order.constFirst()->setFocus();

    notifier_ = new DesktopNotifier(this);

    connect(host_, &EngineHost::phaseChanged, this, &MainWindow::onPhase);
    connect(host_, &EngineHost::torStateChanged, torStatus_, &TorStatusPanel::setTorState);
    connect(host_, &EngineHost::torStateChanged, this, [this](auto state) {
        torState_ = state;
        updateCalling();
    });
    connect(host_, &EngineHost::torFailed, torStatus_, &TorStatusPanel::setFailure);
    connect(host_, &EngineHost::torRestarting, torStatus_, &TorStatusPanel::setRestarting);
    connect(host_, &EngineHost::torLogLine, torStatus_, &TorStatusPanel::appendLog);
    connect(host_, &EngineHost::serviceStateChanged, torStatus_, &TorStatusPanel::setServiceState);
    connect(host_, &EngineHost::contactsChanged, this, [this] {
        contacts_->setContacts(host_->contacts());
        showNotes(); // a time of an earlier day gets its date when the notes are shown again
    });
    connect(host_, &EngineHost::callStateChanged, this, &MainWindow::onCallState);
    connect(host_, &EngineHost::incomingCall, this, &MainWindow::onIncomingCall);
    connect(host_, &EngineHost::callRefused, this, [this](const QString& peer, auto reason) {
        activity_.onRefused(peer, reason, QDateTime::currentDateTime());
        showNotes();
        statusBar()->showMessage(
            tr("Refused a call from %1: %2").arg(shortAddress(peer), call::describe(reason)),
            10000);
    });
    connect(host_, &EngineHost::statisticsChanged, this, [this](const auto& statistics) {
        if (callWindow_)
            callWindow_->updateStatistics(statistics);
    });
    connect(host_, &EngineHost::errorOccurred, this, [this](const QString& message) {
        lastError_ = message;
        statusBar()->showMessage(message, 15000);
        // The status bar draws one line for 15 s: a longer message (a damaged contact book and
        // what to do about it) lost its end there, unread (a review found it).
        if (statusBar()->fontMetrics().horizontalAdvance(message) > statusBar()->width())
            informWindowModal(this, tr("OnionVoice"), message);
    });
    connect(host_, &EngineHost::accessLinkReady, this, [this](const QString&, const QString& l) {
        QApplication::clipboard()->setText(l);
        statusBar()->showMessage(
            tr("Copied a link with an access key. Send it only to that contact."), 15000);
    });

    connect(idCard_, &IdCard::copied, this, [this](const QString& what) {
        statusBar()->showMessage(tr("%1 copied to the clipboard.").arg(what), 5000);
    });
    connect(idCard_, &IdCard::shareWithAccessKeyRequested, this, &MainWindow::shareWithAccessKey);
    connect(torStatus_, &TorStatusPanel::retryRequested, this, &MainWindow::retryRequested);
    connect(torStatus_, &TorStatusPanel::bridgesRequested, this, &MainWindow::bridgesRequested);
    connect(contacts_, &ContactListPanel::addRequested, host_, &EngineHost::addContact);
    connect(contacts_, &ContactListPanel::accessKeyReceived, this,
            [this](const QString& address, const QByteArray& key) {
                host_->setContactAccessKey(address, key);
                statusBar()->showMessage(tr("The new access key is kept."), 5000);
            });
    connect(contacts_, &ContactListPanel::callRequested, host_, &EngineHost::dial);
    connect(contacts_, &ContactListPanel::renameRequested, host_, &EngineHost::renameContact);
    connect(contacts_, &ContactListPanel::blockRequested, host_, &EngineHost::setBlocked);
    connect(contacts_, &ContactListPanel::removeRequested, host_, &EngineHost::removeContact);
    onPhase();
}

MainWindow::~MainWindow() {
    ring(false);
}

CallWindow* MainWindow::callWindow() const {
    return callWindow_.get();
}

IncomingCallDialog* MainWindow::incomingCallDialog() const {
    return incoming_.get();
}

void MainWindow::buildMenus() {
    QMenu* app = menuBar()->addMenu(tr("&OnionVoice"));
    QAction* settings = app->addAction(tr("&Settings…"), this, &MainWindow::settingsRequested);
    settings->setObjectName(QStringLiteral("settingsAction"));
    settings->setShortcut(QKeySequence::Preferences);
    QAction* soundTest = app->addAction(tr("Sound &test…"), this, &MainWindow::soundTestRequested);
    soundTest->setObjectName(QStringLiteral("soundTestAction"));
    app->addSeparator();
    QAction* quit = app->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About OnionVoice"), this, [this] {
        // Not QMessageBox::about: that one is application-modal (ui/WindowModal.h).
        auto* about = new QMessageBox(
            QMessageBox::NoIcon, tr("About OnionVoice"),
            tr("<b>OnionVoice</b><br>Anonymous voice calls over Tor onion services. Each call "
               "runs over several Tor circuits at once."),
            QMessageBox::Ok, this);
        about->setObjectName(QStringLiteral("aboutBox"));
        about->setIconPixmap(appIcon().pixmap(64, 64));
        about->setAttribute(Qt::WA_DeleteOnClose);
        about->open();
    });
}

void MainWindow::openAddContact(const QString& uri) {
    contacts_->prefill(uri);
    showNormal();
    raise();
    activateWindow();
}

void MainWindow::onPhase() {
    idCard_->setAddress(host_->address());
    contacts_->setOwnAddress(host_->address());
    contacts_->setContacts(host_->contacts());
    // The old tor is gone or going, and the host drops what it says from now on: the panel and
    // the Call button wait for the new tor's own news (one that never comes when the new engine
    // fails before its tor starts).
    if (host_->phase() == EngineHost::Phase::Stopped ||
        host_->phase() == EngineHost::Phase::Starting) {
        torStatus_->setTorState(tor::TorLauncher::State::NotStarted, 0, {});
        torState_ = tor::TorLauncher::State::NotStarted;
        updateCalling();
    }
    if (host_->phase() == EngineHost::Phase::Starting)
        endCallUi();
}

// Not left to the old engine's Ended alone: it arrives only once the engine thread has stopped
// the engine, and nothing else tells the service line that the old service is gone.
void MainWindow::endCallUi() {
    ring(false);
    dialled_.clear();
    activity_.endAll(QDateTime::currentDateTime());
    showNotes();
    if (incoming_)
        incoming_->dismiss();
    if (callWindow_ && callWindow_->callState() != call::CallState::Ended)
        callWindow_->setCallState(call::CallState::Ended, call::EndReason::HungUpLocally);
    torStatus_->setServiceState(tor::OnionService::State::Unpublished);
}

void MainWindow::showNotes() {
    contacts_->setNotes(activity_.notes(QDateTime::currentDateTime()));
}

// The call window and the incoming-call prompt are top-level windows without a parent: Qt blocks
// a window-modal dialog's parent and every window whose parent chain reaches it, so as children
// of this window they would be as dead as it is while Settings or a question is open on it.
void MainWindow::showCallWindow(const QString& peer) {
    if (!callWindow_) {
        callWindow_ = std::make_unique<CallWindow>();
        callWindow_->setWindowIcon(appIcon());
        connect(callWindow_.get(), &CallWindow::hangUpRequested, host_, &EngineHost::hangUp);
        connect(callWindow_.get(), &CallWindow::muteToggled, host_, &EngineHost::setMuted);
    }
    const auto contact = host_->contact(peer);
    callWindow_->setPeer(contact ? contact->displayName : QString(), peer);
    callWindow_->setPreset(preset_);
    callWindow_->setDevices(devices_);
    callWindow_->show();
    callWindow_->raise();
    callWindow_->activateWindow(); // the keyboard goes with the call (Mute, Hang up)
}

// Call is greyed out, and says why, while tor cannot call or a call (or a ring) is under way:
// pressed then, it only put "A call is already under way." in the status bar.
void MainWindow::updateCalling() {
    using Calling = ContactListPanel::Calling;
    if (host_->callState() != call::CallState::Idle)
        contacts_->setCalling(Calling::CallUnderWay);
    else if (torState_ == tor::TorLauncher::State::Ready)
        contacts_->setCalling(Calling::Possible);
    else if (torState_ == tor::TorLauncher::State::Failed)
        contacts_->setCalling(Calling::TorFailed);
    else
        contacts_->setCalling(Calling::TorConnecting);
}

void MainWindow::onCallState(call::CallState state, const QString& peer, call::EndReason reason) {
    updateCalling();
    if (state == call::CallState::Dialing)
        dialled_ = peer;
    // An incoming call's Ringing comes before incomingCall, so before its prompt shows: whether
    // the prompt is up cannot tell whose call rings, the peer we dialled can.
    const bool ours = state != call::CallState::Ringing || peer == dialled_;
    activity_.onCallState(state, peer, reason, peer == dialled_, QDateTime::currentDateTime());
    showNotes();
    if (ours)
        ring(false);
    const bool prompted = incoming_ && incoming_->isVisible() && incoming_->caller() == peer;
    QString missed;
    if (state == call::CallState::Ended && prompted) {
        incoming_->dismiss();
        // The book's name only: a stranger's Hello may claim any name.
        const auto contact = host_->contact(peer);
        const QString who =
            contact && !contact->displayName.isEmpty() ? contact->displayName : shortAddress(peer);
        missed = tr("Missed call from %1 (%2)").arg(who, call::describe(reason));
        notifier_->notify(tr("Missed call"), tr("%1: %2").arg(who, call::describe(reason)));
    }
    if (state != call::CallState::Ended && ours)
        showCallWindow(peer);
    // The engine sends the audio error just before this end (both queued in order from its
    // thread); the end alone would hide the only hint of what to fix.
    const QString detail = state == call::CallState::Ended && reason == call::EndReason::AudioFailed
                               ? lastError_
                               : QString();
    // An end is the window's only when it ends the call the window shows: a stranger's ring that
    // ended unanswered was written over the last call's end, its reason and an audio error's hint.
    if (callWindow_ && ours &&
        (state != call::CallState::Ended || callWindow_->peerAddress() == peer))
        callWindow_->setCallState(state, reason, detail);
    if (state == call::CallState::Ended) {
        dialled_.clear();
        // A missed call's line stays until the next message: the prompt that named the caller
        // is gone, and the notification may have gone unseen.
        if (!missed.isEmpty())
            statusBar()->showMessage(missed);
        else
            statusBar()->showMessage(detail.isEmpty()
                                         ? tr("Call ended: %1").arg(call::describe(reason))
                                         : tr("Call ended. %1").arg(detail),
                                     detail.isEmpty() ? 10000 : 30000);
    }
}

void MainWindow::onIncomingCall(const QString& peer, const QString& displayName,
                                const QString& audioProblem) {
    const auto contact = host_->contact(peer);
    if (!incoming_) {
        incoming_ = std::make_unique<IncomingCallDialog>(); // no parent: see showCallWindow
        incoming_->setWindowIcon(appIcon());
        connect(incoming_.get(), &IncomingCallDialog::acceptRequested, this, [this] {
            ring(false);
            // The window takes the call while it still rings (a new call for it: Mute off),
            // before the answer, so that the engine starts the call's audio unmuted.
            showCallWindow(incoming_->caller());
            callWindow_->setCallState(call::CallState::Ringing, call::EndReason::None);
            emit answering();
            host_->answer(incoming_->caller());
        });
        connect(incoming_.get(), &IncomingCallDialog::rejectRequested, this,
                [this] { host_->reject(incoming_->caller()); });
        connect(incoming_.get(), &IncomingCallDialog::blockRequested, this,
                &MainWindow::blockCaller);
    }
    // Asked before the prompt shows: the prompt itself takes the focus.
    const bool focused = isActiveWindow();
    incoming_->setCaller(displayName, peer, contact.has_value());
    incoming_->setAudioProblem(audioProblem);
    if (!incoming_->isVisible() && isVisible()) // over this window, as a child would show
        incoming_->move(frameGeometry().center() - incoming_->rect().center());
    incoming_->show();
    incoming_->raise();
    ring(true);
    if (!focused) {
        // Without a name the words alone do not say which caller it is: the short ID does.
        const QString caller = IncomingCallDialog::callerName(displayName, contact.has_value());
        notifier_->notify(
            tr("Incoming call"),
            contact && !displayName.isEmpty()
                ? caller
                : tr("%1 %2", "caller's name, then the short ID").arg(caller, shortAddress(peer)));
    }
}

void MainWindow::blockCaller(const QString& address) {
    ring(false);
    host_->reject(address);
    if (host_->contact(address)) {
        host_->setBlocked(address, true);
    } else {
        contacts::Contact blocked;
        blocked.address = address;
        blocked.added = QDateTime::currentDateTimeUtc();
        blocked.blocked = true;
        host_->addContact(blocked);
    }
}

void MainWindow::shareWithAccessKey() {
    QStringList names;
    QStringList addresses;
    for (const contacts::Contact& c : host_->contacts()) {
        if (c.blocked)
            continue;
        names.append(c.displayName.isEmpty()
                         ? shortAddress(c.address)
                         : tr("%1 (%2)").arg(c.displayName, shortAddress(c.address)));
        addresses.append(c.address);
    }
    if (names.isEmpty()) {
        informWindowModal(this, tr("Share with an access key"),
                          tr("Add the person as a contact first: an access key is made "
                             "for one contact."));
        return;
    }
    const std::optional<int> chosen = getItemWindowModal(
        this, tr("Share with an access key"),
        tr("Make an access key for (in contacts-only mode, only people holding a key can reach "
           "you; the key works at once):"),
        names);
    if (chosen)
        host_->createAccessLink(addresses.at(*chosen));
}

void MainWindow::ring(bool on) {
    if (on == ringing_)
        return;
    ringing_ = on;
    if (ringer_)
        ringer_(on);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    ring(false);
    if (callWindow_)
        callWindow_->close();
    if (incoming_)
        incoming_->dismiss();
    event->accept();
}

} // namespace onionvoice::ui
