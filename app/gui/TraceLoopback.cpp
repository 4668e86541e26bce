// The trace loopback of the sound test.
#include "TraceLoopback.h"

#include "media/AudioFormat.h"
#include "media/WavFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace onionvoice::gui {

TraceLoopback::TraceLoopback(QObject* parent)
    : QObject(parent) {
    connect(&process_, &QProcess::finished, this, &TraceLoopback::onFinished);
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            step_ = Step::Idle;
            emit failed(tr("%1 could not be started.").arg(process_.program()));
        }
    });
}

QString TraceLoopback::findProgram(const QString& name) {
    // Next to onionvoice in a bundle; in the build tree onionvoice-cli is in app/cli and
    // onionvoice-sim in app.
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate :
         {here.filePath(name), here.filePath("../cli/" + name), here.filePath("../" + name),
          here.filePath("../../app/cli/" + name), here.filePath("../../app/" + name)}) {
        const QFileInfo file(candidate);
        if (file.isFile() && file.isExecutable())
            return file.absoluteFilePath();
    }
    return {};
}

void TraceLoopback::run(const std::vector<float>& speech, const QString& profile, int seed) {
    if (step_ != Step::Idle)
        return;
    dir_ = std::make_unique<QTemporaryDir>();
    QString error;
    if (!dir_->isValid() ||
        !media::writeWavFile(dir_->filePath("speech.wav"), speech, media::kSampleRate, &error)) {
        emit failed(tr("The recording could not be saved: %1").arg(error));
        return;
    }
    const QString sim = findProgram(QStringLiteral("onionvoice-sim"));
    if (sim.isEmpty() || findProgram(QStringLiteral("onionvoice-cli")).isEmpty()) {
        emit failed(tr("onionvoice-sim and onionvoice-cli are needed next to OnionVoice."));
        return;
    }
    step_ = Step::Generating;
    startStep(sim, {"generate", "--out", dir_->filePath("traces"), "--calls", "1", "--minutes", "1",
                    "--seed", QString::number(seed), "--profile", profile});
}

void TraceLoopback::startStep(const QString& program, const QStringList& arguments) {
    process_.setProgram(program);
    process_.setArguments(arguments);
    process_.start();
}

void TraceLoopback::onFinished(int exitCode, QProcess::ExitStatus status) {
    if (status != QProcess::NormalExit || exitCode != 0) {
        step_ = Step::Idle;
        emit failed(
            tr("%1 failed: %2")
                .arg(QFileInfo(process_.program()).fileName(),
                     QString::fromUtf8(process_.readAllStandardError()).trimmed().left(300)));
        return;
    }
    if (step_ == Step::Generating) {
        const QStringList traces =
            QDir(dir_->filePath("traces")).entryList({QStringLiteral("*.csv")}, QDir::Files);
        if (traces.isEmpty()) {
            step_ = Step::Idle;
            emit failed(tr("No link trace was generated."));
            return;
        }
        step_ = Step::Looping;
        startStep(findProgram(QStringLiteral("onionvoice-cli")),
                  {"audio-loop", "--in", dir_->filePath("speech.wav"), "--out",
                   dir_->filePath("heard.wav"), "--trace",
                   QDir(dir_->filePath("traces")).filePath(traces.first()), "--policy", "adaptive",
                   "--no-pesq"});
        return;
    }
    step_ = Step::Idle;
    const QJsonObject report = QJsonDocument::fromJson(process_.readAllStandardOutput()).object();
    media::WavAudio heard;
    QString error;
    if (!media::readWavFile(dir_->filePath("heard.wav"), &heard, &error)) {
        emit failed(tr("What the other side would hear could not be read: %1").arg(error));
        return;
    }
    const QJsonObject m2e = report.value("mouth_to_ear_ms").toObject();
    const QString summary =
        tr("Through this path: mouth to ear %1 ms (p95 %2 ms), %3 % of frames missing, MOS %4.")
            .arg(m2e.value("p50").toDouble(), 0, 'f', 0)
            .arg(m2e.value("p95").toDouble(), 0, 'f', 0)
            .arg(report.value("missing_pct").toDouble(), 0, 'f', 1)
            .arg(report.value("emodel").toObject().value("mos").toDouble(), 0, 'f', 2);
    emit finished(heard.samples, summary);
}

} // namespace onionvoice::gui
