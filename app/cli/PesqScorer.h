// Runs the PESQ helper script (pesq_score.py, PyPI's `pesq` in a private virtual environment) on
// a reference and a degraded WAV and returns the wideband score.
#pragma once

#include <QString>
#include <optional>

namespace onionvoice::cli {

struct PesqSetup {
    QString script = QStringLiteral(ONIONVOICE_PESQ_SCRIPT);
    QString venv = QStringLiteral(ONIONVOICE_PESQ_VENV);
};

std::optional<double> scorePesqWb(const PesqSetup& setup, const QString& reference,
                                  const QString& degraded, QString* error);

} // namespace onionvoice::cli
