/* log.c — one writer for every diagnostic so lines never interleave mid-line. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int fm_log_rank = -1;
unsigned fm_log_errors;

void fm_log_print(const char *level, const char *fmt, ...)
{
    char line[2048];
    int n;
    if (!strcmp(level, "error"))
        fm_log_errors++;
    if (fm_log_rank >= 0)
        n = snprintf(line, sizeof line, "fabmpi[%d] %s: ", fm_log_rank, level);
    else
        n = snprintf(line, sizeof line, "fabmpi %s: ", level);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n); /* one write: atomic line */
    (void)w;
}
