/* param.c — parse, print and document the FABMPI_* knob table, and hand
 * its rows to the MPI_T control variables (src/mpi/mpit_cvar.c). */
#include "util/param.h"
#include "util/status.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fm_params fm_param;

#define FM_PARAM_DESC(name, type, def, acc, cat, verb, scope, set, doc)                         \
    {#name, FM_PARAM_##type, def, acc, FM_CAT_##cat, FM_VERB_##verb, FM_SCOPE_##scope,          \
     FM_SET_##set, doc, &fm_param.name, FM_PARAM_FROM_DEFAULT},
static struct fm_param_desc descs[] = {FM_PARAMS(FM_PARAM_DESC)};
#undef FM_PARAM_DESC
#define NDESCS (sizeof descs / sizeof descs[0])

/* Strings MPI_T wrote (the environment's stay where getenv keeps them). */
static char *owned[NDESCS];

static int loaded;

const char *fm_env_raw(const char *name) { return getenv(name); }

/* "lo..hi" with optional k/m/g suffixes on either bound. */
static long long parse_bound(const char *s, char **end)
{
    long long v = strtoll(s, end, 10);
    if (**end == 'k') v *= 1024, (*end)++;
    else if (**end == 'm') v *= 1024 * 1024, (*end)++;
    else if (**end == 'g') v *= 1024LL * 1024 * 1024, (*end)++;
    return v;
}

/* ACCEPTED of an INT or SIZE knob: "lo..hi", optionally followed by
 * POW2_SUFFIX when only powers of two make sense (the ring sizes: their
 * indices wrap by masking). */
#define POW2_SUFFIX ", power of two"

static int parse_range(const char *acc, long long *lo, long long *hi, int *pow2)
{
    char *end;
    *lo = parse_bound(acc, &end);
    if (end[0] != '.' || end[1] != '.')
        return 0;
    *hi = parse_bound(end + 2, &end);
    *pow2 = !strcmp(end, POW2_SUFFIX);
    return 1;
}

static int parse_size(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno)
        return 0;
    long long mult = 1;
    if (*end == 'k' || *end == 'K') mult = 1024, end++;
    else if (*end == 'm' || *end == 'M') mult = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G') mult = 1024LL * 1024 * 1024, end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end)
        return 0;
    /* "-1k" or "9999999999999g" would wrap into some range's middle. */
    if (v < 0 || v > LLONG_MAX / mult)
        return 0;
    *out = v * mult;
    return 1;
}

static int parse_bool(const char *s, int *out)
{
    static const char *yes[] = {"1", "yes", "on", "true", "y"};
    static const char *no[] = {"0", "no", "off", "false", "n"};
    for (size_t i = 0; i < 5; i++) {
        if (!strcasecmp(s, yes[i])) { *out = 1; return 1; }
        if (!strcasecmp(s, no[i])) { *out = 0; return 1; }
    }
    return 0;
}

