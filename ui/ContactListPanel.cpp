// The contact list panel.
#include "ContactListPanel.h"

#include "AddressText.h"
#include "ContactInput.h"
#include "QrCode.h"
#include "Tone.h"
#include "WindowModal.h"
#include "contacts/ContactName.h"

#include <QFocusEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <algorithm>
#include <optional>

namespace onionvoice::ui {
namespace {
constexpr int kAddressRole = Qt::UserRole;
enum Column { NameColumn, AddressColumn, StatusColumn };
} // namespace

ContactListPanel::ContactListPanel(QWidget* parent)
    : QWidget(parent)
    , addField_(new QLineEdit(this))
    , nameField_(new QLineEdit(this))
    , addButton_(new QPushButton(tr("&Add"), this))
    , qrButton_(new QPushButton(tr("From QR &image…"), this))
    , addError_(new QLabel(this))
    , search_(new QLineEdit(this))
    , list_(new QTreeWidget(this))
    , callButton_(new QPushButton(tr("&Call"), this))
    , renameButton_(new QPushButton(tr("Re&name…"), this))
    , blockButton_(new QPushButton(tr("B&lock"), this))
    , removeButton_(new QPushButton(tr("Re&move…"), this)) {
    setObjectName(QStringLiteral("contactPanel"));
    addField_->setObjectName(QStringLiteral("addContactField"));
    addField_->setPlaceholderText(tr("Their ID or onionvoice: link"));
    addField_->setToolTip(tr("Paste the ID or contact link someone gave you"));
    addField_->setClearButtonEnabled(true);
    // Plain names for screen readers: without one Qt reads out the buddy label's HTML, and the
    // fields and the list below would have no name at all.
    addField_->setAccessibleName(tr("Their ID or contact link"));
    nameField_->setObjectName(QStringLiteral("addContactName"));
    nameField_->setPlaceholderText(tr("Name (optional)"));
    nameField_->setMaximumWidth(160);
    nameField_->setAccessibleName(tr("Name for the new contact"));
    addButton_->setObjectName(QStringLiteral("addContactButton"));
    addButton_->setToolTip(tr("Add this person to your contacts"));
    qrButton_->setObjectName(QStringLiteral("addFromQrButton"));
    qrButton_->setToolTip(tr("Read a contact link from a picture of a QR code"));
    addError_->setObjectName(QStringLiteral("addContactError"));
    addError_->setWordWrap(true);
    // Plain text: the reasons quote parts of the pasted link, which someone else wrote.
    addError_->setTextFormat(Qt::PlainText);
    setTone(addError_, Tone::Error);
    addError_->setVisible(false);
    search_->setObjectName(QStringLiteral("contactSearch"));
    search_->setPlaceholderText(tr("Search contacts"));
    search_->setClearButtonEnabled(true);
    search_->setAccessibleName(tr("Search contacts"));
    list_->setObjectName(QStringLiteral("contactList"));
    list_->setHeaderLabels({tr("Name"), tr("ID"), tr("Status")});
    list_->setAccessibleName(tr("Contacts"));
    list_->setRootIsDecorated(false);
    list_->setAlternatingRowColors(true);
    list_->header()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    list_->header()->setSectionResizeMode(AddressColumn, QHeaderView::ResizeToContents);
    list_->setToolTip(tr("Double-click a contact to call"));
    callButton_->setObjectName(QStringLiteral("callButton"));
    renameButton_->setObjectName(QStringLiteral("renameButton"));
    blockButton_->setObjectName(QStringLiteral("blockButton"));
    blockButton_->setToolTip(tr("A blocked contact's calls are refused without ringing"));
    removeButton_->setObjectName(QStringLiteral("removeButton"));

    connect(addButton_, &QPushButton::clicked, this, &ContactListPanel::tryAdd);
    connect(addField_, &QLineEdit::returnPressed, this, &ContactListPanel::tryAdd);
    connect(addField_, &QLineEdit::textChanged, this, [this](const QString& text) {
        // Explain as soon as what was pasted looks complete, not while someone is typing.
        if (text.trimmed().size() >= 56 || text.isEmpty())
            showCheck();
    });
    connect(nameField_, &QLineEdit::textChanged, this, &ContactListPanel::showCheck);
    connect(qrButton_, &QPushButton::clicked, this, &ContactListPanel::addFromQrImage);
    connect(search_, &QLineEdit::textChanged, this, &ContactListPanel::applyFilter);
    connect(list_, &QTreeWidget::itemSelectionChanged, this, &ContactListPanel::updateButtons);
    // Enter on the contact the keyboard is on calls it, selected or not (Tab made it current
    // only, and Enter did nothing).
    connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        list_->setCurrentItem(item);
        item->setSelected(true);
        if (callButton_->isEnabled())
            callButton_->click();
    });
    list_->installEventFilter(this);
    connect(callButton_, &QPushButton::clicked, this,
            [this] { emit callRequested(selectedAddress()); });
    connect(renameButton_, &QPushButton::clicked, this, &ContactListPanel::rename);
    connect(blockButton_, &QPushButton::clicked, this, [this] {
        for (const contacts::Contact& c : contacts_)
            if (c.address == selectedAddress())
                emit blockRequested(c.address, !c.blocked);
    });
    connect(removeButton_, &QPushButton::clicked, this, &ContactListPanel::remove);

    auto* addLabel = new QLabel(tr("<b>Add a contact</b> — paste <i>their</i> ID or link"), this);
    addLabel->setBuddy(addField_);
    auto* addRow = new QHBoxLayout;
    addRow->addWidget(addField_, 1);
    addRow->addWidget(nameField_);
    addRow->addWidget(addButton_);
    addRow->addWidget(qrButton_);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {callButton_, renameButton_, blockButton_, removeButton_})
        buttons->addWidget(b);
    buttons->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("<b>Contacts</b>"), this));
    layout->addWidget(search_);
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);
    layout->addSpacing(8);
    layout->addWidget(addLabel);
    layout->addLayout(addRow);
    layout->addWidget(addError_);
    updateButtons();
}

