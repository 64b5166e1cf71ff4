/* no_pmix.c — built instead of pmix.c when libpmix-dev was not found, so
 * boot.c can say exactly that to a process started by a PMIx launcher. */
#include "boot/backend.h"

const struct fm_boot_ops *const fm_boot_pmix_ops = 0;
