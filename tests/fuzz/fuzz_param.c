/* fuzz_param.c — the FABMPI_* knob parser (src/util/param.c) on arbitrary
 * environment values.
 *
 * Input: up to 4 records [knob index byte][value bytes][NUL].  Each sets
 * FABMPI_<knob>=<value> (putenv on our own buffer, so nothing accumulates in
 * libc), then fm_param_load() parses the whole table exactly as MPI_Init
 * does.  Checked: a refusal says which variable it refused; an accepted ring
 * size is a power of two (the ring masks its indices). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "util/param.h"
#include "util/status.h"

#define NAME_OF(name, ...) "FABMPI_" #name,
static const char *const knobs[] = {FM_PARAMS(NAME_OF)};
#undef NAME_OF
#define NKNOBS (sizeof knobs / sizeof knobs[0])

#define SLOTS 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    for (size_t k = 0; k < NKNOBS; k++) /* only what the input sets */
        unsetenv(knobs[k]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char env[SLOTS][640];
    const char *set[SLOTS];
    int nset = 0;
    fz_in in = {data, size};
    while (nset < SLOTS && !fz_empty(&in)) {
        const char *name = knobs[fz_below(&in, NKNOBS)];
        char value[512];
        fz_str(&in, value, sizeof value);
        snprintf(env[nset], sizeof env[nset], "%s=%s", name, value);
        putenv(env[nset]);
        set[nset++] = name;
    }
    char err[512] = "";
    fm_param_reset();
    int rc = fm_param_load(err, sizeof err);
    if (rc == FM_OK) {
        size_t ring = fm_param.SHM_RING_SIZE;
        if (ring & (ring - 1))
            abort();
    } else if (rc != FM_ERR_PARAM || strncmp(err, "FABMPI_", 7)) {
        abort(); /* a default that does not parse, or a message naming nothing */
    }
    for (int i = 0; i < nset; i++)
        unsetenv(set[i]);
    return 0;
}
