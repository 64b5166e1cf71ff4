/* test_ofi_select.c — OFI provider selection: include/exclude list matching
 * and the ranking of fi_getinfo entries (built by hand here, so the test
 * needs no provider and opens nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef FM_HAVE_OFI
#include "net/ofi/ofi.h"

static void test_name_listed(void **state)
{
    (void)state;
    assert_true(fm_ofi_name_listed("net", "net"));
    assert_true(fm_ofi_name_listed("tcp;ofi_rxm", "tcp;ofi_rxm"));
    assert_true(fm_ofi_name_listed("tcp;ofi_rxm", "tcp"));
    assert_true(fm_ofi_name_listed("tcp;ofi_rxm", "ofi_rxm"));
    assert_true(fm_ofi_name_listed("net", "shm, net"));
    assert_true(fm_ofi_name_listed("net", " net ,shm"));
    assert_false(fm_ofi_name_listed("net", "ne"));
    assert_false(fm_ofi_name_listed("net", "netx"));
    assert_false(fm_ofi_name_listed("sockets", "shm,net"));
    assert_false(fm_ofi_name_listed("net", ""));
    assert_false(fm_ofi_name_listed("net", ",,"));
}

/* A list in libfabric's usual order here: layered stacks first. */
static struct fi_info *entry(struct fi_info *next, const char *prov, const char *fabric,
                             const char *domain, uint32_t fmt)
{
    struct fi_info *i = fi_allocinfo();
    assert_non_null(i);
    i->fabric_attr->prov_name = strdup(prov);
    i->fabric_attr->name = strdup(fabric);
    i->domain_attr->name = strdup(domain);
    i->addr_format = fmt;
    i->next = next;
    return i;
}

static struct fi_info *sample(void)
{
    struct fi_info *l = entry(NULL, "sockets", "127.0.0.1/32", "lo", FI_SOCKADDR_IN);
    l = entry(l, "shm", "shm", "shm", FI_ADDR_STR);
    l = entry(l, "net", "127.0.0.1/32", "lo", FI_SOCKADDR_IN);
    l = entry(l, "net", "fe80::/64", "eth0", FI_SOCKADDR_IN6);
    l = entry(l, "net", "192.0.2.0/24", "eth0", FI_SOCKADDR_IN);
    l = entry(l, "tcp;ofi_rxm", "127.0.0.1/32", "lo", FI_SOCKADDR_IN);
    l = entry(l, "tcp;ofi_rxm", "192.0.2.0/24", "eth0", FI_SOCKADDR_IN);
    return l;
}

static const char *pick(struct fi_info *l, const char *inc, const char *exc, const char *dom,
                        int single, char *dom_out)
{
    char why[1024];
    struct fi_info *p = fm_ofi_choose(l, inc, exc, dom, single, why, sizeof why);
    if (!p)
        return NULL;
    strcpy(dom_out, p->domain_attr->name);
    return p->fabric_attr->prov_name;
}

static void test_ranking(void **state)
{
    (void)state;
    struct fi_info *l = sample();
    char dom[64];
    /* one node: the shm provider; across nodes: net on a routable IPv4 */
    assert_string_equal(pick(l, "", "", "", 1, dom), "shm");
    assert_string_equal(pick(l, "", "", "", 0, dom), "net");
    assert_string_equal(dom, "eth0");
    /* IP providers on one node stay on loopback */
    assert_string_equal(pick(l, "", "shm", "", 1, dom), "net");
    assert_string_equal(dom, "lo");
    assert_string_equal(pick(l, "tcp", "", "", 1, dom), "tcp;ofi_rxm");
    assert_string_equal(dom, "lo");
    /* a pinned domain wins over the placement's preference */
    assert_string_equal(pick(l, "net", "", "eth0", 1, dom), "net");
    assert_string_equal(dom, "eth0");
    assert_string_equal(pick(l, "", "net,shm,tcp", "", 1, dom), "sockets");
    fi_freeinfo(l);
}

static void test_nothing_fits(void **state)
{
    (void)state;
    struct fi_info *l = sample();
    char why[1024];
    assert_null(fm_ofi_choose(l, "verbs", "", "", 1, why, sizeof why));
    assert_non_null(strstr(why, "FABMPI_OFI_PROVIDER_INCLUDE=verbs"));
    assert_non_null(strstr(why, "libfabric offers usable: tcp;ofi_rxm, net, shm, sockets"));
    /* shm cannot reach other nodes, and the message says so */
    assert_null(fm_ofi_choose(l, "shm", "", "", 0, why, sizeof why));
    assert_non_null(strstr(why, "ranks span nodes"));
    assert_null(fm_ofi_choose(NULL, "", "", "", 1, why, sizeof why));
    assert_non_null(strstr(why, "usable: nothing"));
    fi_freeinfo(l);
}

/* udp;ofi_rxd loses messages (quirks.c): never taken, not even ranked
 * first or named alone, and the message says why. */
static void test_unreliable_left_out(void **state)
{
    (void)state;
    struct fi_info *l = entry(sample(), "udp;ofi_rxd", "127.0.0.1/32", "lo", FI_SOCKADDR_IN);
    char dom[64], why[1024];
    assert_string_equal(pick(l, "", "shm,net,tcp", "", 1, dom), "sockets");
    assert_null(fm_ofi_choose(l, "udp;ofi_rxd", "", "", 1, why, sizeof why));
    assert_non_null(strstr(why, "(udp;ofi_rxd left out: libfabric 1.17's udp;ofi_rxd loses"));
    assert_non_null(strstr(why, "tests/ofi/rxd_order.c"));
    /* the providers it suggests are those it would take */
    assert_non_null(strstr(why, "libfabric offers usable: tcp;ofi_rxm, net"));
    /* not named: not mentioned */
    assert_null(fm_ofi_choose(l, "verbs", "", "", 1, why, sizeof why));
    assert_null(strstr(why, "left out"));
    fi_freeinfo(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_listed),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test(test_nothing_fits),
        cmocka_unit_test(test_unreliable_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    return 0; /* built without libfabric: nothing to test */
}
#endif
