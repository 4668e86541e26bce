// Drives a JitterBuffer the way VoiceReceiver does, on a simulated clock, with real 40 ms Opus
// packets (speech with in-band FEC, loud noise, silence); shared by the jitter-buffer unit tests.
#pragma once

#include "media/JitterBuffer.h"
#include "media/VoiceCodec.h"

#include <QByteArray>
#include <QMetaType>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <span>
#include <vector>

namespace onionvoice::media::testing {

using namespace std::chrono_literals;
using Time = JitterBuffer::Time;

struct Arrival {
    std::uint32_t sequence;
    Time at;
};

struct Played {
    Time at;
    PlayoutStep step;
};

// One real 40 ms Opus packet of speech with in-band FEC (its sender expects loss), so a missing
// packet before it can be rebuilt; the buffer tells frames apart by sequence number, not content.
inline const QByteArray& packet() {
    static const QByteArray p = [] {
        QString error;
        EncoderSettings settings;
        settings.expectedLossPercent = 5;
        auto encoder = VoiceEncoder::create(settings, &error);
        std::vector<float> pcm(encoder->samplesPerPacket());
        QByteArray last;
        for (int i = 0; i < 5; ++i) { // past the encoder's start-up, behind speech
            for (std::size_t k = 0; k < pcm.size(); ++k)
                pcm[k] = 0.2f * std::sin(0.11f * float(k + i * pcm.size())) *
                         (1.0f + 0.5f * std::sin(0.013f * float(k)));
            last = encoder->encodePacket(pcm);
        }
        return last;
    }();
    return p;
}

// Real speech-like and silent packets: variable bitrate Opus spends many bytes on the first and
// few on the second, which is how the buffer tells a pause.
inline const QByteArray& loudPacket() {
    static const QByteArray p = [] {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> noise(-0.3f, 0.3f);
        std::vector<float> pcm(encoder->samplesPerPacket());
        QByteArray last;
        for (int i = 0; i < 5; ++i) { // past the encoder's start-up
            std::generate(pcm.begin(), pcm.end(), [&] { return noise(rng); });
            last = encoder->encodePacket(pcm);
        }
        return last;
    }();
    return p;
}

inline const QByteArray& quietPacket() {
    static const QByteArray p = [] {
        QString error;
        auto encoder = VoiceEncoder::create({}, &error);
        std::vector<float> pcm(encoder->samplesPerPacket(), 0.0f);
        QByteArray last;
        for (int i = 0; i < 5; ++i)
            last = encoder->encodePacket(pcm);
        return last;
    }();
    return p;
}

inline std::span<const std::uint8_t> bytes(const QByteArray& a) {
    return {reinterpret_cast<const std::uint8_t*>(a.constData()), std::size_t(a.size())};
}

// Packets sent every 40 ms from time 0, arriving after `delay(i)`.
template <typename Delay> std::vector<Arrival> schedule(int packets, Delay delay) {
    std::vector<Arrival> out;
    for (int i = 0; i < packets; ++i)
        out.push_back({std::uint32_t(i), Time(40ms) * i + delay(i)});
    return out;
}

// Drives the buffer like VoiceReceiver does: deliver what has arrived, pull, and pull again 40 ms
// later after a packet (20 ms later while nothing plays yet). Stops at `until` or once the last
// packet has played; packets still on their way then are delivered (late) without further pulls,
// as when a call ends.
inline std::vector<Played> run(JitterBuffer& jb, std::vector<Arrival> arrivals, Time until,
                               const QByteArray& data = packet()) {
    std::stable_sort(arrivals.begin(), arrivals.end(),
                     [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    // Packet indices as the buffer numbers them: sequence numbers unwrapped from the first one.
    std::int64_t last = 0;
    for (const Arrival& a : arrivals)
        last =
            std::max<std::int64_t>(last, std::int64_t(arrivals.front().sequence) +
                                             std::int32_t(a.sequence - arrivals.front().sequence));
    std::vector<Played> played;
    std::size_t next = 0;
    for (Time now = 7ms; now < until;) {
        while (next < arrivals.size() && arrivals[next].at <= now) {
            jb.push(arrivals[next].sequence, arrivals[next].at, bytes(data));
            ++next;
        }
        played.push_back({now, jb.pull(now)});
        if (played.back().step.packet >= last)
            break;
        now += played.back().step.action == PlayoutAction::Silence ? 20ms : 40ms;
    }
    for (; next < arrivals.size(); ++next)
        jb.push(arrivals[next].sequence, arrivals[next].at, bytes(data));
    return played;
}

// Settings that make the mechanics easy to see: a 20 ms floor and a fast 20 ms/s decrease.
inline JitterBufferSettings tight() {
    JitterBufferSettings s;
    s.minTarget = 20ms;
    s.decreasePerPacket = 800us;
    return s;
}

inline std::vector<std::int64_t> decodedPackets(const std::vector<Played>& played) {
    std::vector<std::int64_t> frames;
    for (const Played& p : played)
        if (p.step.action == PlayoutAction::Decode)
            frames.push_back(p.step.packet);
    return frames;
}

// Whether `packets` are first, first + 1, ..., last.
inline bool isRun(const std::vector<std::int64_t>& packets, std::int64_t first, std::int64_t last) {
    if (packets.empty() || packets.front() != first || packets.back() != last)
        return false;
    return std::adjacent_find(packets.begin(), packets.end(),
                              [](auto a, auto b) { return b != a + 1; }) == packets.end();
}

inline int count(const std::vector<Played>& played, PlayoutAction action) {
    return int(std::count_if(played.begin(), played.end(),
                             [action](const Played& p) { return p.step.action == action; }));
}

} // namespace onionvoice::media::testing

Q_DECLARE_METATYPE(std::vector<onionvoice::media::testing::Arrival>)
