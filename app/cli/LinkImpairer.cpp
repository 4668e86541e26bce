// The trace-replaying delay relay (see LinkImpairer.h).
#include "LinkImpairer.h"

#include <QFile>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QTcpServer>
#include <QTcpSocket>
#include <algorithm>

#ifndef Q_OS_WIN
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

Q_LOGGING_CATEGORY(lcImpair, "onionvoice.impair")

namespace onionvoice::cli {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kLatenessSamples = 20000;

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    const auto k =
        std::size_t(std::min<double>(double(v.size()) - 1, p / 100.0 * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}

} // namespace

LinkImpairer::LinkImpairer(sim::LinkTrace trace, int slotCount, QObject* parent)
    : QObject(parent)
    , trace_(std::move(trace))
    , slots_(std::size_t(slotCount))
    , timer_(this) {
    timer_.setSingleShot(true);
    timer_.setTimerType(Qt::PreciseTimer);
    connect(&timer_, &QTimer::timeout, this, &LinkImpairer::release);
}

LinkImpairer::~LinkImpairer() {
    // A socket deleted while connected reports its disconnection: not to us any more.
    for (auto& s : streams_) {
        s->engine->disconnect(this);
        s->tor->disconnect(this);
        delete s->engine;
        delete s->tor;
    }
}

void LinkImpairer::setSocksTarget(const net::SocksEndpoint& target) {
    const QMutexLocker lock(&targetMutex_);
    target_ = target;
}

net::SocksEndpoint LinkImpairer::socksTarget() const {
    const QMutexLocker lock(&targetMutex_);
    return target_;
}

// The tor leg: tor's unix socket (connected here, then run by QTcpSocket as Qt's own QLocalSocket
// does on Unix, so both legs are the same kind of socket), or on Windows its port on 127.0.0.1.
// False when there is no tor to connect to.
bool LinkImpairer::connectToTor(QTcpSocket* socket) {
    const net::SocksEndpoint target = socksTarget();
    if (!target.path.isEmpty()) {
#ifdef Q_OS_WIN
        return false;
#else
        const QByteArray path = QFile::encodeName(target.path);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (std::size_t(path.size()) >= sizeof address.sun_path)
            return false;
        std::memcpy(address.sun_path, path.constData(), std::size_t(path.size()));
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        // A listening unix socket answers at once: no connect in progress to wait for.
        if (fd < 0 ||
            ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
            !socket->setSocketDescriptor(fd)) {
            if (fd >= 0)
                ::close(fd);
            return false;
        }
        return true;
#endif
    }
    if (target.port == 0)
        return false;
    connect(socket, &QTcpSocket::connected, socket,
            [socket] { socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); });
    // Writes made while connecting are queued by the socket and sent once it connects.
    socket->connectToHost(QHostAddress(QHostAddress::LocalHost), target.port);
    return true;
}

bool LinkImpairer::listen(QString* error) {
    ports_.clear();
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
        auto server = std::make_unique<QTcpServer>(this);
        if (!server->listen(QHostAddress(QHostAddress::LocalHost), 0)) {
            *error = QStringLiteral("impairment relay: cannot listen on 127.0.0.1: %1")
                         .arg(server->errorString());
            return false;
        }
        connect(server.get(), &QTcpServer::newConnection, this,
                [this, slot] { onNewConnection(int(slot)); });
        ports_.push_back(server->serverPort());
        slots_[slot].server = std::move(server);
    }
    return true;
}

void LinkImpairer::startTraceClock(Clock::time_point start) {
    start_.store(start.time_since_epoch().count());
}

LinkImpairer::Clock::time_point LinkImpairer::traceStart() const {
    return Clock::time_point(Clock::duration(start_.load()));
}

double LinkImpairer::traceMs(Clock::time_point t) const {
    if (start_.load() == 0)
        return 0;
    return std::max(0.0, std::chrono::duration<double, std::milli>(t - traceStart()).count());
}

