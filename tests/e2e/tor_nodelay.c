/* LD_PRELOAD library for the private network's tor processes: TCP_NODELAY on every socket they
 * connect or accept. Tor never sets it, so on loopback a cell waits (Nagle) for the ACK of the
 * previous write, which the receiving tor's delayed ACK holds up to 40 ms: about one record in
 * ten on every link arrived 20-50 ms late end to end, noise the replayed trace does not contain
 * (a trace already carries the real network's delays). tests/e2e/README.md has the measurement. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

typedef int (*connect_fn)(int, const struct sockaddr*, socklen_t);
typedef int (*accept4_fn)(int, struct sockaddr*, socklen_t*, int);

/* Fails harmlessly on sockets that are not TCP (unix, UDP). */
static void no_delay(int fd) {
    const int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

int connect(int fd, const struct sockaddr* address, socklen_t length) {
    static connect_fn real;
    if (!real)
        real = (connect_fn)dlsym(RTLD_NEXT, "connect");
    no_delay(fd);
    return real(fd, address, length);
}

int accept4(int fd, struct sockaddr* address, socklen_t* length, int flags) {
    static accept4_fn real;
    if (!real)
        real = (accept4_fn)dlsym(RTLD_NEXT, "accept4");
    const int accepted = real(fd, address, length, flags);
    if (accepted >= 0)
        no_delay(accepted);
    return accepted;
}

int accept(int fd, struct sockaddr* address, socklen_t* length) {
    return accept4(fd, address, length, 0);
}
