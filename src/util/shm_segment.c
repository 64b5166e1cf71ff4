/* shm_segment.c — shared-memory segments, named and nameless (shm_segment.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/param.h"
#include "util/shm_segment.h"

int fm_shm_seg_name(char *out, size_t len, const char *what, int rank)
{
    char job[64];
    if (fm_param.JOBID && fm_param.JOBID[0])
        snprintf(job, sizeof job, "%s", fm_param.JOBID);
    else
        snprintf(job, sizeof job, "s%ld", (long)getpid()); /* singleton: no job id */
    for (char *p = job; *p; p++)
        if (*p == '/')
            *p = '_';
    int n = snprintf(out, len, "/fabmpi-%s-%s%d", job, what, rank);
    return n > 0 && (size_t)n < len;
}

void *fm_shm_seg_create(const char *name, size_t len, const char **failed)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        *failed = "create";
        return NULL;
    }
    void *m = MAP_FAILED;
    int frc = 0;
    if (ftruncate(fd, (off_t)len) != 0) {
        *failed = "size";
    } else if ((frc = posix_fallocate(fd, 0, (off_t)len)) != 0) {
        errno = frc; /* posix_fallocate returns the error, errno untouched */
        *failed = "size";
    } else if ((m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        *failed = "map";
    }
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
        shm_unlink(name);
        errno = e;
        return NULL;
    }
    return m;
}

void *fm_shm_seg_map(const char *name, size_t *len, const char **failed)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        *failed = "open";
        return NULL;
    }
    struct stat st;
    void *m = MAP_FAILED;
    int sized = fstat(fd, &st) == 0;
    if (sized && !*len)
        *len = (size_t)st.st_size;
    if (!sized || !*len || (size_t)st.st_size != *len) {
        if (sized)
            errno = EINVAL;
        *failed = "size";
    } else if ((m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        *failed = "map";
    }
    int e = errno;
    close(fd);
    errno = e;
    return m == MAP_FAILED ? NULL : m;
}

void fm_shm_touch(void *mem, size_t len)
{
    uint8_t *base = mem;
    if (len < 8)
        return;
    for (size_t off = 0; off + 8 <= len; off += 4096)
        atomic_fetch_or_explicit((_Atomic uint64_t *)(void *)(base + off), 0, memory_order_relaxed);
    /* mem need not start a page: the last page may lie past the stride */
    atomic_fetch_or_explicit((_Atomic uint64_t *)(void *)(base + ((len - 8) & ~(size_t)7)), 0,
                             memory_order_relaxed);
}

void *fm_shm_anon_create(size_t len, size_t reserve, int *fd, const char **failed)
{
    *fd = memfd_create("fabmpi-region", MFD_CLOEXEC);
    if (*fd < 0) {
        *failed = "create";
        return NULL;
    }
    void *m = MAP_FAILED;
    int frc = 0;
    if (ftruncate(*fd, (off_t)len) != 0) {
        *failed = "size";
    } else if (reserve && (frc = posix_fallocate(*fd, 0, (off_t)reserve)) != 0) {
        errno = frc; /* posix_fallocate returns the error, errno untouched */
        *failed = "size";
    } else if ((m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                         MAP_SHARED | (reserve < len ? MAP_NORESERVE : 0), *fd, 0)) ==
               MAP_FAILED) {
        *failed = "map";
    }
    if (m == MAP_FAILED) {
        int e = errno;
        close(*fd);
        *fd = -1;
        errno = e;
        return NULL;
    }
    return m;
}

void *fm_shm_anon_map(int pid, int fd, size_t len, const char **failed)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0) {
        *failed = "open";
        return NULL;
    }
    struct stat st;
    void *m = MAP_FAILED;
    if (fstat(f, &st) != 0 || (size_t)st.st_size != len) {
        errno = EINVAL;
        *failed = "size";
    } else if ((m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, f, 0)) ==
               MAP_FAILED) {
        *failed = "map";
    }
    int e = errno;
    close(f);
    errno = e;
    return m == MAP_FAILED ? NULL : m;
}
