/* rxd_order.c — libfabric-only reproducer of the libfabric 1.17
 * udp;ofi_rxd failure that makes fabmpi refuse that provider
 * (src/net/ofi/quirks.c): a plain stream of small messages arrives with
 * messages missing, out of order, or with bytes that are not the message
 * the completion describes.  No fabmpi.
 *
 *   cc -o rxd_order tests/ofi/rxd_order.c -lfabric
 *   cd "$(mktemp -d)"                      # rendezvous files land here
 *   for r in 0 1 2; do timeout 70 ./rxd_order $r 3 & done; wait
 *
 * NP processes on this host in a ring, as tests/mpi/p2p_order's stream
 * has them: each inserts every process's address, then sends N messages
 * to its right neighbour by fi_inject while receiving N from its left into
 * RX posted buffers, each reposted as it completes.  A message is 16 to 64
 * bytes and carries its sender, number and length.  Expected: every
 * completion's length is the length its message says, and the numbers
 * arrive 0..N-1 in order.  Exit 0 when so; 1 when a message is out of
 * place, has the wrong length or never arrives (55 s); 2 on a setup error.
 * The first three wrong messages are printed.
 *
 * 1.17's udp;ofi_rxd on 2 cores (2026-12-06), 5 runs of 5 at 3 processes
 * and 4 of 4 at 2: numbers jump ahead by 500-1700, completions' lengths
 * disagree with their messages, a buffer holds another sender's bytes
 * ("says src 0 seq 128" arriving from 1), and receivers stall for good with
 * a few thousand of 20000.  net and tcp;ofi_rxm pass the same runs (third
 * argument: the provider). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "repro.h"


enum { N = 20000, RX = 64 };

typedef struct msg {
    uint32_t src, seq, len, pad;
    char body[48];
} msg;

static size_t len_of(uint32_t seq) { return 16 + (seq % 5) * 12; }

static msg rx[RX];
static uint32_t got, bad, left;

static void setup(const char *prov)
{
    struct fi_info *h = fi_allocinfo();
    h->caps = FI_MSG;
    h->tx_attr->msg_order = FI_ORDER_SAS; /* granted: fi_getinfo fails otherwise */
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = 0;
    h->fabric_attr->prov_name = strdup(prov);
    repro_open(h, "127.0.0.1", FI_CQ_FORMAT_MSG);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Read one completion (injects have none): check the message, post its
 * buffer again. */
static void poll_once(void)
{
    struct fi_cq_msg_entry e;
    if (fi_cq_read(cq, &e, 1) != 1)
        return;
    msg *m = e.op_context;
    if ((m->src != left || m->seq != got || m->len != e.len) && bad++ < 3)
        printf("message %u from %u: says src %u seq %u len %u; completion len %zu\n", got, left,
               m->src, m->seq, m->len, e.len);
    got++;
    CK(fi_recv(ep, m, sizeof *m, NULL, FI_ADDR_UNSPEC, m));
}

static void publish(const char *file, const void *data, size_t len)
{
    FILE *f = fopen("tmp", "w");
    fwrite(data, 1, len, f);
    fclose(f);
    rename("tmp", file);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RANK NP [provider]\n", argv[0]);
        return 2;
    }
    uint32_t me = (uint32_t)atoi(argv[1]), np = (uint32_t)atoi(argv[2]);
    if (np < 2 || me >= np)
        return 2;
    left = (me + np - 1) % np;
    setvbuf(stdout, NULL, _IONBF, 0);
    setup(argc > 3 ? argv[3] : "udp;ofi_rxd");
    for (int b = 0; b < RX; b++)
        CK(fi_recv(ep, &rx[b], sizeof rx[b], NULL, FI_ADDR_UNSPEC, &rx[b]));
    char name[256], file[64];
    size_t nl = sizeof name;
    CK(fi_getname(&ep->fid, name, &nl));
    snprintf(file, sizeof file, "addr.%u", me);
    publish(file, name, nl);
    fi_addr_t right = FI_ADDR_NOTAVAIL;
    for (uint32_t p = 0; p < np; p++) {
        snprintf(file, sizeof file, "addr.%u", p);
        while (access(file, F_OK))
            usleep(1000);
        FILE *f = fopen(file, "r");
        nl = fread(name, 1, sizeof name, f);
        fclose(f);
        fi_addr_t a;
        if (!nl || fi_av_insert(av, name, 1, &a, 0, NULL) != 1)
            return 2;
        if (p == (me + 1) % np)
            right = a;
    }
    double end = now() + 55;
    for (uint32_t k = 0; k < N && now() < end;) {
        msg m = {me, k, (uint32_t)len_of(k), 0, {0}};
        ssize_t rc = fi_inject(ep, &m, len_of(k), right);
        if (rc == -FI_EAGAIN) {
            poll_once();
            continue;
        }
        CK(rc);
        k++;
    }
    while (got < N && now() < end)
        poll_once();
    printf("rank %u: %u of %d messages from %u, %u wrong\n", me, got, N, left, bad);
    /* Stay to acknowledge the right neighbour's last packets. */
    snprintf(file, sizeof file, "done.%u", me);
    publish(file, "", 0);
    snprintf(file, sizeof file, "done.%u", (me + 1) % np);
    while (access(file, F_OK) && now() < end + 3)
        poll_once();
    return got == N && !bad ? 0 : 1;
}
