// Replays an `onionvoice-link-trace v1` file onto real links (`--impair TRACE`). The relay sits
// between the caller's engine and its tor SOCKS port, one loopback listener per link slot, so the
// mapping from trace slot to link is exact. After the SOCKS exchange (passed through at once),
// every byte is held back by the slot's one-way delay at the time it arrived: engine → tor by the
// trace's ab_ms, tor → engine by ba_ms. Bytes of a stream are never reordered, so a slow chunk
// holds back everything behind it (TCP head-of-line blocking, as in the simulator). At a `down`
// row the slot's streams are closed and new ones refused until the slot's next link comes up; the
// engine's replacement dial then gets that link's samples. The relay runs on its own thread so its
// timers and the engine's never wait for each other; a control interface (ImpairControl) can
// break slots and add delay spikes during a call.
#pragma once

#include "net/OnionLink.h"
#include "sim/LinkTrace.h"

#include <QJsonObject>
#include <QLoggingCategory>
#include <QMutex>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <vector>

class QTcpServer;
class QTcpSocket;

Q_DECLARE_LOGGING_CATEGORY(lcImpair) // the relay's, defined in LinkImpairer.cpp

namespace onionvoice::cli {

class LinkImpairer : public QObject {
    Q_OBJECT
public:
    using Clock = std::chrono::steady_clock;

    LinkImpairer(sim::LinkTrace trace, int slotCount, QObject* parent = nullptr);
    ~LinkImpairer() override;

    // On the relay's thread: one listener per slot on 127.0.0.1; their ports in slot order.
    bool listen(QString* error);
    std::vector<quint16> ports() const { return ports_; }

    // Thread-safe: where the engine's tor accepts SOCKS connections (its unix socket, or on
    // Windows its port on 127.0.0.1).
    void setSocksTarget(const net::SocksEndpoint& target);
    // Thread-safe: trace time 0 is `start` (the call's start); before it, time 0 applies.
    void startTraceClock(Clock::time_point start);
    Clock::time_point traceStart() const;

    // Control, on the relay's thread. A broken slot's streams close now; new ones are refused for
    // `holdDown` (0: the engine's replacement may connect at once).
    void breakSlots(const std::vector<int>& targets, std::chrono::milliseconds holdDown);
    // Adds `extra` to both directions of the slot for chunks arriving in the next `duration`.
    void addDelay(int slot, std::chrono::milliseconds extra, std::chrono::milliseconds duration);
    QJsonObject statistics() const;
    int slotCount() const { return int(slots_.size()); }

private:
    // The SOCKS exchange passes undelayed; a stream that one side closed drains what it still
    // holds back before it closes the other side.
    enum class Phase { Socks, Relaying, Draining };
    // A link that breaks loses what is in flight; a stream closed by an endpoint delivers it.
    enum class Close { Abort, Drain };
    enum class SocksStep { Method, Auth, ReplyHead, ReplyAddress };
    struct Chunk {
        Clock::time_point release;
        QByteArray bytes;
    };
    struct Pipe {
        std::deque<Chunk> queue;
        std::uint64_t bytes = 0;
        // When the last chunk was due, head-of-line blocking included: a chunk waiting behind a
        // slower one is on time when it leaves right after it.
        Clock::time_point lastDue{};
    };
    struct Stream {
        int slot = 0;
        std::size_t life = 0; // index into the slot's links in the trace
        QTcpSocket* engine = nullptr;
        QTcpSocket* tor = nullptr;
        Phase phase = Phase::Socks;
        SocksStep step = SocksStep::Method;
        QByteArray socksReply; // downstream bytes of the SOCKS exchange not yet parsed
        Pipe ab, ba;           // engine → tor, tor → engine
    };
    struct Spike {
        Clock::time_point until;
        std::chrono::milliseconds extra;
    };
    struct SlotState {
        std::unique_ptr<QTcpServer> server;
        Clock::time_point heldDownUntil{};
        std::vector<Spike> spikes;
        std::uint64_t accepted = 0, refused = 0, closedByTrace = 0, closedByControl = 0;
        std::uint64_t bytesAb = 0, bytesBa = 0;
    };

    double traceMs(Clock::time_point t) const;
    std::optional<std::size_t> lifeAt(int slot, double tMs) const;
    void onNewConnection(int slot);
    void onEngineData(Stream* stream);
    void onTorData(Stream* stream);
    void parseSocksReply(Stream* stream);
    void enqueue(Stream* stream, sim::Direction direction, QByteArray bytes);
    void release();
    void reschedule();
    void closeStream(Stream* stream, Close how);
    void closeSlot(int slot);

    sim::LinkTrace trace_;
    std::vector<SlotState> slots_;
    std::vector<quint16> ports_;
    std::vector<std::unique_ptr<Stream>> streams_;
    net::SocksEndpoint socksTarget() const;
    bool connectToTor(QTcpSocket* socket);

    mutable QMutex targetMutex_;
    net::SocksEndpoint target_;
    std::atomic<Clock::rep> start_{0}; // Clock ticks since its epoch; 0: not started
    QTimer timer_;
    std::vector<double> lateness_; // ms each release came after its due time
};

} // namespace onionvoice::cli
