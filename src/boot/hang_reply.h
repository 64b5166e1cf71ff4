/* hang_reply.h — the rank's side of mpiexec's hang report (wire.h). */
#ifndef FM_BOOT_HANG_REPLY_H
#define FM_BOOT_HANG_REPLY_H

#include <signal.h>

/* Answer FM_WIRE_HANG_SIGNAL with a HANG message on `fd`. */
void fm_boot_hang_reply_install(int fd);
/* Stop answering (the socket is about to close). */
void fm_boot_hang_reply_stop(void);
/* Non-zero while the main thread writes its own message to the socket. */
extern volatile sig_atomic_t fm_boot_hang_busy;

#endif
