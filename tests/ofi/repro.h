/* repro.h — what the libfabric-only reproducers in tests/ofi/ share: a
 * check that exits 2 on a setup error, and one RDM endpoint opened with
 * its completion queue and address vector.  No fabmpi; each reproducer is
 * still built alone (cc -o x tests/ofi/x.c -lfabric). */
#ifndef FM_TESTS_OFI_REPRO_H
#define FM_TESTS_OFI_REPRO_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                  \
    do {                                                                       \
        int r_ = (int)(x);                                                     \
        if (r_) {                                                              \
            fprintf(stderr, "%s: %s\n", #x, fi_strerror(-r_));                 \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

static struct fid_domain *dom;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_av *av;

/* Open the first RDM endpoint fi_getinfo offers for hints (ep type set
 * here) at node (NULL: any), its CQ in format fmt bound for both
 * directions, and a table AV. */
static void repro_open(struct fi_info *hints, const char *node, enum fi_cq_format fmt)
{
    struct fi_info *i;
    struct fid_fabric *fab;
    hints->ep_attr->type = FI_EP_RDM;
    CK(fi_getinfo(FI_VERSION(1, 17), node, NULL, 0, hints, &i));
    CK(fi_fabric(i->fabric_attr, &fab, NULL));
    CK(fi_domain(fab, i, &dom, NULL));
    struct fi_cq_attr ca = {.format = fmt};
    CK(fi_cq_open(dom, &ca, &cq, NULL));
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    CK(fi_av_open(dom, &aa, &av, NULL));
    CK(fi_endpoint(dom, i, &ep, NULL));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_enable(ep));
}

#endif
