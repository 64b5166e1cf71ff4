/* log.h — messages on stderr, prefixed "fabmpi[rank]:". */
#ifndef FM_UTIL_LOG_H
#define FM_UTIL_LOG_H

#include "util/param.h"

/* World rank used in prefixes; -1 until the bootstrap knows it. */
extern int fm_log_rank;
/* Error lines printed so far: lets a caller that only has a status code
 * tell whether the cause was already explained. */
extern unsigned fm_log_errors;

void fm_log_print(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Log at verbosity `lvl` (1 setup, 2 protocol, 3 trace) when FABMPI_VERBOSE >= lvl. */
#define fm_log(lvl, ...) \
    do { if (fm_param.VERBOSE >= (lvl)) fm_log_print("info", __VA_ARGS__); } while (0)
#define fm_warn(...) fm_log_print("warning", __VA_ARGS__)
#define fm_error_msg(...) fm_log_print("error", __VA_ARGS__)

#endif
