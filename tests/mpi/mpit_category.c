/* mpit_category — MPI_T categories: the layers pt2pt, net (with shm and
 * ofi inside), coll, rma, progress, boot, log; every control and
 * performance variable in exactly one; lists and counts agree; indices
 * and names are checked; the set never changes. */
#include <string.h>

#include "testutil.h"

static int category(const char *name)
{
    int i = -1;
    CHECK_MPI(MPI_T_category_get_index(name, &i));
    return i;
}

int main(int argc, char **argv)
{
    int provided, ncat, ncvar, npvar, stamp, stamp2;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* before MPI_Init too */
    CHECK_MPI(MPI_T_category_changed(&stamp));
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_T_category_get_num(&ncat));
    CHECK_MPI(MPI_T_cvar_get_num(&ncvar));
    CHECK_MPI(MPI_T_pvar_get_num(&npvar));
    static const char *const layers[] = {"pt2pt", "net", "shm", "ofi", "coll",
                                         "rma", "progress", "boot", "log"};
    for (int i = 0; i < (int)(sizeof layers / sizeof layers[0]); i++)
        category(layers[i]);
    int *cv_seen = calloc((size_t)ncvar, sizeof(int)), *pv_seen = calloc((size_t)npvar, sizeof(int));
    int *cat_parent = calloc((size_t)ncat, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        char name[64], desc[512];
        int nl = sizeof name, dl = sizeof desc, nc, np, nsub;
        CHECK_MPI(MPI_T_category_get_info(c, name, &nl, desc, &dl, &nc, &np, &nsub));
        CHECK_EQ(category(name), c);
        CHECK(strlen(desc) > 10);
        int *idx = calloc((size_t)(nc + np + nsub + 1), sizeof(int));
        CHECK_MPI(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++) {
            CHECK(idx[k] >= 0 && idx[k] < ncvar);
            cv_seen[idx[k]]++;
        }
        CHECK_MPI(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; k++) {
            CHECK(idx[k] >= 0 && idx[k] < npvar);
            pv_seen[idx[k]]++;
        }
        CHECK_MPI(MPI_T_category_get_categories(c, nsub, idx));
        for (int k = 0; k < nsub; k++) {
            CHECK(idx[k] >= 0 && idx[k] < ncat && idx[k] != c);
            cat_parent[idx[k]]++;
        }
        if (!strcmp(name, "net")) {
            CHECK_EQ(nsub, 2);
            CHECK((idx[0] == category("shm") && idx[1] == category("ofi")) ||
                  (idx[0] == category("ofi") && idx[1] == category("shm")));
        }
        if (!strcmp(name, "pt2pt")) {
            CHECK(nc >= 2 && np >= 4); /* the eager limits; eager/rendezvous counts, queues */
        }
        /* A shorter list gets the first ones only. */
        if (nc > 1) {
            int first[2] = {-1, -7};
            CHECK_MPI(MPI_T_category_get_cvars(c, 1, first));
            CHECK_EQ(first[1], -7);
        }
        free(idx);
    }
    for (int i = 0; i < ncvar; i++)
        CHECKF(cv_seen[i] == 1, "cvar %d in %d categories", i, cv_seen[i]);
    for (int i = 0; i < npvar; i++)
        CHECKF(pv_seen[i] == 1, "pvar %d in %d categories", i, pv_seen[i]);
    for (int i = 0; i < ncat; i++)
        CHECK(cat_parent[i] <= 1);
    /* Where a few known variables live. */
    int cvars[64], n, idx;
    CHECK_MPI(MPI_T_cvar_get_index("FABMPI_EAGER_LIMIT", &idx));
    CHECK_MPI(MPI_T_category_get_info(category("pt2pt"), NULL, NULL, NULL, NULL, &n, NULL, NULL));
    CHECK(n <= 64);
    CHECK_MPI(MPI_T_category_get_cvars(category("pt2pt"), n, cvars));
    int found = 0;
    for (int k = 0; k < n; k++)
        found |= cvars[k] == idx;
    CHECK(found);

    CHECK_T(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_index("no such layer", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_MPI(MPI_T_category_changed(&stamp2));
    CHECK_EQ(stamp, stamp2);
    free(cv_seen);
    free(pv_seen);
    free(cat_parent);
    MPI_Finalize();
    CHECK_MPI(MPI_T_finalize());
    CHECK_T(MPI_T_category_get_num(&ncat), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}
