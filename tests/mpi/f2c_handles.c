/* f2c_handles — the C side of the Fortran handle conversions: every kind
 * round-trips (c2f then f2c gives the handle back, the same object keeps one
 * Fortran value), null handles are 0 both ways, predefined handles have the
 * fixed values mpif.h uses, a value naming no object converts to a handle
 * every call refuses with the kind's error class, and MPI_Status_c2f /
 * MPI_Status_f2c and the mpi_f08 status conversions (c2f08, f082c, f082f,
 * f2f08) copy the fields, the count included, and refuse the
 * STATUS_IGNORE sentinels and NULL. */
#include <string.h>

#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL);
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 1 && MPI_Comm_c2f(MPI_COMM_SELF) == 2);
    CHECK(MPI_Comm_f2c(1) == MPI_COMM_WORLD);
    CHECK(MPI_Type_c2f(MPI_DATATYPE_NULL) == 0 && MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT);
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY);
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC);
    CHECK(MPI_Request_c2f(MPI_REQUEST_NULL) == 0 && MPI_Info_c2f(MPI_INFO_NULL) == 0);
    CHECK(MPI_Win_c2f(MPI_WIN_NULL) == 0);

    /* User objects: one value per object, stable, distinct. */
    MPI_Comm dup1, dup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
    MPI_Fint f1 = MPI_Comm_c2f(dup1), f2 = MPI_Comm_c2f(dup2);
    CHECKF(f1 > 2 && f2 > 2 && f1 != f2, "f1=%d f2=%d", f1, f2);
    CHECK(MPI_Comm_c2f(dup1) == f1 && MPI_Comm_f2c(f1) == dup1 && MPI_Comm_f2c(f2) == dup2);
    MPI_Info info;
    MPI_Info_create(&info);
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info);
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    CHECK(MPI_Type_f2c(MPI_Type_c2f(vec)) == vec);
    MPI_Group g;
    MPI_Comm_group(dup1, &g);
    CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g);
    int buf = 0;
    MPI_Win win;
    MPI_Win_create(&buf, sizeof buf, sizeof buf, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win);
    MPI_Request req;
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &req);
    MPI_Fint freq = MPI_Request_c2f(req);
    CHECK(MPI_Request_f2c(freq) == req);
    int one = 1;
    MPI_Send(&one, 1, MPI_INT, 0, 99, MPI_COMM_SELF);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(buf == 1);

    /* Values that name nothing: the call refuses them with the class. */
    int cls = -1, rc = MPI_Barrier(MPI_Comm_f2c(12345));
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_COMM, "barrier on f2c(12345): class %d", cls);
    rc = MPI_Barrier(MPI_Comm_f2c(-7));
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_COMM, "barrier on f2c(-7): class %d", cls);
    int sz;
    rc = MPI_Type_size(MPI_Type_f2c(99999), &sz);
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_TYPE, "type_size on f2c(99999): class %d", cls);

    /* Statuses. */
    MPI_Status st = {.MPI_SOURCE = 3, .MPI_TAG = 44, .MPI_ERROR = MPI_ERR_TAG};
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    CHECK(MPI_Status_c2f(&st, fst) == MPI_SUCCESS);
    CHECK(fst[0] == 3 && fst[1] == 44 && fst[2] == MPI_ERR_TAG);
    /* MPI-4.0's names for those indices. */
    CHECK(fst[MPI_F_SOURCE] == 3 && fst[MPI_F_TAG] == 44 && fst[MPI_F_ERROR] == MPI_ERR_TAG);
    MPI_Status back;
    CHECK(MPI_Status_f2c(fst, &back) == MPI_SUCCESS);
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 44 && back.MPI_ERROR == MPI_ERR_TAG);
    rc = MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back);
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_ARG, "status_f2c(MPI_F_STATUS_IGNORE): class %d", cls);

    /* mpi_f08's status, from C: a received status keeps its count through
     * C -> f08 -> Fortran INTEGER -> f08 -> C. */
    int five = 5, got = 0, n = -1;
    MPI_Status rs;
    CHECK(MPI_Sendrecv(&five, 1, MPI_INT, 0, 9, &got, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &rs) ==
          MPI_SUCCESS);
    MPI_F08_status f08, f08b;
    MPI_Fint fst2[MPI_STATUS_SIZE];
    CHECK(MPI_Status_c2f08(&rs, &f08) == MPI_SUCCESS);
    CHECK(f08.MPI_SOURCE == 0 && f08.MPI_TAG == 9);
    CHECK(MPI_Status_f082f(&f08, fst2) == MPI_SUCCESS);
    CHECK(fst2[0] == 0 && fst2[1] == 9);
    CHECK(MPI_Status_f2f08(fst2, &f08b) == MPI_SUCCESS);
    CHECK(MPI_Status_f082c(&f08b, &back) == MPI_SUCCESS);
    CHECK(back.MPI_SOURCE == 0 && back.MPI_TAG == 9);
    CHECK(MPI_Get_count(&back, MPI_INT, &n) == MPI_SUCCESS && n == 1);
    rc = MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back);
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_ARG, "status_f082c(MPI_F08_STATUS_IGNORE): class %d", cls);
    rc = MPI_Status_f2f08(MPI_F_STATUS_IGNORE, &f08);
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_ARG, "status_f2f08(MPI_F_STATUS_IGNORE): class %d", cls);
    rc = MPI_Status_c2f08(&rs, MPI_F08_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_ARG, "status_c2f08 into MPI_F08_STATUS_IGNORE: class %d", cls);
    rc = MPI_Status_f082f(&f08, NULL);
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_ARG, "status_f082f into NULL: class %d", cls);
    char text[MPI_MAX_ERROR_STRING];
    int tl;
    MPI_Error_string(rc, text, &tl);
    CHECKF(strstr(text, "MPI_Status_f082f") && strstr(text, "f_status=NULL"), "message: %s", text);

    MPI_Win_free(&win);
    MPI_Group_free(&g);
    MPI_Type_free(&vec);
    MPI_Info_free(&info);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup1);
    MPI_Finalize();
    return 0;
}
