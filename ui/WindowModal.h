// The app's dialogs are modal to their own window (Qt::WindowModal), never to the application.
// An application-modal dialog (what QDialog::exec() and the static QMessageBox, QInputDialog and
// QFileDialog helpers make) blocks input to every other window: the incoming-call prompt rang
// but took no click while Settings, the sound test or a Rename was open, and the call window's
// Hang up and Mute were dead while "Restart tor?" was asked. A window-modal dialog blocks only
// the windows in its parent's chain; the prompt and the call window are top-level windows of
// their own (MainWindow), outside that chain.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

class QDialog;
class QWidget;

namespace onionvoice::ui {

// Runs `dialog` modal to its parent's window; returns QDialog::exec()'s result.
int execWindowModal(QDialog& dialog);

// QMessageBox::question: true for Yes. The default answer is the one Enter gives; No where a
// reflex Enter would lose something.
enum class DefaultAnswer { Yes, No };
bool askWindowModal(QWidget* parent, const QString& title, const QString& text,
                    DefaultAnswer defaultAnswer = DefaultAnswer::Yes);
// QMessageBox::information, not waited for.
void informWindowModal(QWidget* parent, const QString& title, const QString& text);
// QInputDialog::getText and getItem: nothing when cancelled.
std::optional<QString> getTextWindowModal(QWidget* parent, const QString& title,
                                          const QString& label, const QString& text);
std::optional<int> getItemWindowModal(QWidget* parent, const QString& title, const QString& label,
                                      const QStringList& items);
// QFileDialog::getOpenFileName: empty when cancelled.
QString getOpenFileNameWindowModal(QWidget* parent, const QString& caption,
                                   const QString& filter = {});

} // namespace onionvoice::ui
