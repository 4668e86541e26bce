// Window-modal stand-ins for QDialog::exec() and Qt's static dialog helpers.
#include "WindowModal.h"

#include <QDialog>
#include <QFileDialog>
#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>
#include <type_traits>
#include <utility>

namespace onionvoice::ui {

int execWindowModal(QDialog& dialog) {
    dialog.setWindowModality(Qt::WindowModal);
    return dialog.exec();
}

bool askWindowModal(QWidget* parent, const QString& title, const QString& text,
                    DefaultAnswer defaultAnswer) {
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::No, parent);
    box.setDefaultButton(defaultAnswer == DefaultAnswer::Yes ? QMessageBox::Yes : QMessageBox::No);
    return execWindowModal(box) == QMessageBox::Yes;
}

void informWindowModal(QWidget* parent, const QString& title, const QString& text) {
    auto* box = new QMessageBox(QMessageBox::Information, title, text, QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal; nothing waits for the answer
}

namespace {

// Runs a dialog made on the heap and reads its answer if it was accepted. Watched: the dialog's
// event loop may outlive its parent, which takes the dialog with it (no answer then).
template <typename Dialog, typename Read>
auto answerOf(Dialog* created, Read read) -> std::optional<std::invoke_result_t<Read, Dialog&>> {
    QPointer<Dialog> dialog = created;
    const bool accepted = execWindowModal(*dialog) == QDialog::Accepted;
    if (!dialog)
        return std::nullopt;
    auto answer = read(std::as_const(*dialog));
    delete dialog;
    if (!accepted)
        return std::nullopt;
    return answer;
}

QInputDialog* inputDialog(QWidget* parent, const QString& title, const QString& label) {
    auto* dialog = new QInputDialog(parent);
    dialog->setWindowTitle(title);
    dialog->setLabelText(label);
    return dialog;
}

} // namespace

std::optional<QString> getTextWindowModal(QWidget* parent, const QString& title,
                                          const QString& label, const QString& text) {
    auto* dialog = inputDialog(parent, title, label);
    dialog->setTextValue(text);
    return answerOf(dialog, [](const QInputDialog& d) { return d.textValue(); });
}

std::optional<int> getItemWindowModal(QWidget* parent, const QString& title, const QString& label,
                                      const QStringList& items) {
    auto* dialog = inputDialog(parent, title, label);
    dialog->setComboBoxItems(items);
    dialog->setComboBoxEditable(false);
    const auto index = answerOf(
        dialog, [&items](const QInputDialog& d) { return int(items.indexOf(d.textValue())); });
    return index && *index >= 0 ? index : std::nullopt;
}

QString getOpenFileNameWindowModal(QWidget* parent, const QString& caption, const QString& filter) {
    auto* dialog = new QFileDialog(parent, caption, {}, filter);
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAcceptMode(QFileDialog::AcceptOpen);
    const auto files = answerOf(dialog, [](const QFileDialog& d) { return d.selectedFiles(); });
    return files && !files->isEmpty() ? files->first() : QString();
}

} // namespace onionvoice::ui