QList<QWidget*> ContactListPanel::tabStops() const {
    return {search_,       list_,     callButton_, renameButton_, blockButton_,
            removeButton_, addField_, nameField_,  addButton_,    qrButton_};
}

void ContactListPanel::setContacts(const QList<contacts::Contact>& contacts) {
    const QString selected = selectedAddress();
    contacts_ = contacts;
    list_->clear();
    for (const contacts::Contact& c : contacts) {
        auto* item = new QTreeWidgetItem(list_);
        item->setText(NameColumn, c.displayName.isEmpty() ? tr("(no name)") : c.displayName);
        item->setText(AddressColumn, shortAddress(c.address));
        item->setToolTip(AddressColumn, groupedAddress(c.address));
        item->setData(NameColumn, kAddressRole, c.address);
        showStatus(item, c);
        if (c.address == selected)
            item->setSelected(true);
    }
    if (!list_->selectedItems().isEmpty())
        list_->setCurrentItem(list_->selectedItems().first());
    applyFilter();
    showCheck();
    updateButtons();
}

void ContactListPanel::setNotes(const QHash<QString, ContactNote>& notes) {
    notes_ = notes;
    for (int i = 0; i < list_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = list_->topLevelItem(i);
        const QString address = item->data(NameColumn, kAddressRole).toString();
        const auto c =
            std::find_if(contacts_.cbegin(), contacts_.cend(),
                         [&](const contacts::Contact& entry) { return entry.address == address; });
        if (c != contacts_.cend())
            showStatus(item, *c);
    }
}

// A missed call stands out (bold) until the next call with the contact replaces it.
void ContactListPanel::showStatus(QTreeWidgetItem* item, const contacts::Contact& contact) const {
    const ContactNote note = notes_.value(contact.address);
    item->setText(StatusColumn, contact.blocked ? tr("blocked") : note.text);
    const bool bold = note.needsAttention && !contact.blocked;
    for (const int column : {NameColumn, StatusColumn}) {
        QFont font = item->font(column);
        font.setBold(bold);
        item->setFont(column, font);
    }
}

void ContactListPanel::setCalling(Calling calling) {
    calling_ = calling;
    updateButtons();
}

// The keyboard's way into the list selects the contact it lands on: Tab left it current only,
// with Call, Rename, Block and Remove greyed out, and only Space selected it.
bool ContactListPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched != list_ || event->type() != QEvent::FocusIn || !list_->selectedItems().isEmpty())
        return QWidget::eventFilter(watched, event);
    // A click selects what it clicks; only the keyboard lands nowhere in particular.
    const Qt::FocusReason reason = static_cast<QFocusEvent*>(event)->reason();
    if (reason == Qt::MouseFocusReason || reason == Qt::PopupFocusReason)
        return QWidget::eventFilter(watched, event);
    QTreeWidgetItem* landing = list_->currentItem();
    for (int i = 0; (!landing || landing->isHidden()) && i < list_->topLevelItemCount(); ++i)
        landing = list_->topLevelItem(i);
    if (landing && !landing->isHidden()) {
        list_->setCurrentItem(landing);
        landing->setSelected(true);
    }
    return QWidget::eventFilter(watched, event);
}

void ContactListPanel::prefill(const QString& text) {
    addField_->setText(text);
    addField_->setFocus();
    showCheck();
}

QString ContactListPanel::selectedAddress() const {
    const auto items = list_->selectedItems();
    return items.isEmpty() ? QString() : items.first()->data(NameColumn, kAddressRole).toString();
}

// The name is checked here as the book checks it: the book refused it only after both fields were
// cleared, so the pasted ID was lost and a status-bar message was all that said why.
bool ContactListPanel::showCheck() {
    const std::optional<QString> nameRefusal =
        contacts::checkDisplayName(nameField_->text().trimmed());
    if (addField_->text().trimmed().isEmpty()) {
        addError_->setText(nameRefusal.value_or(QString()));
        setTone(addError_, Tone::Error);
        addError_->setVisible(nameRefusal.has_value());
        return false;
    }
    const ContactInput input = ContactInputCheck::check(addField_->text(), ownAddress_, contacts_);
    // Only a new contact takes the name; a contact's new access key leaves theirs alone.
    const bool nameRefused = input.isValid() && nameRefusal.has_value();
    addError_->setText(nameRefused ? *nameRefusal : input.reason);
    // A new key for a contact is news to act on, not a refusal.
    if (input.isActionable() && !nameRefused)
        clearTone(addError_);
    else
        setTone(addError_, Tone::Error);
    addError_->setVisible(!input.isValid() || nameRefused);
    return input.isActionable() && !nameRefused;
}

