/* mpi.h — fabmpi's public MPI interface (MPI-3.1, C bindings).
 *
 * Handles are pointers to opaque library objects; predefined handles are the
 * addresses of library-owned objects, null handles are 0.  A function
 * declared here but not yet implemented by fabmpi fails at link time, never
 * at run time. */
#ifndef FABMPI_MPI_H
#define FABMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define FABMPI 1
#define FABMPI_VERSION_STRING "0.1.0"

/* ---- handle types -------------------------------------------------------- */
typedef struct fm_comm *MPI_Comm;
typedef struct fm_group *MPI_Group;
typedef struct fm_datatype *MPI_Datatype;
typedef struct fm_op *MPI_Op;
typedef struct fm_request *MPI_Request;
typedef struct fm_errhandler *MPI_Errhandler;
typedef struct fm_message *MPI_Message;
typedef struct fm_info *MPI_Info;
typedef struct fm_win *MPI_Win;

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int fm_cancelled;    /* internal: set when a receive was cancelled */
    MPI_Count fm_count;  /* internal: bytes received */
} MPI_Status;

/* ---- predefined objects --------------------------------------------------- */
/* Optional Fortran types, present where the C compiler has a type of the
 * same layout for the library to compute with: INTEGER*16 (__int128),
 * REAL*16 and COMPLEX*32 (IEEE quad, as gfortran's; GCC's _Float128).
 * REAL*2 and COMPLEX*4 are absent: gfortran has no REAL(2). */
#ifdef __SIZEOF_INT128__
#define FM_DT_FORTRAN_INT16(X) X(MPI_INTEGER16, __int128)
#else
#define FM_DT_FORTRAN_INT16(X)
#endif
#if defined(__FLT128_MAX__) && defined(__SIZEOF_FLOAT128__)
#define FM_DT_FORTRAN_QUAD(X) X(MPI_REAL16, _Float128) X(MPI_COMPLEX32, _Complex _Float128)
#else
#define FM_DT_FORTRAN_QUAD(X)
#endif

/* Every predefined datatype: X(handle name, C type of its layout).  The
 * Fortran ones have gfortran's default sizes (INTEGER, REAL and LOGICAL 4
 * bytes, DOUBLE PRECISION 8, CHARACTER 1, COMPLEX 8). */