std::optional<std::size_t> LinkImpairer::lifeAt(int slot, double tMs) const {
    if (std::size_t(slot) >= trace_.bySlot.size())
        return std::nullopt; // the trace has fewer slots than the call: no link there
    const auto& lives = trace_.bySlot[std::size_t(slot)];
    for (std::size_t i = 0; i < lives.size(); ++i)
        if (lives[i].aliveAt(tMs))
            return i;
    return std::nullopt;
}

void LinkImpairer::onNewConnection(int slot) {
    SlotState& s = slots_[std::size_t(slot)];
    while (QTcpSocket* engine = s.server->nextPendingConnection()) {
        const auto now = Clock::now();
        const auto life = lifeAt(slot, traceMs(now));
        auto tor = std::make_unique<QTcpSocket>();
        if (!life || now < s.heldDownUntil || !connectToTor(tor.get())) {
            ++s.refused;
            engine->abort();
            engine->deleteLater();
            continue;
        }
        ++s.accepted;
        auto stream = std::make_unique<Stream>();
        stream->slot = slot;
        stream->life = *life;
        stream->engine = engine;
        engine->setParent(nullptr);
        stream->tor = tor.release();
        // No Nagle on either leg: a chunk released on time must not wait for the ACK of the one
        // before (up to 40 ms with delayed ACKs). A TCP tor leg gets it once it has connected
        // (connectToTor); Qt drops options set earlier.
        engine->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        Stream* raw = stream.get();
        connect(engine, &QTcpSocket::readyRead, this, [this, raw] { onEngineData(raw); });
        connect(stream->tor, &QTcpSocket::readyRead, this, [this, raw] { onTorData(raw); });
        connect(engine, &QTcpSocket::disconnected, this,
                [this, raw] { closeStream(raw, Close::Drain); });
        connect(stream->tor, &QTcpSocket::disconnected, this,
                [this, raw] { closeStream(raw, Close::Drain); });
        connect(stream->tor, &QTcpSocket::errorOccurred, this, [this, raw](auto error) {
            if (error != QAbstractSocket::RemoteHostClosedError)
                closeStream(raw, Close::Abort);
        });
        streams_.push_back(std::move(stream));
        onEngineData(raw);
    }
    reschedule();
}

void LinkImpairer::onEngineData(Stream* stream) {
    QByteArray bytes = stream->engine->readAll();
    if (bytes.isEmpty())
        return;
    // The SOCKS requests pass at once, and so does the link's Hello or Join that follows its
    // CONNECT before tor answers (OnionLink's first record): one record per link, not delayed.
    if (stream->phase == Phase::Socks)
        stream->tor->write(bytes);
    else if (stream->phase == Phase::Relaying)
        enqueue(stream, sim::Direction::AtoB, std::move(bytes));
}

void LinkImpairer::onTorData(Stream* stream) {
    QByteArray bytes = stream->tor->readAll();
    if (bytes.isEmpty())
        return;
    if (stream->phase == Phase::Socks) {
        stream->socksReply += bytes;
        parseSocksReply(stream);
    } else if (stream->phase == Phase::Relaying) {
        enqueue(stream, sim::Direction::BtoA, std::move(bytes));
    }
}

// Tor's side of SOCKS5 with username/password: method choice (2 bytes), authentication status
// (2, only for method 2), CONNECT reply (4-byte head, then an address by its type, then a port).
// What follows the reply is the peer's data and is delayed.
void LinkImpairer::parseSocksReply(Stream* stream) {
    QByteArray& in = stream->socksReply;
    qsizetype used = 0;
    const auto take = [&](qsizetype n) {
        if (in.size() - used < n)
            return false;
        stream->engine->write(in.mid(used, n));
        used += n;
        return true;
    };
    for (bool progress = true; progress && stream->phase == Phase::Socks;) {
        switch (stream->step) {
        case SocksStep::Method:
            progress = in.size() - used >= 2;
            if (progress) {
                const bool auth = std::uint8_t(in[used + 1]) == 0x02;
                take(2);
                stream->step = auth ? SocksStep::Auth : SocksStep::ReplyHead;
            }
            break;
        case SocksStep::Auth:
            progress = take(2);
            if (progress)
                stream->step = SocksStep::ReplyHead;
            break;
        case SocksStep::ReplyHead:
            progress = in.size() - used >= 5;
            if (progress)
                stream->step = SocksStep::ReplyAddress;
            break;
        case SocksStep::ReplyAddress: {
            const std::uint8_t type = std::uint8_t(in[used + 3]);
            const qsizetype address = type == 0x01   ? 4
                                      : type == 0x04 ? 16
                                                     : 1 + std::uint8_t(in[used + 4]);
            progress = take(4 + address + 2);
            if (progress)
                stream->phase = Phase::Relaying;
            break;
        }
        }
    }
    in.remove(0, used);
    if (stream->phase == Phase::Relaying && !in.isEmpty()) {
        QByteArray rest = std::move(in);
        in.clear();
        enqueue(stream, sim::Direction::BtoA, std::move(rest));
    }
}

