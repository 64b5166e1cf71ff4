/* no_pmi2.c — built instead of pmi2.c when libpmi2 was not found, so boot.c
 * can say exactly that to a process started by a PMI launcher. */
#include "boot/backend.h"

const struct fm_boot_ops *const fm_boot_pmi2_ops = 0;
