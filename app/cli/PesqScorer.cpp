// PESQ helper invocation (see PesqScorer.h).
#include "PesqScorer.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace onionvoice::cli {

std::optional<double> scorePesqWb(const PesqSetup& setup, const QString& reference,
                                  const QString& degraded, QString* error) {
    QProcess process;
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.start(QStringLiteral("python3"),
                  {setup.script, QStringLiteral("--venv"), setup.venv, reference, degraded});
    // Creating the virtual environment and installing numpy and pesq takes a while once.
    if (!process.waitForFinished(15 * 60 * 1000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        *error = QStringLiteral("PESQ helper failed: %1")
                     .arg(QString::fromUtf8(process.readAllStandardError()).trimmed().right(2000));
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished();
        }
        return std::nullopt;
    }
    const QJsonObject result = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
    if (!result.value(QStringLiteral("pesq_wb")).isDouble()) {
        *error = QStringLiteral("PESQ helper printed no score");
        return std::nullopt;
    }
    return result.value(QStringLiteral("pesq_wb")).toDouble();
}

} // namespace onionvoice::cli
