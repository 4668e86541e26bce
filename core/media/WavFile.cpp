// WAV parser and writer (see WavFile.h).
#include "media/WavFile.h"

#include <QFile>
#include <QtEndian>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace onionvoice::media {
namespace {

constexpr quint16 kFormatPcm = 1;
constexpr quint16 kFormatFloat = 3;
constexpr quint16 kFormatExtensible = 0xfffe;
constexpr int kMaxChannels = 32;
constexpr int kMaxSampleRate = 768000;
// Larger files are not audio this engine should load into memory (about 45 min of 48 kHz float
// stereo).
constexpr qint64 kMaxFileBytes = qint64(1) << 30;

quint16 u16(const char* p) {
    return qFromLittleEndian<quint16>(p);
}
quint32 u32(const char* p) {
    return qFromLittleEndian<quint32>(p);
}

bool fail(QString* error, const QString& message) {
    *error = message;
    return false;
}

} // namespace

bool parseWav(QByteArrayView image, WavAudio* out, QString* error) {
    const char* data = image.data();
    const qsizetype size = image.size();
    if (size < 12 || std::memcmp(data, "RIFF", 4) != 0 || std::memcmp(data + 8, "WAVE", 4) != 0)
        return fail(error, QStringLiteral("not a RIFF/WAVE file"));

    bool haveFormat = false;
    quint16 format = 0;
    int channels = 0;
    int sampleRate = 0;
    int blockAlign = 0;
    int bits = 0;
    qsizetype pos = 12;
    while (true) {
        if (size - pos < 8)
            return fail(error, haveFormat ? QStringLiteral("truncated WAV: no data chunk")
                                          : QStringLiteral("truncated WAV: no fmt chunk"));
        const char* chunk = data + pos;
        const quint32 chunkSize = u32(chunk + 4);
        const qsizetype bodyStart = pos + 8;
        const qsizetype available = size - bodyStart;
        if (std::memcmp(chunk, "fmt ", 4) == 0) {
            if (chunkSize < 16 || qsizetype(chunkSize) > available)
                return fail(
                    error,
                    QStringLiteral("truncated or invalid fmt chunk (%1 bytes)").arg(chunkSize));
            const char* fmt = data + bodyStart;
            format = u16(fmt);
            channels = u16(fmt + 2);
            sampleRate = static_cast<int>(std::min<quint32>(u32(fmt + 4), kMaxSampleRate + 1));
            blockAlign = u16(fmt + 12);
            bits = u16(fmt + 14);
            if (format == kFormatExtensible) {
                if (chunkSize < 40)
                    return fail(error,
                                QStringLiteral("WAVE_FORMAT_EXTENSIBLE fmt chunk too short"));
                // The sub-format GUID starts with the plain format tag.
                format = u16(fmt + 24);
            }
            haveFormat = true;
        } else if (std::memcmp(chunk, "data", 4) == 0) {
            if (!haveFormat)
                return fail(error, QStringLiteral("data chunk before fmt chunk"));
            if (qsizetype(chunkSize) > available)
                return fail(error, QStringLiteral("truncated WAV: data chunk declares %1 bytes, "
                                                  "only %2 present")
                                       .arg(chunkSize)
                                       .arg(available));
            const bool pcm16 = format == kFormatPcm && bits == 16;
            const bool float32 = format == kFormatFloat && bits == 32;
            if (!pcm16 && !float32)
                return fail(error, QStringLiteral("unsupported WAV encoding (format tag %1, %2 "
                                                  "bits): only 16-bit PCM and 32-bit float are "
                                                  "supported")
                                       .arg(format)
                                       .arg(bits));
            if (channels < 1 || channels > kMaxChannels)
                return fail(error, QStringLiteral("absurd channel count %1").arg(channels));
            if (sampleRate < 8000 || sampleRate > kMaxSampleRate)
                return fail(error, QStringLiteral("absurd sample rate %1").arg(sampleRate));
            const int bytesPerSample = bits / 8;
            if (blockAlign != channels * bytesPerSample)
                return fail(error, QStringLiteral("inconsistent block align %1 for %2 channels "
                                                  "of %3 bits")
                                       .arg(blockAlign)
                                       .arg(channels)
                                       .arg(bits));
            if (chunkSize % blockAlign != 0)
                return fail(error, QStringLiteral("truncated WAV: data chunk ends inside a "
                                                  "sample frame"));
            const std::size_t frames = chunkSize / blockAlign;
            WavAudio audio;
            audio.sampleRate = sampleRate;
            audio.sourceChannels = channels;
            audio.samples.resize(frames);
            const char* p = data + bodyStart;
            for (std::size_t f = 0; f < frames; ++f) {
                float sum = 0.0f;
                for (int c = 0; c < channels; ++c, p += bytesPerSample) {
                    if (pcm16) {
                        sum += static_cast<float>(qFromLittleEndian<qint16>(p)) / 32768.0f;
                    } else {
                        // Full scale is ±1; larger values would overflow the channel sum
                        // (two of FLT_MAX made an infinite sample, NaN after resampling).
                        const float v = qFromLittleEndian<float>(p);
                        sum += std::isfinite(v) ? std::clamp(v, -1.0f, 1.0f) : 0.0f;
                    }
                }
                audio.samples[f] = sum / static_cast<float>(channels);
            }
            *out = std::move(audio);
            return true;
        }
        // Chunks are padded to an even size (RIFF).
        const qsizetype next = bodyStart + qsizetype(chunkSize) + (chunkSize & 1);
        if (next > size)
            return fail(error, QStringLiteral("truncated WAV: chunk '%1' runs past the end")
                                   .arg(QString::fromLatin1(chunk, 4).toHtmlEscaped()));
        pos = next;
    }
}

