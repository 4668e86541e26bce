// LD_PRELOAD library for tests/faults: a process stopped with SIGSTOP sees its CLOCK_MONOTONIC
// run on through the stop, but a machine that really suspends stops that clock (CLOCK_BOOTTIME
// and the wall clock go on). With this library loaded, CLOCK_MONOTONIC (and _RAW, _COARSE) run
// behind the real clock by the nanoseconds held in the file named by ONIONVOICE_SUSPEND_CLOCK (an
// 8-byte native integer). The harness adds the length of each stop to it before SIGCONT, so the
// process, and its tor (children inherit LD_PRELOAD), resume as after a real suspend. Without the
// variable, or with a file that cannot be mapped, the clocks are untouched.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec*);

static clock_gettime_fn real_clock_gettime;
static volatile int64_t* behind_ns; // mapped from the file; NULL: no offset

__attribute__((constructor)) static void suspendclock_init(void) {
    real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    const char* path = getenv("ONIONVOICE_SUSPEND_CLOCK");
    if (!path)
        return;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    void* map = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map != MAP_FAILED)
        behind_ns = (volatile int64_t*)map;
}

int clock_gettime(clockid_t clock, struct timespec* tp) {
    if (!real_clock_gettime)
        real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    const int result = real_clock_gettime(clock, tp);
    if (result != 0 || !behind_ns ||
        (clock != CLOCK_MONOTONIC && clock != CLOCK_MONOTONIC_RAW &&
         clock != CLOCK_MONOTONIC_COARSE))
        return result;
    const int64_t ns = (int64_t)tp->tv_sec * 1000000000 + tp->tv_nsec - *behind_ns;
    tp->tv_sec = ns / 1000000000;
    tp->tv_nsec = ns % 1000000000;
    return 0;
}
