// Self-pipe signal handling for SIGINT and SIGTERM.
#include "InterruptWatcher.h"

#include <csignal>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace onionvoice::app {
namespace {

int g_pipe[2] = {-1, -1}; // one watcher per process

void onSignal(int) {
    const char byte = 1;
    [[maybe_unused]] const auto n = ::write(g_pipe[1], &byte, 1); // async-signal-safe
}

} // namespace

InterruptWatcher::InterruptWatcher(QObject* parent)
    : QObject(parent) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, g_pipe) != 0)
        qFatal("socketpair failed");
    notifier_ = std::make_unique<QSocketNotifier>(g_pipe[0], QSocketNotifier::Read);
    connect(notifier_.get(), &QSocketNotifier::activated, this, &InterruptWatcher::onReadable);
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

InterruptWatcher::~InterruptWatcher() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    notifier_.reset();
    ::close(g_pipe[0]);
    ::close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
}

void InterruptWatcher::onReadable() {
    // One byte per signal: two Ctrl-C that came before the event loop looked are two, not one
    // read, or the second would not end the program at once.
    char buffer[16];
    for (ssize_t n; (n = ::read(g_pipe[0], buffer, sizeof buffer)) > 0;)
        count_ += int(n);
    emit interrupted(count_);
}

} // namespace onionvoice::app