static int parse_enum(const char *s, const char *acc, int *out)
{
    int idx = 0;
    size_t n = strlen(s);
    for (const char *p = acc; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncasecmp(p, s, n)) { *out = idx; return 1; }
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

/* v against an INT or SIZE knob's ACCEPTED range (and power of two);
 * `value` is how the user wrote it, for the message. */
static int check_number(const struct fm_param_desc *d, long long v, const char *value, char *err,
                        size_t errlen)
{
    long long lo, hi;
    int pow2 = 0;
    if (parse_range(d->accepted, &lo, &hi, &pow2) && (v < lo || v > hi)) {
        snprintf(err, errlen, "FABMPI_%s=%s: out of range; accepted: %s%s", d->name, value,
                 d->type == FM_PARAM_SIZE ? "a byte count " : "an integer ", d->accepted);
        return 0;
    }
    if (pow2 && (v & (v - 1))) {
        long long below = 1;
        while (below * 2 < v) below *= 2;
        snprintf(err, errlen, "FABMPI_%s=%s: not a power of two (nearest: %lld or %lld); accepted: %s%s",
                 d->name, value, below, below * 2,
                 d->type == FM_PARAM_SIZE ? "a byte count " : "an integer ", d->accepted);
        return 0;
    }
    return 1;
}

/* Store `value` for descriptor d; returns 0 and explains in err on failure. */
static int set_value(struct fm_param_desc *d, const char *value, char *err, size_t errlen)
{
    long long v;
    int b;
    switch (d->type) {
    case FM_PARAM_INT:
    case FM_PARAM_SIZE: {
        int ok;
        if (d->type == FM_PARAM_INT) {
            char *end;
            errno = 0;
            v = strtoll(value, &end, 10);
            ok = end != value && !*end && !errno;
        } else {
            ok = parse_size(value, &v);
        }
        if (ok && !check_number(d, v, value, err, errlen))
            return 0;
        if (!ok) {
            snprintf(err, errlen, "FABMPI_%s=%s: not %s; accepted: %s%s", d->name, value,
                     d->type == FM_PARAM_SIZE ? "a byte count" : "an integer",
                     d->type == FM_PARAM_SIZE ? "a byte count (suffix k, m or g allowed) in " : "an integer in ",
                     d->accepted);
            return 0;
        }
        if (d->type == FM_PARAM_INT) *(long *)d->field = (long)v;
        else *(size_t *)d->field = (size_t)v;
        return 1;
    }
    case FM_PARAM_BOOL:
        if (!parse_bool(value, &b)) {
            snprintf(err, errlen, "FABMPI_%s=%s: not a boolean; accepted: 1, 0, yes, no, on, off, true, false",
                     d->name, value);
            return 0;
        }
        *(int *)d->field = b;
        return 1;
    case FM_PARAM_ENUM:
        if (!parse_enum(value, d->accepted, &b)) {
            snprintf(err, errlen, "FABMPI_%s=%s: unknown value; accepted: %s", d->name, value, d->accepted);
            return 0;
        }
        *(int *)d->field = b;
        return 1;
    case FM_PARAM_STR:
        *(const char **)d->field = value;
        return 1;
    }
    return 0;
}

int fm_param_load(char *err, size_t errlen)
{
    if (loaded)
        return FM_OK;
    char dummy[8];
    if (!err) { err = dummy; errlen = sizeof dummy; }
    for (size_t i = 0; i < NDESCS; i++) {
        struct fm_param_desc *d = &descs[i];
        if (!set_value(d, d->def, err, errlen))
            return FM_ERR_INTERN; /* a default that does not parse is our bug */
        char var[96];
        snprintf(var, sizeof var, "FABMPI_%s", d->name);
        const char *value = getenv(var);
        d->origin = FM_PARAM_FROM_DEFAULT;
        if (value) {
            if (!set_value(d, value, err, errlen))
                return FM_ERR_PARAM;
            d->origin = FM_PARAM_FROM_ENV;
        }
    }
    loaded = 1;
    return FM_OK;
}

void fm_param_reset(void) { loaded = 0; }

int fm_param_count(void) { return (int)NDESCS; }

int fm_param_is_default(const void *field)
{
    for (size_t i = 0; i < NDESCS; i++)
        if (descs[i].field == field)
            return descs[i].origin == FM_PARAM_FROM_DEFAULT;
    return 0;
}

const struct fm_param_desc *fm_param_desc(int i)
{
    return i >= 0 && (size_t)i < NDESCS ? &descs[i] : NULL;
}

int fm_param_enum_count(const struct fm_param_desc *d)
{
    if (d->type != FM_PARAM_ENUM)
        return 0;
    int n = 1;
    for (const char *p = d->accepted; (p = strchr(p, '|')); p++)
        n++;
    return n;
}

int fm_param_enum_name(const struct fm_param_desc *d, int idx, char *buf, size_t len)
{
    if (idx < 0 || idx >= fm_param_enum_count(d))
        return -1;
    const char *p = d->accepted;
    for (int i = 0; i < idx; i++)
        p = strchr(p, '|') + 1;
    int n = (int)strcspn(p, "|");
    if (len)
        snprintf(buf, len, "%.*s", n, p);
    return n;
}

unsigned long fm_param_writes;

int fm_param_set_number(int i, long long v, char *err, size_t errlen)
{
    struct fm_param_desc *d = i >= 0 && (size_t)i < NDESCS ? &descs[i] : NULL;
    char text[32];
    snprintf(text, sizeof text, "%lld", v);
    if (!d || d->type == FM_PARAM_STR) {
        snprintf(err, errlen, "not a numeric knob");
        return FM_ERR_ARG;
    }
    switch (d->type) {
    case FM_PARAM_INT:
    case FM_PARAM_SIZE:
        if (d->type == FM_PARAM_SIZE && v < 0) {
            snprintf(err, errlen, "FABMPI_%s=%s: out of range; accepted: a byte count %s", d->name,
                     text, d->accepted);
            return FM_ERR_ARG;
        }
        if (!check_number(d, v, text, err, errlen))
            return FM_ERR_ARG;
        if (d->type == FM_PARAM_INT) *(long *)d->field = (long)v;
        else *(size_t *)d->field = (size_t)v;
        break;
    case FM_PARAM_BOOL:
        if (v != 0 && v != 1) {
            snprintf(err, errlen, "FABMPI_%s=%s: not a boolean; accepted: 0 or 1", d->name, text);
            return FM_ERR_ARG;
        }
        *(int *)d->field = (int)v;
        break;
    case FM_PARAM_ENUM:
        if (v < 0 || v >= fm_param_enum_count(d)) {
            snprintf(err, errlen, "FABMPI_%s=%s: no such item; accepted: 0..%d (%s)", d->name, text,
                     fm_param_enum_count(d) - 1, d->accepted);
            return FM_ERR_ARG;
        }
        *(int *)d->field = (int)v;
        break;
    default:
        break;
    }
    d->origin = FM_PARAM_FROM_MPIT;
    fm_param_writes++;
    return FM_OK;
}

int fm_param_set_string(int i, const char *s, char *err, size_t errlen)
{
    struct fm_param_desc *d = i >= 0 && (size_t)i < NDESCS ? &descs[i] : NULL;
    if (!d || d->type != FM_PARAM_STR) {
        snprintf(err, errlen, "not a string knob");
        return FM_ERR_ARG;
    }
    char *copy = strdup(s);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return FM_ERR_NOMEM;
    }
    free(owned[i]);
    owned[i] = copy;
    *(const char **)d->field = copy;
    d->origin = FM_PARAM_FROM_MPIT;
    fm_param_writes++;
    return FM_OK;
}

