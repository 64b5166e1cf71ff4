/* hang_reply.c — answers mpiexec's hang-report signal with a HANG message on
 * the bootstrap socket (wire.h).  Only the mpiexec backend installs it.
 *
 * Everything here runs in a signal handler: snapshot (plain loads), byte
 * packing and send(2); no locks, no allocation, no stdio. */
#include "boot/hang_reply.h"
#include "boot/wire.h"
#include "boot/hang.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>

static volatile sig_atomic_t reply_fd = -1;
volatile sig_atomic_t fm_boot_hang_busy;

static void on_hang_signal(int sig)
{
    (void)sig;
    int fd = reply_fd, e = errno;
    /* The main thread is mid-way through a message of its own on this
     * socket: ours would split it.  mpiexec reports "no answer". */
    if (fd < 0 || fm_boot_hang_busy)
        return;
    struct fm_hang_snap s;
    fm_hang_snapshot(&s);
    unsigned char m[FM_WIRE_HDR + FM_WIRE_HANG_LEN];
    memset(m, 0, sizeof m);
    unsigned long long count = (unsigned long long)s.count;
    fm_wire_put_u32(m, FM_WIRE_HANG);
    fm_wire_put_u32(m + 4, FM_WIRE_HANG_LEN);
    fm_wire_put_u32(m + 8, (uint32_t)s.active);
    fm_wire_put_u32(m + 12, (uint32_t)s.peer);
    fm_wire_put_u32(m + 16, (uint32_t)s.tag);
    fm_wire_put_u32(m + 20, (uint32_t)count);
    fm_wire_put_u32(m + 24, (uint32_t)(count >> 32));
    fm_wire_put_u32(m + 28, (uint32_t)(s.ms < 0 ? 0 : s.ms));
    memcpy(m + 32, s.call, sizeof s.call < FM_WIRE_HANG_CALL ? sizeof s.call : FM_WIRE_HANG_CALL);
    memcpy(m + 32 + FM_WIRE_HANG_CALL, s.comm, sizeof s.comm < FM_WIRE_HANG_COMM ? sizeof s.comm : FM_WIRE_HANG_COMM);
    size_t off = 0;
    while (off < sizeof m) {
        ssize_t n = send(fd, m + off, sizeof m - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* a full socket: mpiexec reports no answer, which it is */
        off += (size_t)n;
    }
    errno = e;
}

void fm_boot_hang_reply_install(int fd)
{
    reply_fd = fd;
    struct sigaction sa = {.sa_handler = on_hang_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(FM_WIRE_HANG_SIGNAL, &sa, NULL);
}

void fm_boot_hang_reply_stop(void)
{
    reply_fd = -1;
}
