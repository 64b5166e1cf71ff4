/* status.c — names, messages and MPI classes generated from FM_STATUS_LIST. */
#include "util/status.h"

#define FM_STATUS_CASE_NAME(name, value, mpiclass, msg) case name: return #name;
const char *fm_status_name(int status)
{
    switch (status) {
        FM_STATUS_LIST(FM_STATUS_CASE_NAME)
    }
    return "FM_UNKNOWN";
}

#define FM_STATUS_CASE_MSG(name, value, mpiclass, msg) case name: return msg;
const char *fm_status_msg(int status)
{
    switch (status) {
        FM_STATUS_LIST(FM_STATUS_CASE_MSG)
    }
    return "unknown status";
}

#define FM_STATUS_CASE_CLASS(name, value, mpiclass, msg) case name: return mpiclass;
int fm_status_to_mpi_class(int status)
{
    switch (status) {
        FM_STATUS_LIST(FM_STATUS_CASE_CLASS)
    }
    return MPI_ERR_INTERN;
}
