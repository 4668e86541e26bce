// Line protocol of the impairment relay's control socket (see ImpairControl.h).
#include "ImpairControl.h"

#include "LinkImpairer.h"

#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>

namespace onionvoice::cli {
namespace {

constexpr qsizetype kMaxLine = 4096;
constexpr const char* kHelp = "commands: break SLOT... [for SECONDS] | delay SLOT MS SECONDS | "
                              "stats | help";

std::optional<int> number(const QByteArray& word) {
    bool ok = false;
    const int n = word.toInt(&ok);
    return ok && n >= 0 ? std::optional<int>(n) : std::nullopt;
}

std::optional<double> seconds(const QByteArray& word) {
    bool ok = false;
    const double s = word.toDouble(&ok);
    return ok && s >= 0 && s < 86400 ? std::optional<double>(s) : std::nullopt;
}

std::chrono::milliseconds millis(double seconds) {
    return std::chrono::milliseconds(qint64(seconds * 1000));
}

} // namespace

ImpairControl::ImpairControl(LinkImpairer* impairer, QObject* parent)
    : QObject(parent)
    , impairer_(impairer) {}

ImpairControl::~ImpairControl() = default;

bool ImpairControl::listen(const QString& path, QString* error) {
    server_ = std::make_unique<QLocalServer>();
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    QLocalServer::removeServer(path); // a stale socket file of an earlier run
    if (!server_->listen(path)) {
        *error = QStringLiteral("--impair-control %1: %2").arg(path, server_->errorString());
        return false;
    }
    connect(server_.get(), &QLocalServer::newConnection, this, &ImpairControl::onConnection);
    return true;
}

void ImpairControl::onConnection() {
    while (QLocalSocket* socket = server_->nextPendingConnection()) {
        socket->setParent(this);
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            while (socket->canReadLine()) {
                const QByteArray line = socket->readLine(kMaxLine).trimmed();
                if (!line.isEmpty())
                    socket->write(execute(line) + '\n');
            }
            if (socket->bytesAvailable() > kMaxLine) {
                socket->write("error line too long\n");
                socket->disconnectFromServer();
            }
        });
    }
}

QByteArray ImpairControl::execute(const QByteArray& line) {
    const QList<QByteArray> words = line.simplified().split(' ');
    const QByteArray command = words.value(0);
    if (command == "help")
        return kHelp;
    if (command == "stats")
        return QJsonDocument(impairer_->statistics()).toJson(QJsonDocument::Compact);
    if (command == "break") {
        std::vector<int> targets;
        std::chrono::milliseconds hold{0};
        for (qsizetype i = 1; i < words.size(); ++i) {
            if (words[i] == "for") {
                const auto s = seconds(words.value(i + 1));
                if (!s || i + 2 != words.size())
                    return "error break: 'for' needs SECONDS at the end";
                hold = millis(*s);
                break;
            }
            const auto slot = number(words[i]);
            if (!slot || *slot >= impairer_->slotCount())
                return "error break: no slot " + words[i];
            targets.push_back(*slot);
        }
        if (targets.empty())
            return "error break: which slots?";
        impairer_->breakSlots(targets, hold);
        return "ok";
    }
    if (command == "delay") {
        const auto slot = number(words.value(1));
        const auto ms = number(words.value(2));
        const auto s = seconds(words.value(3));
        if (words.size() != 4 || !slot || !ms || !s)
            return "error usage: delay SLOT MS SECONDS";
        if (*slot >= impairer_->slotCount())
            return "error delay: no slot " + words[1];
        // The trace's own limit: spikes add up, and their sum must stay far from what the
        // relay's nanosecond clock can hold (9.2e12 ms).
        if (*ms > sim::kMaxTraceDelayMs)
            return "error delay: MS is at most " +
                   QByteArray::number(qint64(sim::kMaxTraceDelayMs));
        impairer_->addDelay(*slot, std::chrono::milliseconds(*ms), millis(*s));
        return "ok";
    }
    return QByteArray("error unknown command; ") + kHelp;
}

} // namespace onionvoice::cli
