// Helper of tst_suspendedtimeout: arms a SleepAwareTimer (the dial and ring timeouts' timer) for
// the milliseconds given, says "armed", and when it fires prints how long it ran on the clock
// that stops in a suspend (CLOCK_MONOTONIC, what a QTimer follows) and on the one that does not.
#include "call/SleepAwareTimer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 2)
        return 2;
    using namespace onionvoice::call;
    QElapsedTimer monotonic; // CLOCK_MONOTONIC on Linux
    monotonic.start();
    const auto boot = SleepCountingClock::now();
    SleepAwareTimer timer;
    QObject::connect(&timer, &SleepAwareTimer::timeout, &app, [&] {
        const auto ranMs =
            std::chrono::duration_cast<std::chrono::milliseconds>(SleepCountingClock::now() - boot);
        std::printf("fired %lld %lld\n", static_cast<long long>(monotonic.elapsed()),
                    static_cast<long long>(ranMs.count()));
        std::fflush(stdout);
        app.quit();
    });
    timer.start(std::chrono::milliseconds(std::atoll(argv[1])));
    std::printf("armed\n");
    std::fflush(stdout);
    return app.exec();
}