void ContactListPanel::tryAdd() {
    if (addField_->text().trimmed().isEmpty()) {
        addError_->setText(
            tr("Paste the ID or the onionvoice: link of the person you want to add."));
        addError_->setVisible(true);
        return;
    }
    if (!showCheck())
        return;
    ContactInput input = ContactInputCheck::check(addField_->text(), ownAddress_, contacts_);
    if (input.verdict == ContactInput::Verdict::NewAccessKey) {
        emit accessKeyReceived(input.contact.address, input.contact.outboundAuthPrivateKey);
    } else {
        if (!nameField_->text().trimmed().isEmpty())
            input.contact.displayName = nameField_->text().trimmed();
        emit addRequested(input.contact);
    }
    addField_->clear();
    nameField_->clear();
}

void ContactListPanel::addFromQrImage() {
    const QString file = getOpenFileNameWindowModal(this, tr("Picture of a QR code"),
                                                    tr("Images (*.png *.jpg *.jpeg *.bmp *.gif)"));
    if (file.isEmpty())
        return;
    const QrDecode decoded = decodeQrCode(QImage(file));
    if (!decoded.text) {
        addError_->setText(decoded.error);
        addError_->setVisible(true);
        return;
    }
    prefill(*decoded.text);
}

void ContactListPanel::applyFilter() {
    const QString needle = search_->text().trimmed();
    for (int i = 0; i < list_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = list_->topLevelItem(i);
        const bool match =
            needle.isEmpty() || item->text(NameColumn).contains(needle, Qt::CaseInsensitive) ||
            item->data(NameColumn, kAddressRole).toString().contains(needle, Qt::CaseInsensitive);
        item->setHidden(!match);
        // A hidden contact is no longer the one the buttons act on (Call dialled "").
        if (!match)
            item->setSelected(false);
    }
    updateButtons();
}

void ContactListPanel::updateButtons() {
    const QString address = selectedAddress();
    bool blocked = false;
    for (const contacts::Contact& c : contacts_)
        if (c.address == address)
            blocked = c.blocked;
    const bool any = !address.isEmpty();
    callButton_->setEnabled(any && !blocked && calling_ == Calling::Possible);
    // Greyed out: the tooltip says why, not what the button would do.
    switch (calling_) {
    case Calling::Possible:
        callButton_->setToolTip(tr("Call the selected contact"));
        break;
    case Calling::TorConnecting:
        callButton_->setToolTip(tr("Tor is not connected yet: calls can start once it is"));
        break;
    case Calling::TorFailed:
        callButton_->setToolTip(
            tr("Tor could not start: calls can start once it runs (see Tor, below the ID)"));
        break;
    case Calling::CallUnderWay:
        callButton_->setToolTip(tr("A call is under way: hang it up first"));
        break;
    }
    renameButton_->setEnabled(any);
    blockButton_->setEnabled(any);
    blockButton_->setText(blocked ? tr("Unb&lock") : tr("B&lock"));
    removeButton_->setEnabled(any);
}

// The dialog runs an event loop: setContacts() (every phaseChanged and contactsChanged) may
// replace contacts_ while it is open, so nothing of the list is held across it.
void ContactListPanel::rename() {
    const QString address = selectedAddress();
    const auto nameOf = [this](const QString& a) -> std::optional<QString> {
        for (const contacts::Contact& c : std::as_const(contacts_))
            if (c.address == a)
                return c.displayName;
        return std::nullopt;
    };
    const std::optional<QString> current = nameOf(address);
    if (!current)
        return;
    const std::optional<QString> name =
        getTextWindowModal(this, tr("Rename contact"), tr("Name:"), *current);
    // Removed meanwhile: the book would only answer that no contact has the address.
    if (name && nameOf(address))
        emit renameRequested(address, name->trimmed());
}

void ContactListPanel::remove() {
    const QString address = selectedAddress();
    if (address.isEmpty())
        return;
    const auto contact =
        std::find_if(contacts_.cbegin(), contacts_.cend(),
                     [&](const contacts::Contact& c) { return c.address == address; });
    if (contact == contacts_.cend())
        return;
    const QString who =
        contact->displayName.isEmpty() ? shortAddress(address) : contact->displayName;
    // A removed contact's block goes with it: they ring again like any stranger.
    const QString question =
        contact->blocked
            ? tr("Remove %1 from your contacts? The block goes too: %1 can ring you again.")
                  .arg(who)
            : tr("Remove %1 from your contacts?").arg(who);
    if (askWindowModal(this, tr("Remove contact"), question, DefaultAnswer::No))
        emit removeRequested(address);
}

} // namespace onionvoice::ui