#define FM_PREDEFINED_DATATYPES(X)                                 \
    X(MPI_CHAR, char)                                              \
    X(MPI_SHORT, short)                                            \
    X(MPI_INT, int)                                                \
    X(MPI_LONG, long)                                              \
    X(MPI_LONG_LONG_INT, long long)                                \
    X(MPI_LONG_LONG, long long)                                    \
    X(MPI_SIGNED_CHAR, signed char)                                \
    X(MPI_UNSIGNED_CHAR, unsigned char)                            \
    X(MPI_UNSIGNED_SHORT, unsigned short)                          \
    X(MPI_UNSIGNED, unsigned)                                      \
    X(MPI_UNSIGNED_LONG, unsigned long)                            \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long)                  \
    X(MPI_FLOAT, float)                                            \
    X(MPI_DOUBLE, double)                                          \
    X(MPI_LONG_DOUBLE, long double)                                \
    X(MPI_WCHAR, wchar_t)                                          \
    X(MPI_C_BOOL, _Bool)                                           \
    X(MPI_INT8_T, int8_t)                                          \
    X(MPI_INT16_T, int16_t)                                        \
    X(MPI_INT32_T, int32_t)                                        \
    X(MPI_INT64_T, int64_t)                                        \
    X(MPI_UINT8_T, uint8_t)                                        \
    X(MPI_UINT16_T, uint16_t)                                      \
    X(MPI_UINT32_T, uint32_t)                                      \
    X(MPI_UINT64_T, uint64_t)                                      \
    X(MPI_AINT, MPI_Aint)                                          \
    X(MPI_COUNT, MPI_Count)                                        \
    X(MPI_OFFSET, MPI_Offset)                                      \
    X(MPI_C_COMPLEX, float _Complex)                               \
    X(MPI_C_FLOAT_COMPLEX, float _Complex)                         \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex)                       \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)             \
    X(MPI_BYTE, unsigned char)                                     \
    X(MPI_PACKED, unsigned char)                                   \
    X(MPI_FLOAT_INT, struct { float v; int i; })                   \
    X(MPI_DOUBLE_INT, struct { double v; int i; })                 \
    X(MPI_LONG_INT, struct { long v; int i; })                     \
    X(MPI_2INT, struct { int v; int i; })                          \
    X(MPI_SHORT_INT, struct { short v; int i; })                   \
    X(MPI_LONG_DOUBLE_INT, struct { long double v; int i; })       \
    X(MPI_CHARACTER, char)                                         \
    X(MPI_LOGICAL, int32_t)                                        \
    X(MPI_INTEGER, int32_t)                                        \
    X(MPI_REAL, float)                                             \
    X(MPI_DOUBLE_PRECISION, double)                                \
    X(MPI_COMPLEX, float _Complex)                                 \
    X(MPI_DOUBLE_COMPLEX, double _Complex)                         \
    X(MPI_INTEGER1, int8_t)                                        \
    X(MPI_INTEGER2, int16_t)                                       \
    X(MPI_INTEGER4, int32_t)                                       \
    X(MPI_INTEGER8, int64_t)                                       \
    X(MPI_REAL4, float)                                            \
    X(MPI_REAL8, double)                                           \
    X(MPI_COMPLEX8, float _Complex)                                \
    X(MPI_COMPLEX16, double _Complex)                              \
    X(MPI_2REAL, struct { float v; float i; })                     \
    X(MPI_2DOUBLE_PRECISION, struct { double v; double i; })       \
    X(MPI_2INTEGER, struct { int32_t v; int32_t i; })              \
    FM_DT_FORTRAN_INT16(X)                                         \
    FM_DT_FORTRAN_QUAD(X)

