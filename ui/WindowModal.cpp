// Window-modal stand-ins for QDialog::exec() and Qt's static dialog helpers.
#include "WindowModal.h"

#include <QDialog>
#include <QFileDialog>
#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>

namespace onionvoice::ui {

int execWindowModal(QDialog& dialog) {
    dialog.setWindowModality(Qt::WindowModal);
    return dialog.exec();
}

bool askWindowModal(QWidget* parent, const QString& title, const QString& text) {
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::No, parent);
    box.setDefaultButton(QMessageBox::Yes);
    return execWindowModal(box) == QMessageBox::Yes;
}

void informWindowModal(QWidget* parent, const QString& title, const QString& text) {
    auto* box = new QMessageBox(QMessageBox::Information, title, text, QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal; nothing waits for the answer
}

std::optional<QString> getTextWindowModal(QWidget* parent, const QString& title,
                                          const QString& label, const QString& text) {
    // On the heap and watched: the dialog's event loop may outlive its parent.
    QPointer<QInputDialog> dialog = new QInputDialog(parent);
    dialog->setWindowTitle(title);
    dialog->setLabelText(label);
    dialog->setTextValue(text);
    const bool ok = execWindowModal(*dialog) == QDialog::Accepted;
    if (!dialog)
        return std::nullopt;
    const QString value = dialog->textValue();
    delete dialog;
    return ok ? std::optional<QString>(value) : std::nullopt;
}

std::optional<int> getItemWindowModal(QWidget* parent, const QString& title, const QString& label,
                                      const QStringList& items) {
    QPointer<QInputDialog> dialog = new QInputDialog(parent);
    dialog->setWindowTitle(title);
    dialog->setLabelText(label);
    dialog->setComboBoxItems(items);
    dialog->setComboBoxEditable(false);
    const bool ok = execWindowModal(*dialog) == QDialog::Accepted;
    if (!dialog)
        return std::nullopt;
    const int index = int(items.indexOf(dialog->textValue()));
    delete dialog;
    return ok && index >= 0 ? std::optional<int>(index) : std::nullopt;
}

QString getOpenFileNameWindowModal(QWidget* parent, const QString& caption, const QString& filter) {
    QPointer<QFileDialog> dialog = new QFileDialog(parent, caption, {}, filter);
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAcceptMode(QFileDialog::AcceptOpen);
    const bool ok = execWindowModal(*dialog) == QDialog::Accepted;
    if (!dialog)
        return {};
    const QStringList files = dialog->selectedFiles();
    delete dialog;
    return ok && !files.isEmpty() ? files.first() : QString();
}

} // namespace onionvoice::ui
