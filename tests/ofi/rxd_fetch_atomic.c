/* rxd_fetch_atomic.c — libfabric-only reproducer of the libfabric 1.17
 * udp;ofi_rxd failure that makes windows distrust its atomics and do
 * accumulates by active messages (src/net/ofi/quirks.c).  No fabmpi.
 *
 *   cc -o rxd_fetch_atomic tests/ofi/rxd_fetch_atomic.c -lfabric
 *   cd "$(mktemp -d)"                      # rendezvous files land here
 *   timeout 60 ./rxd_fetch_atomic target & timeout 60 ./rxd_fetch_atomic origin; wait
 *
 * The target registers one int64 counter (0) and serves its completion
 * queue; the origin adds 1 to it N times with fi_fetch_atomic(FI_SUM),
 * one at a time, each completed before the next.  Expected: the k-th
 * fetch returns k and the counter ends at N.  1.17 udp;ofi_rxd (checked
 * 2026-11-24): the first fetch returns without writing the old value, the
 * target dies of SIGSEGV inside libfabric, and the origin then waits for a
 * completion that never comes (hence the timeouts).  tcp;ofi_rxm and shm
 * pass.  Exit
 * status 0 when the provider behaves, 1 when not (or killed by a signal),
 * 2 on a setup error.  A provider name as a second argument tries another. */
#include <rdma/fi_atomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repro.h"


enum { N = 1000 };
#define KEY 7


static void setup(const char *prov)
{
    struct fi_info *h = fi_allocinfo();
    h->caps = FI_ATOMIC | FI_RMA;
    h->domain_attr->mr_mode = 0; /* offsets from the registration, keys we choose */
    h->fabric_attr->prov_name = strdup(prov);
    repro_open(h, "127.0.0.1", FI_CQ_FORMAT_CONTEXT);
}

static void touch(const char *f) { fclose(fopen(f, "w")); }

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "target") && strcmp(argv[1], "origin"))) {
        fprintf(stderr, "usage: %s target|origin [provider]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    setup(argc > 2 ? argv[2] : "udp;ofi_rxd");
    if (!strcmp(argv[1], "target")) {
        static int64_t counter;
        struct fid_mr *mr;
        CK(fi_mr_reg(dom, &counter, sizeof counter, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, KEY, 0,
                     &mr, NULL));
        char name[256];
        size_t nl = sizeof name;
        CK(fi_getname(&ep->fid, name, &nl));
        FILE *f = fopen("addr.tmp", "w");
        fwrite(name, 1, nl, f);
        fclose(f);
        rename("addr.tmp", "addr");
        while (access("done", F_OK)) { /* serve the origin (manual progress) */
            struct fi_cq_entry e;
            fi_cq_read(cq, &e, 1);
        }
        printf("target: counter %lld, expected %d\n", (long long)counter, N);
        return counter == N ? 0 : 1;
    }
    while (access("addr", F_OK))
        usleep(1000);
    char name[256];
    FILE *f = fopen("addr", "r");
    size_t nl = fread(name, 1, sizeof name, f);
    fclose(f);
    fi_addr_t a;
    if (!nl || fi_av_insert(av, name, 1, &a, 0, NULL) != 1)
        return 2;
    size_t count = 0;
    if (fi_fetch_atomicvalid(ep, FI_INT64, FI_SUM, &count) || count < 1) {
        printf("the provider does not validate fetch-and-add of int64\n");
        touch("done");
        return 2;
    }
    int wrong = 0;
    for (int k = 0; k < N; k++) {
        int64_t one = 1, old = -1;
        ssize_t rc;
        while ((rc = fi_fetch_atomic(ep, &one, 1, NULL, &old, NULL, a, 0, KEY, FI_INT64, FI_SUM,
                                     NULL)) == -FI_EAGAIN) {
            struct fi_cq_entry e;
            fi_cq_read(cq, &e, 1);
        }
        CK(rc);
        struct fi_cq_entry e;
        ssize_t got;
        while ((got = fi_cq_read(cq, &e, 1)) == -FI_EAGAIN)
            ;
        if (got != 1) {
            printf("fetch %d: fi_cq_read: %s\n", k, fi_strerror((int)-got));
            wrong++;
            break;
        }
        if (old != k && !wrong++)
            printf("fetch %d returned %lld\n", k, (long long)old);
    }
    touch("done");
    printf("origin: %s\n", wrong ? "WRONG (provider bug)" : "every fetch as expected");
    return wrong ? 1 : 0;
}