#define FM_DECLARE_DT(name, ctype) extern struct fm_datatype fab_dt_##name;
FM_PREDEFINED_DATATYPES(FM_DECLARE_DT)
#undef FM_DECLARE_DT
#define MPI_CHAR (&fab_dt_MPI_CHAR)
#define MPI_SHORT (&fab_dt_MPI_SHORT)
#define MPI_INT (&fab_dt_MPI_INT)
#define MPI_LONG (&fab_dt_MPI_LONG)
#define MPI_LONG_LONG_INT (&fab_dt_MPI_LONG_LONG_INT)
#define MPI_LONG_LONG (&fab_dt_MPI_LONG_LONG)
#define MPI_SIGNED_CHAR (&fab_dt_MPI_SIGNED_CHAR)
#define MPI_UNSIGNED_CHAR (&fab_dt_MPI_UNSIGNED_CHAR)
#define MPI_UNSIGNED_SHORT (&fab_dt_MPI_UNSIGNED_SHORT)
#define MPI_UNSIGNED (&fab_dt_MPI_UNSIGNED)
#define MPI_UNSIGNED_LONG (&fab_dt_MPI_UNSIGNED_LONG)
#define MPI_UNSIGNED_LONG_LONG (&fab_dt_MPI_UNSIGNED_LONG_LONG)
#define MPI_FLOAT (&fab_dt_MPI_FLOAT)
#define MPI_DOUBLE (&fab_dt_MPI_DOUBLE)
#define MPI_LONG_DOUBLE (&fab_dt_MPI_LONG_DOUBLE)
#define MPI_WCHAR (&fab_dt_MPI_WCHAR)
#define MPI_C_BOOL (&fab_dt_MPI_C_BOOL)
#define MPI_INT8_T (&fab_dt_MPI_INT8_T)
#define MPI_INT16_T (&fab_dt_MPI_INT16_T)
#define MPI_INT32_T (&fab_dt_MPI_INT32_T)
#define MPI_INT64_T (&fab_dt_MPI_INT64_T)
#define MPI_UINT8_T (&fab_dt_MPI_UINT8_T)
#define MPI_UINT16_T (&fab_dt_MPI_UINT16_T)
#define MPI_UINT32_T (&fab_dt_MPI_UINT32_T)
#define MPI_UINT64_T (&fab_dt_MPI_UINT64_T)
#define MPI_AINT (&fab_dt_MPI_AINT)
#define MPI_COUNT (&fab_dt_MPI_COUNT)
#define MPI_OFFSET (&fab_dt_MPI_OFFSET)
#define MPI_C_COMPLEX (&fab_dt_MPI_C_COMPLEX)
#define MPI_C_FLOAT_COMPLEX (&fab_dt_MPI_C_FLOAT_COMPLEX)
#define MPI_C_DOUBLE_COMPLEX (&fab_dt_MPI_C_DOUBLE_COMPLEX)
#define MPI_C_LONG_DOUBLE_COMPLEX (&fab_dt_MPI_C_LONG_DOUBLE_COMPLEX)
#define MPI_BYTE (&fab_dt_MPI_BYTE)
#define MPI_PACKED (&fab_dt_MPI_PACKED)
#define MPI_FLOAT_INT (&fab_dt_MPI_FLOAT_INT)
#define MPI_DOUBLE_INT (&fab_dt_MPI_DOUBLE_INT)
#define MPI_LONG_INT (&fab_dt_MPI_LONG_INT)
#define MPI_2INT (&fab_dt_MPI_2INT)
#define MPI_SHORT_INT (&fab_dt_MPI_SHORT_INT)
#define MPI_LONG_DOUBLE_INT (&fab_dt_MPI_LONG_DOUBLE_INT)
#define MPI_CHARACTER (&fab_dt_MPI_CHARACTER)
#define MPI_LOGICAL (&fab_dt_MPI_LOGICAL)
#define MPI_INTEGER (&fab_dt_MPI_INTEGER)
#define MPI_REAL (&fab_dt_MPI_REAL)
#define MPI_DOUBLE_PRECISION (&fab_dt_MPI_DOUBLE_PRECISION)
#define MPI_COMPLEX (&fab_dt_MPI_COMPLEX)
#define MPI_DOUBLE_COMPLEX (&fab_dt_MPI_DOUBLE_COMPLEX)
#define MPI_INTEGER1 (&fab_dt_MPI_INTEGER1)
#define MPI_INTEGER2 (&fab_dt_MPI_INTEGER2)
#define MPI_INTEGER4 (&fab_dt_MPI_INTEGER4)
#define MPI_INTEGER8 (&fab_dt_MPI_INTEGER8)
#define MPI_REAL4 (&fab_dt_MPI_REAL4)
#define MPI_REAL8 (&fab_dt_MPI_REAL8)
#define MPI_COMPLEX8 (&fab_dt_MPI_COMPLEX8)
#define MPI_COMPLEX16 (&fab_dt_MPI_COMPLEX16)
#define MPI_2REAL (&fab_dt_MPI_2REAL)
#define MPI_2DOUBLE_PRECISION (&fab_dt_MPI_2DOUBLE_PRECISION)
#define MPI_2INTEGER (&fab_dt_MPI_2INTEGER)
#ifdef __SIZEOF_INT128__
#define MPI_INTEGER16 (&fab_dt_MPI_INTEGER16)
#endif
#if defined(__FLT128_MAX__) && defined(__SIZEOF_FLOAT128__)
#define MPI_REAL16 (&fab_dt_MPI_REAL16)
#define MPI_COMPLEX32 (&fab_dt_MPI_COMPLEX32)
#endif

/* Predefined reduction operations. */
#define FM_PREDEFINED_OPS(X) \
    X(MPI_MAX) X(MPI_MIN) X(MPI_SUM) X(MPI_PROD) X(MPI_LAND) X(MPI_BAND) \
    X(MPI_LOR) X(MPI_BOR) X(MPI_LXOR) X(MPI_BXOR) X(MPI_MINLOC)          \
    X(MPI_MAXLOC) X(MPI_REPLACE) X(MPI_NO_OP)
