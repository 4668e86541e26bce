// The sound test's "through a Tor path": a recording goes through the real call pipeline (voice
// processing, Opus, multipath records on twelve simulated links, jitter buffer) over a link trace
// of a chosen profile, made by `onionvoice-sim generate`, by `onionvoice-cli audio-loop`, and
// comes back as what the other side would hear. Runs the two programs one after the other,
// asynchronously.
#pragma once

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <vector>

namespace onionvoice::gui {

class TraceLoopback : public QObject {
    Q_OBJECT
public:
    explicit TraceLoopback(QObject* parent = nullptr);

    // `profile`: a trace profile of onionvoice-sim (calm, default, congested, hostile).
    void run(const std::vector<float>& speech, const QString& profile, int seed);

signals:
    void finished(const std::vector<float>& heard, const QString& summary);
    void failed(const QString& reason);

private:
    void startStep(const QString& program, const QStringList& arguments);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    static QString findProgram(const QString& name);

    enum class Step { Idle, Generating, Looping };
    Step step_ = Step::Idle;
    std::unique_ptr<QTemporaryDir> dir_;
    QProcess process_;
};

} // namespace onionvoice::gui