const char *fm_param_verbosity_name(enum fm_param_verbosity v)
{
    static const char *const names[] = {"user basic", "user detail", "user all",
                                        "tuner basic", "tuner detail", "tuner all",
                                        "mpidev basic", "mpidev detail", "mpidev all"};
    return names[v];
}

const char *fm_param_scope_name(enum fm_param_scope s)
{
    static const char *const names[] = {"constant", "local", "all_eq"};
    return names[s];
}

const char *fm_param_set_name(enum fm_param_set s)
{
    static const char *const names[] = {"never", "before MPI_Init", "any time"};
    return names[s];
}

const char *fm_category_name(enum fm_category c)
{
#define FM_CATEGORY_NAME(name, parent, desc) #name,
    static const char *const names[] = {FM_CATEGORIES(FM_CATEGORY_NAME)};
#undef FM_CATEGORY_NAME
    return c >= 0 && c < FM_NCATEGORIES ? names[c] : "";
}

void fm_param_format(const struct fm_param_desc *d, char *buf, size_t len)
{
    switch (d->type) {
    case FM_PARAM_INT: snprintf(buf, len, "%ld", *(long *)d->field); break;
    case FM_PARAM_SIZE: snprintf(buf, len, "%zu", *(size_t *)d->field); break;
    case FM_PARAM_BOOL: snprintf(buf, len, "%d", *(int *)d->field); break;
    case FM_PARAM_ENUM: {
        int idx = *(int *)d->field;
        const char *p = d->accepted;
        for (int i = 0; i < idx && p; i++) {
            p = strchr(p, '|');
            if (p) p++;
        }
        size_t n = p ? strcspn(p, "|") : 0;
        snprintf(buf, len, "%.*s", (int)n, p ? p : "");
        break;
    }
    case FM_PARAM_STR: snprintf(buf, len, "%s", *(const char **)d->field); break;
    }
}

static const char *type_name(enum fm_param_type t)
{
    static const char *names[] = {"int", "size", "bool", "enum", "string"};
    return names[t];
}

void fm_param_print(FILE *out)
{
    for (size_t i = 0; i < NDESCS; i++) {
        const struct fm_param_desc *d = &descs[i];
        char cur[256];
        fm_param_format(d, cur, sizeof cur);
        fprintf(out, "  FABMPI_%-20s %-6s default=%-8s current=%-10s %s\n", d->name,
                type_name(d->type), d->def[0] ? d->def : "\"\"", cur[0] ? cur : "\"\"", d->doc);
        fprintf(out, "  %-27s MPI_T: category %s, %s, scope %s, writable %s\n", "",
                fm_category_name(d->category), fm_param_verbosity_name(d->verbosity),
                fm_param_scope_name(d->scope), fm_param_set_name(d->set));
    }
}

void fm_param_print_effective(FILE *out)
{
    for (size_t i = 0; i < NDESCS; i++) {
        const struct fm_param_desc *d = &descs[i];
        char cur[256];
        fm_param_format(d, cur, sizeof cur);
        static const char *const origin[] = {"default", "environment", "MPI_T_cvar_write"};
        fprintf(out, "fabmpi: FABMPI_%s=%s (%s)\n", d->name, cur, origin[d->origin]);
    }
}

void fm_param_write_markdown(FILE *out)
{
    fprintf(out, "# fabmpi environment variables\n\n"
                 "Generated by `fabmpi_info --markdown` from the table in `src/util/param.h`;"
                 " do not edit by hand.\n\n"
                 "A value outside the accepted set makes `MPI_Init` fail with a message naming the"
                 " variable, the value and what is accepted.\n\n"
                 "Each variable is also an MPI_T control variable of the same name"
                 " (`MPI_T_cvar_get_index(\"FABMPI_EAGER_LIMIT\", ...)`); the MPI_T column gives"
                 " its category, verbosity, scope and when `MPI_T_cvar_write` may change it"
                 " (before `MPI_Init`: the value `MPI_Init` then uses; any time: from the next"
                 " call on).\n\n"
                 "| variable | type | default | accepted | MPI_T | meaning |\n"
                 "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < NDESCS; i++) {
        const struct fm_param_desc *d = &descs[i];
        fprintf(out, "| `FABMPI_%s` | %s | `%s` | %s | %s; %s; %s; writable %s | %s |\n", d->name,
                type_name(d->type), d->def, d->accepted, fm_category_name(d->category),
                fm_param_verbosity_name(d->verbosity), fm_param_scope_name(d->scope),
                fm_param_set_name(d->set), d->doc);
    }
}