#define FM_DECLARE_OP(name) extern struct fm_op fab_op_##name;
FM_PREDEFINED_OPS(FM_DECLARE_OP)
#undef FM_DECLARE_OP
#define MPI_MAX (&fab_op_MPI_MAX)
#define MPI_MIN (&fab_op_MPI_MIN)
#define MPI_SUM (&fab_op_MPI_SUM)
#define MPI_PROD (&fab_op_MPI_PROD)
#define MPI_LAND (&fab_op_MPI_LAND)
#define MPI_BAND (&fab_op_MPI_BAND)
#define MPI_LOR (&fab_op_MPI_LOR)
#define MPI_BOR (&fab_op_MPI_BOR)
#define MPI_LXOR (&fab_op_MPI_LXOR)
#define MPI_BXOR (&fab_op_MPI_BXOR)
#define MPI_MINLOC (&fab_op_MPI_MINLOC)
#define MPI_MAXLOC (&fab_op_MPI_MAXLOC)
#define MPI_REPLACE (&fab_op_MPI_REPLACE)
#define MPI_NO_OP (&fab_op_MPI_NO_OP)

extern struct fm_comm fab_comm_world, fab_comm_self;
extern struct fm_group fab_group_empty;
extern struct fm_errhandler fab_errors_are_fatal, fab_errors_return;
extern struct fm_message fab_message_no_proc;
#define MPI_COMM_WORLD (&fab_comm_world)
#define MPI_COMM_SELF (&fab_comm_self)
#define MPI_GROUP_EMPTY (&fab_group_empty)
#define MPI_ERRORS_ARE_FATAL (&fab_errors_are_fatal)
#define MPI_ERRORS_RETURN (&fab_errors_return)
#define MPI_MESSAGE_NO_PROC (&fab_message_no_proc)

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_WIN_NULL ((MPI_Win)0)

/* ---- constants ------------------------------------------------------------ */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 96

#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
/* Addresses of library objects rather than small integers: GCC warns
 * (-Wstringop-overread) when a constant like (int *)2 reaches an array
 * parameter, in every program that passes MPI_UNWEIGHTED. */
extern int fab_unweighted[], fab_weights_empty[];
#define MPI_UNWEIGHTED (fab_unweighted)
#define MPI_WEIGHTS_EMPTY (fab_weights_empty)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_DATAREP_STRING 128

enum { MPI_THREAD_SINGLE = 0, MPI_THREAD_FUNNELED = 1, MPI_THREAD_SERIALIZED = 2, MPI_THREAD_MULTIPLE = 3 };
enum { MPI_IDENT = 0, MPI_CONGRUENT = 1, MPI_SIMILAR = 2, MPI_UNEQUAL = 3 };
enum { MPI_COMM_TYPE_SHARED = 1 };
enum { MPI_GRAPH = 1, MPI_CART = 2, MPI_DIST_GRAPH = 3 };

/* Predefined attribute keys (communicator). */
enum {
    MPI_TAG_UB = 0x64400001,
    MPI_HOST,
    MPI_IO,
    MPI_WTIME_IS_GLOBAL,
    MPI_UNIVERSE_SIZE,
    MPI_LASTUSEDCODE,
    MPI_APPNUM
};

