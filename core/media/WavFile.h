// RIFF/WAVE reading and writing. The reader accepts 16-bit integer and 32-bit float PCM (plain or
// WAVE_FORMAT_EXTENSIBLE) and rejects anything else, truncated or absurd, with a clear message.
// The writer produces 16-bit mono PCM through QSaveFile with owner-only permissions.
#pragma once

#include <QByteArray>
#include <QSaveFile>
#include <QString>
#include <memory>
#include <span>
#include <vector>

namespace onionvoice::media {

struct WavAudio {
    int sampleRate = 0;
    int sourceChannels = 0;
    std::vector<float> samples; // mono: multi-channel input is averaged
};

// Parses a whole WAV image. On failure returns false, sets *error and leaves *out untouched.
bool parseWav(QByteArrayView image, WavAudio* out, QString* error);
bool readWavFile(const QString& path, WavAudio* out, QString* error);

// Streams 16-bit mono PCM to a file; nothing appears at `path` until finish() succeeds.
class WavWriter {
public:
    static std::unique_ptr<WavWriter> open(const QString& path, int sampleRate, QString* error);
    ~WavWriter();

    bool append(std::span<const float> samples);
    // Writes the final header and atomically replaces the target file.
    bool finish(QString* error);

private:
    WavWriter(std::unique_ptr<QSaveFile> file, int sampleRate);
    bool writeHeader();

    std::unique_ptr<QSaveFile> m_file;
    int m_sampleRate;
    quint64 m_dataBytes = 0;
};

bool writeWavFile(const QString& path, std::span<const float> samples, int sampleRate,
                  QString* error);

} // namespace onionvoice::media