void LinkImpairer::enqueue(Stream* stream, sim::Direction direction, QByteArray bytes) {
    const auto now = Clock::now();
    SlotState& slot = slots_[std::size_t(stream->slot)];
    const auto& life = trace_.bySlot[std::size_t(stream->slot)][stream->life];
    double delayMs = life.delayAt(direction, traceMs(now));
    std::erase_if(slot.spikes, [now](const Spike& s) { return s.until <= now; });
    for (const Spike& s : slot.spikes)
        delayMs += double(s.extra.count());
    // The trace and each spike are bounded where they are read, but spikes add up: a clamp keeps
    // the conversion to the clock's 64-bit nanoseconds defined however many there are (held two
    // days is held for good).
    const auto release =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(
                  std::clamp(delayMs, 0.0, sim::kMaxTraceTimeMs)));
    Pipe& pipe = direction == sim::Direction::AtoB ? stream->ab : stream->ba;
    (direction == sim::Direction::AtoB ? slot.bytesAb : slot.bytesBa) +=
        std::uint64_t(bytes.size());
    pipe.bytes += std::uint64_t(bytes.size());
    pipe.queue.push_back({release, std::move(bytes)});
    if (pipe.queue.size() == 1)
        reschedule();
}

void LinkImpairer::release() {
    const auto now = Clock::now();
    for (const auto& s : streams_) {
        for (auto [pipe, out] : {std::pair{&s->ab, s->tor}, std::pair{&s->ba, s->engine}}) {
            // Only the head may go: order within a stream is kept (head-of-line blocking).
            while (!pipe->queue.empty() && pipe->queue.front().release <= now) {
                out->write(pipe->queue.front().bytes);
                const auto due = std::max(pipe->queue.front().release, pipe->lastDue);
                pipe->lastDue = due;
                if (lateness_.size() == kLatenessSamples)
                    lateness_.erase(lateness_.begin(), lateness_.begin() + kLatenessSamples / 2);
                lateness_.push_back(std::chrono::duration<double, std::milli>(now - due).count());
                pipe->queue.pop_front();
            }
        }
    }
    // Links of the trace that break now take their streams with them; drained streams close.
    const double t = traceMs(now);
    for (std::size_t i = 0; i < streams_.size();) {
        Stream* s = streams_[i].get();
        const auto& life = trace_.bySlot[std::size_t(s->slot)][s->life];
        if (life.downMs && t >= *life.downMs) {
            ++slots_[std::size_t(s->slot)].closedByTrace;
            closeStream(s, Close::Abort); // erases it
        } else if (s->phase == Phase::Draining && s->ab.queue.empty() && s->ba.queue.empty()) {
            closeStream(s, Close::Drain);
        } else {
            ++i;
        }
    }
    reschedule();
}

void LinkImpairer::reschedule() {
    std::optional<Clock::time_point> next;
    const auto consider = [&next](Clock::time_point t) {
        if (!next || t < *next)
            next = t;
    };
    for (const auto& s : streams_) {
        if (!s->ab.queue.empty())
            consider(s->ab.queue.front().release);
        if (!s->ba.queue.empty())
            consider(s->ba.queue.front().release);
        const auto& life = trace_.bySlot[std::size_t(s->slot)][s->life];
        if (life.downMs && start_.load() != 0)
            consider(traceStart() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double, std::milli>(*life.downMs)));
    }
    if (!next) {
        timer_.stop();
        return;
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now());
    timer_.start(std::max(0ms, wait));
}