/* Datatype combiners (MPI_Type_get_envelope). */
enum {
    MPI_COMBINER_NAMED = 1, MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED,
    MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK, MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY, MPI_COMBINER_DARRAY, MPI_COMBINER_F90_REAL,
    MPI_COMBINER_F90_COMPLEX, MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED
};
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE };
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Error classes.  The values are fabmpi's; compare against the names. */
#define FM_ERROR_CLASSES(X)                                                   \
    X(MPI_SUCCESS, 0, "no error")                                             \
    X(MPI_ERR_BUFFER, 1, "invalid buffer pointer")                            \
    X(MPI_ERR_COUNT, 2, "invalid count argument")                             \
    X(MPI_ERR_TYPE, 3, "invalid datatype")                                    \
    X(MPI_ERR_TAG, 4, "invalid tag")                                          \
    X(MPI_ERR_COMM, 5, "invalid communicator")                                \
    X(MPI_ERR_RANK, 6, "invalid rank")                                        \
    X(MPI_ERR_REQUEST, 7, "invalid request")                                  \
    X(MPI_ERR_ROOT, 8, "invalid root")                                        \
    X(MPI_ERR_GROUP, 9, "invalid group")                                      \
    X(MPI_ERR_OP, 10, "invalid reduction operation")                          \
    X(MPI_ERR_TOPOLOGY, 11, "invalid topology")                               \
    X(MPI_ERR_DIMS, 12, "invalid dimension argument")                         \
    X(MPI_ERR_ARG, 13, "invalid argument")                                    \
    X(MPI_ERR_UNKNOWN, 14, "unknown error")                                   \
    X(MPI_ERR_TRUNCATE, 15, "message truncated")                              \
    X(MPI_ERR_OTHER, 16, "other error")                                       \
    X(MPI_ERR_INTERN, 17, "internal error")                                   \
    X(MPI_ERR_IN_STATUS, 18, "error code is in status")                       \
    X(MPI_ERR_PENDING, 19, "pending request")                                 \
    X(MPI_ERR_KEYVAL, 20, "invalid keyval")                                   \
    X(MPI_ERR_NO_MEM, 21, "out of memory")                                    \
    X(MPI_ERR_BASE, 22, "invalid base address")                               \
    X(MPI_ERR_INFO_KEY, 23, "invalid info key")                               \
    X(MPI_ERR_INFO_VALUE, 24, "invalid info value")                           \
    X(MPI_ERR_INFO_NOKEY, 25, "info key not defined")                         \
    X(MPI_ERR_SPAWN, 26, "spawn error")                                       \
    X(MPI_ERR_PORT, 27, "invalid port")                                       \
    X(MPI_ERR_SERVICE, 28, "invalid service")                                 \
    X(MPI_ERR_NAME, 29, "invalid name")                                       \
    X(MPI_ERR_WIN, 30, "invalid window")                                      \
    X(MPI_ERR_SIZE, 31, "invalid size")                                       \
    X(MPI_ERR_DISP, 32, "invalid displacement")                               \
    X(MPI_ERR_INFO, 33, "invalid info object")                                \
    X(MPI_ERR_LOCKTYPE, 34, "invalid lock type")                              \
    X(MPI_ERR_ASSERT, 35, "invalid assertion")                                \
    X(MPI_ERR_RMA_CONFLICT, 36, "conflicting RMA accesses")                   \
    X(MPI_ERR_RMA_SYNC, 37, "wrong RMA synchronization")                      \
    X(MPI_ERR_RMA_RANGE, 38, "RMA target out of window range")                \
    X(MPI_ERR_RMA_ATTACH, 39, "memory cannot be attached")                    \
    X(MPI_ERR_RMA_SHARED, 40, "memory cannot be shared")                      \
    X(MPI_ERR_RMA_FLAVOR, 41, "wrong window flavor")                          \
    X(MPI_ERR_FILE, 42, "invalid file handle")                                \
    X(MPI_ERR_NOT_SAME, 43, "collective argument differs across processes")   \
    X(MPI_ERR_AMODE, 44, "invalid access mode")                               \
    X(MPI_ERR_UNSUPPORTED_DATAREP, 45, "unsupported data representation")     \
    X(MPI_ERR_UNSUPPORTED_OPERATION, 46, "unsupported operation")             \
    X(MPI_ERR_NO_SUCH_FILE, 47, "no such file")                               \
    X(MPI_ERR_FILE_EXISTS, 48, "file exists")                                 \
    X(MPI_ERR_BAD_FILE, 49, "bad file name")                                  \
    X(MPI_ERR_ACCESS, 50, "permission denied")                                \
    X(MPI_ERR_NO_SPACE, 51, "no space left")                                  \
    X(MPI_ERR_QUOTA, 52, "quota exceeded")                                    \
    X(MPI_ERR_READ_ONLY, 53, "read-only file or file system")                 \
    X(MPI_ERR_FILE_IN_USE, 54, "file in use")                                 \
    X(MPI_ERR_DUP_DATAREP, 55, "data representation already defined")        \
    X(MPI_ERR_CONVERSION, 56, "data conversion error")                        \
    X(MPI_ERR_IO, 57, "I/O error")                                            \
    X(MPI_ERR_LASTCODE, 63, "last error code")