bool readWavFile(const QString& path, WavAudio* out, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(error, QStringLiteral("cannot open %1: %2").arg(path, file.errorString()));
    if (file.size() > kMaxFileBytes)
        return fail(error, QStringLiteral("%1 is larger than 1 GiB").arg(path));
    const QByteArray image = file.readAll();
    if (image.size() != file.size())
        return fail(error, QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    if (!parseWav(image, out, error)) {
        *error = QStringLiteral("%1: %2").arg(path, *error);
        return false;
    }
    return true;
}

std::unique_ptr<WavWriter> WavWriter::open(const QString& path, int sampleRate, QString* error) {
    auto file = std::make_unique<QSaveFile>(path);
    // A call's recording: private, or not written at all.
    if (!file->open(QIODevice::WriteOnly) ||
        !file->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file->errorString());
        return nullptr;
    }
    std::unique_ptr<WavWriter> writer(new WavWriter(std::move(file), sampleRate));
    if (!writer->writeHeader()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, writer->m_file->errorString());
        return nullptr;
    }
    return writer;
}

WavWriter::WavWriter(std::unique_ptr<QSaveFile> file, int sampleRate)
    : m_file(std::move(file))
    , m_sampleRate(sampleRate) {}

WavWriter::~WavWriter() {
    if (m_file)
        m_file->cancelWriting();
}

bool WavWriter::writeHeader() {
    const quint32 data = static_cast<quint32>(
        std::min<quint64>(m_dataBytes, std::numeric_limits<quint32>::max() - 36));
    char h[44];
    std::memcpy(h, "RIFF", 4);
    qToLittleEndian<quint32>(36 + data, h + 4);
    std::memcpy(h + 8, "WAVEfmt ", 8);
    qToLittleEndian<quint32>(16, h + 16);
    qToLittleEndian<quint16>(kFormatPcm, h + 20);
    qToLittleEndian<quint16>(1, h + 22);
    qToLittleEndian<quint32>(m_sampleRate, h + 24);
    qToLittleEndian<quint32>(m_sampleRate * 2, h + 28);
    qToLittleEndian<quint16>(2, h + 32);
    qToLittleEndian<quint16>(16, h + 34);
    std::memcpy(h + 36, "data", 4);
    qToLittleEndian<quint32>(data, h + 40);
    return m_file->write(h, sizeof h) == qint64(sizeof h);
}

bool WavWriter::append(std::span<const float> samples) {
    std::vector<char> bytes(samples.size() * 2);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const float clamped = std::clamp(samples[i], -1.0f, 1.0f);
        qToLittleEndian<qint16>(static_cast<qint16>(std::lround(clamped * 32767.0f)),
                                bytes.data() + 2 * i);
    }
    if (m_file->write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
        return false;
    m_dataBytes += bytes.size();
    return true;
}

bool WavWriter::finish(QString* error) {
    if (m_dataBytes > std::numeric_limits<quint32>::max() - 36) {
        *error = QStringLiteral("recording exceeds the 4 GiB WAV limit");
        return false;
    }
    if (!m_file->seek(0) || !writeHeader() || !m_file->commit()) {
        *error =
            QStringLiteral("cannot write %1: %2").arg(m_file->fileName(), m_file->errorString());
        m_file.reset();
        return false;
    }
    m_file.reset();
    return true;
}

bool writeWavFile(const QString& path, std::span<const float> samples, int sampleRate,
                  QString* error) {
    auto writer = WavWriter::open(path, sampleRate, error);
    if (!writer)
        return false;
    if (!writer->append(samples)) {
        *error = QStringLiteral("cannot write %1").arg(path);
        return false;
    }
    return writer->finish(error);
}

} // namespace onionvoice::media