void LinkImpairer::closeStream(Stream* stream, Close how) {
    const auto it = std::find_if(streams_.begin(), streams_.end(),
                                 [stream](const auto& s) { return s.get() == stream; });
    if (it == streams_.end())
        return;
    if (how == Close::Drain && (!stream->ab.queue.empty() || !stream->ba.queue.empty())) {
        stream->phase = Phase::Draining; // release() closes it once the queues are empty
        return;
    }
    std::unique_ptr<Stream> owned = std::move(*it);
    streams_.erase(it);
    for (QTcpSocket* socket : {owned->engine, owned->tor}) {
        socket->disconnect(this);
        if (how == Close::Abort)
            socket->abort();
        else
            socket->disconnectFromHost(); // after what was written has been sent
        if (socket->state() == QAbstractSocket::UnconnectedState)
            socket->deleteLater();
        else
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }
}

void LinkImpairer::closeSlot(int slot) {
    for (std::size_t i = 0; i < streams_.size();) {
        if (streams_[i]->slot == slot) {
            ++slots_[std::size_t(slot)].closedByControl;
            closeStream(streams_[i].get(), Close::Abort);
        } else {
            ++i;
        }
    }
}

void LinkImpairer::breakSlots(const std::vector<int>& targets, std::chrono::milliseconds holdDown) {
    const auto now = Clock::now();
    for (const int slot : targets) {
        if (slot < 0 || std::size_t(slot) >= slots_.size())
            continue;
        slots_[std::size_t(slot)].heldDownUntil = now + holdDown;
        closeSlot(slot);
    }
    reschedule();
}

void LinkImpairer::addDelay(int slot, std::chrono::milliseconds extra,
                            std::chrono::milliseconds duration) {
    if (slot < 0 || std::size_t(slot) >= slots_.size())
        return;
    slots_[std::size_t(slot)].spikes.push_back({Clock::now() + duration, extra});
}

QJsonObject LinkImpairer::statistics() const {
    const auto now = Clock::now();
    const double t = traceMs(now);
    QJsonArray perSlot;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        const SlotState& s = slots_[i];
        int open = 0;
        std::size_t queued = 0;
        for (const auto& stream : streams_) {
            if (stream->slot == int(i)) {
                ++open;
                queued += stream->ab.queue.size() + stream->ba.queue.size();
            }
        }
        const auto life = lifeAt(int(i), t);
        double extra = 0;
        for (const Spike& spike : s.spikes)
            extra += spike.until > now ? double(spike.extra.count()) : 0.0;
        QJsonObject o{{"slot", int(i)},
                      {"trace_state", life ? "up" : "down"},
                      {"held_down", now < s.heldDownUntil},
                      {"streams", open},
                      {"queued_chunks", double(queued)},
                      {"accepted", double(s.accepted)},
                      {"refused", double(s.refused)},
                      {"closed_by_trace", double(s.closedByTrace)},
                      {"closed_by_control", double(s.closedByControl)},
                      {"bytes_ab", double(s.bytesAb)},
                      {"bytes_ba", double(s.bytesBa)},
                      {"extra_delay_ms", extra}};
        if (life) {
            const auto& l = trace_.bySlot[i][*life];
            o.insert("delay_ab_ms", l.delayAt(sim::Direction::AtoB, t));
            o.insert("delay_ba_ms", l.delayAt(sim::Direction::BtoA, t));
        }
        perSlot.append(o);
    }
    return {{"t_ms", t},
            {"slots", perSlot},
            {"release_late_p50_ms", percentile(lateness_, 50)},
            {"release_late_p95_ms", percentile(lateness_, 95)},
            {"release_late_max_ms",
             lateness_.empty() ? 0.0 : *std::max_element(lateness_.begin(), lateness_.end())}};
}

} // namespace onionvoice::cli