#define FM_DEFINE_ERRCLASS(name, value, text) name = value,
enum { FM_ERROR_CLASSES(FM_DEFINE_ERRCLASS) };
#undef FM_DEFINE_ERRCLASS

/* ---- callback types ------------------------------------------------------- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
/* MPI-1 names (deprecated): the communicator callbacks. */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void *, void *, void *, int *);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void *, void *);
int MPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *, void *, int *);
int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void *, void *, void *, int *);
int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void *, void *);
int MPI_WIN_DUP_FN(MPI_Win, int, void *, void *, void *, int *);
#define MPI_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_DUP_FN MPI_COMM_DUP_FN

/* ---- environment ---------------------------------------------------------- */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Initialized(int *flag);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);

/* ---- errors --------------------------------------------------------------- */
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);

/* ---- point-to-point ------------------------------------------------------- */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[]);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);

/* ---- datatypes ------------------------------------------------------------ */
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                               MPI_Count *true_extent);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);

/* ---- collectives ---------------------------------------------------------- */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

/* Nonblocking collectives: run by the progress engine (src/coll/sched.c). */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request);
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request);
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request);
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request);

/* Persistent collectives (MPI-4.0): the schedule is built once, run by MPI_Start. */
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request);
int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request);
int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request);

/* Neighborhood collectives over a process topology. */
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request);
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op);

/* ---- groups and communicators --------------------------------------------- */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request);
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                           int *comm_keyval, void *extra_state);
int MPI_Comm_free_keyval(int *comm_keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn,
                           int *type_keyval, void *extra_state);
int MPI_Type_free_keyval(int *type_keyval);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state);
int MPI_Win_free_keyval(int *win_keyval);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
/* MPI-1 (deprecated) forms of the communicator ones. */
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]);
int MPI_Group_free(MPI_Group *group);

/* ---- process topologies ---------------------------------------------------- */
int MPI_Topo_test(MPI_Comm comm, int *status);
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart);
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph);
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                  int *newrank);
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]);
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);

/* ---- info objects and one-sided communication (RMA) ------------------------ */
/* Window flavors, memory models and predefined window attribute keys. */
enum { MPI_WIN_FLAVOR_CREATE = 1, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
       MPI_WIN_FLAVOR_SHARED };
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED = 2 };
enum {
    MPI_WIN_BASE = 0x64400101,
    MPI_WIN_SIZE,
    MPI_WIN_DISP_UNIT,
    MPI_WIN_CREATE_FLAVOR,
    MPI_WIN_MODEL
};
enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED = 235 };
/* Assertions (bit flags) for fence, post/start and lock. */
enum {
    MPI_MODE_NOCHECK = 1024,
    MPI_MODE_NOSTORE = 2048,
    MPI_MODE_NOPUT = 4096,
    MPI_MODE_NOPRECEDE = 8192,
    MPI_MODE_NOSUCCEED = 16384
};

typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;

int MPI_Info_create(MPI_Info *info);
int MPI_Info_set(MPI_Info info, const char *key, const char *value);
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int MPI_Info_delete(MPI_Info info, const char *key);
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int MPI_Info_free(MPI_Info *info);

/* Memory for one-sided communication (or anything else): freed with MPI_Free_mem. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win);
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win);
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win);
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int MPI_Win_detach(MPI_Win win, const void *base);
int MPI_Win_free(MPI_Win *win);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
int MPI_Win_set_name(MPI_Win win, const char *win_name);
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count,
            MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win);
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request);
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                    MPI_Request *request);
int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, int result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request);

int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_complete(MPI_Win win);
int MPI_Win_wait(MPI_Win win);
int MPI_Win_test(MPI_Win win, int *flag);
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_lock_all(int assert, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_sync(MPI_Win win);

#ifdef __cplusplus
}
#endif
#endif /* FABMPI_MPI_H */
