/* shm_unexp_match.c — libfabric-only reproducer of the libfabric 1.17 shm
 * provider's unexpected-message matching bug that keeps FABMPI_PT2PT=auto
 * off the shm provider (docs/ARCHITECTURE.md, OFI).  No fabmpi involved.
 *
 *   cc -o shm_unexp_match tests/ofi/shm_unexp_match.c -lfabric
 *   cd "$(mktemp -d)"                      # rendezvous files land here
 *   ./shm_unexp_match recv any &  ./shm_unexp_match send any;  wait
 *   rm -f addr sent done
 *   ./shm_unexp_match recv stale & ./shm_unexp_match send stale; wait
 *
 * "any":   the sender injects tags 2 and 3; only then the receiver posts
 *          two receives with tag 0, ignore ~0 (match anything).  Expected:
 *          they complete with tags 2 and 3.  1.17 shm: neither completes.
 * "stale": the receiver posts an ignore-~0 receive, which takes the
 *          sender's tag 9; the sender then injects tag 2 (unexpected); the
 *          receiver posts an exact receive for tag 3.  Expected: nothing
 *          completes.  1.17 shm: it completes with tag 2.
 * Cause (prov/shm/src/smr_ep.c): the unexpected tagged queue is created
 * with the posted-receive match function, which tests the queued entry's
 * own `ignore` field against the new receive's tag.  A queued unexpected
 * message has no ignore mask of its own, only what its recycled rx entry
 * held last: the new receive's mask is never applied (case 1), and a mask
 * left by an earlier wildcard receive makes an exact receive match a wrong
 * tag (case 2).  Exit status 0 when the provider behaves, 1 when not. */
#include <rdma/fi_tagged.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repro.h"


static uint64_t got_tag[4];
static int got;

static void setup(void)
{
    struct fi_info *h = fi_allocinfo();
    h->caps = FI_TAGGED;
    h->fabric_attr->prov_name = strdup("shm");
    repro_open(h, NULL, FI_CQ_FORMAT_TAGGED);
}

/* Progress (shm is manual-progress) and record receive completions. */
static void spin(long n)
{
    struct fi_cq_tagged_entry e;
    for (long k = 0; k < n; k++)
        if (fi_cq_read(cq, &e, 1) == 1 && (e.flags & FI_RECV) && got < 4) {
            printf("receive %p completed with tag %llu\n", e.op_context,
                   (unsigned long long)e.tag);
            got_tag[got++] = e.tag;
        }
}

static void wait_file(const char *f)
{
    while (access(f, F_OK))
        spin(1000);
}

static void touch(const char *f) { fclose(fopen(f, "w")); }

static void inject(fi_addr_t a, uint64_t tag)
{
    static char s[8];
    ssize_t rc;
    while ((rc = fi_tinject(ep, s, sizeof s, a, tag)) == -FI_EAGAIN)
        spin(1);
    CK(rc);
}

int main(int argc, char **argv)
{
    static char buf[2][64];
    if (argc != 3 || (strcmp(argv[1], "recv") && strcmp(argv[1], "send")) ||
        (strcmp(argv[2], "any") && strcmp(argv[2], "stale"))) {
        fprintf(stderr, "usage: %s recv|send any|stale\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    setup();
    int stale = !strcmp(argv[2], "stale");
    if (!strcmp(argv[1], "recv")) {
        char name[256];
        size_t nl = sizeof name;
        CK(fi_getname(&ep->fid, name, &nl));
        if (stale) /* takes the sender's tag 9, then its entry is recycled */
            CK(fi_trecv(ep, buf[0], sizeof buf[0], NULL, FI_ADDR_UNSPEC, 0, ~0ULL, (void *)1));
        FILE *f = fopen("addr.tmp", "w");
        fwrite(name, 1, nl, f);
        fclose(f);
        rename("addr.tmp", "addr");
        wait_file("sent");
        spin(2000000); /* everything sent is now here, unexpected */
        int before = got;
        if (stale) {
            CK(fi_trecv(ep, buf[1], sizeof buf[1], NULL, FI_ADDR_UNSPEC, 3, 0, (void *)2));
        } else {
            CK(fi_trecv(ep, buf[0], sizeof buf[0], NULL, FI_ADDR_UNSPEC, 0, ~0ULL, (void *)1));
            CK(fi_trecv(ep, buf[1], sizeof buf[1], NULL, FI_ADDR_UNSPEC, 0, ~0ULL, (void *)2));
        }
        spin(2000000);
        touch("done");
        int bad = stale ? got > before : !(got == 2 && got_tag[0] == 2 && got_tag[1] == 3);
        printf("%s: %s\n", argv[2], bad ? "WRONG (provider bug)" : "as the tagged API requires");
        return bad;
    }
    wait_file("addr");
    char name[256];
    FILE *f = fopen("addr", "r");
    size_t nl = fread(name, 1, sizeof name, f);
    fclose(f);
    fi_addr_t a;
    if (fi_av_insert(av, name, 1, &a, 0, NULL) != 1 || !nl)
        return 2;
    if (stale) {
        inject(a, 9);
        spin(2000000);
        inject(a, 2);
    } else {
        inject(a, 2);
        inject(a, 3);
    }
    spin(200000);
    touch("sent");
    wait_file("done");
    return 0;
}
