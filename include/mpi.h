/* mpi.h — fabmpi's public MPI interface (MPI-3.1, C bindings).
 *
 * Handles are pointers to opaque library objects; predefined handles are the
 * addresses of library-owned objects, null handles are 0.  Only the
 * procedures fabmpi defines are declared (mpi_proto.h and pmpi_proto.h,
 * generated): a program calling one not yet implemented fails to build,
 * never at run time. */
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
    X(MPI_CXX_BOOL, _Bool)                                         \
    X(MPI_CXX_FLOAT_COMPLEX, float _Complex)                       \
    X(MPI_CXX_DOUBLE_COMPLEX, double _Complex)                     \
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex)           \
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
/* C++'s bool and std::complex<float, double, long double>, laid out as C's. */
#define MPI_CXX_BOOL (&fab_dt_MPI_CXX_BOOL)
#define MPI_CXX_FLOAT_COMPLEX (&fab_dt_MPI_CXX_FLOAT_COMPLEX)
#define MPI_CXX_DOUBLE_COMPLEX (&fab_dt_MPI_CXX_DOUBLE_COMPLEX)
#define MPI_CXX_LONG_DOUBLE_COMPLEX (&fab_dt_MPI_CXX_LONG_DOUBLE_COMPLEX)
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
extern struct fm_info fab_info_env;
#define MPI_COMM_WORLD (&fab_comm_world)
#define MPI_COMM_SELF (&fab_comm_self)
#define MPI_GROUP_EMPTY (&fab_group_empty)
#define MPI_ERRORS_ARE_FATAL (&fab_errors_are_fatal)
#define MPI_ERRORS_RETURN (&fab_errors_return)
#define MPI_MESSAGE_NO_PROC (&fab_message_no_proc)
#define MPI_INFO_ENV (&fab_info_env)

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
/* A Fortran status is MPI_STATUS_SIZE INTEGERs with MPI_Status's layout;
 * MPI_SOURCE, MPI_TAG and MPI_ERROR are its elements 1, 2, 3 in Fortran. */
#define MPI_STATUS_SIZE 6
/* MPI-4.0 19.3.5: a Fortran status as a C array, and its fields' indices. */
#define MPI_F_STATUS_SIZE MPI_STATUS_SIZE
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
/* The Fortran sentinels (their storage: src/mpi/fortran_sentinels.c). */
extern MPI_Fint fab_f_bottom_, fab_f_in_place_, fab_f_status_ignore_[MPI_STATUS_SIZE],
    fab_f_statuses_ignore_[MPI_STATUS_SIZE], fab_f_unweighted_[1], fab_f_weights_empty_[1],
    fab_f_errcodes_ignore_[1];
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)fab_f_status_ignore_)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)fab_f_statuses_ignore_)
/* mpi_f08's TYPE(MPI_Status) as C sees it (MPI-3.1 17.2.5): the same
 * MPI_STATUS_SIZE INTEGERs, so its sentinels are the Fortran ones. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint fm_internal[MPI_STATUS_SIZE - 3];
} MPI_F08_status;
#define MPI_F08_STATUS_IGNORE ((MPI_F08_status *)fab_f_status_ignore_)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)fab_f_statuses_ignore_)
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
/* fabmpi's fifth level (docs/THREADS.md, "Tasks"): a blocking call blocks
 * only the calling task; its thread runs other tasks meanwhile. */
#define MPIX_TASK_MULTIPLE 4
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
/* Type classes of MPI_Type_match_size. */
enum { MPI_TYPECLASS_REAL = 1, MPI_TYPECLASS_INTEGER = 2, MPI_TYPECLASS_COMPLEX = 3 };
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE };
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Error classes.  The values are fabmpi's; compare against the names.
 * 58..63 are kept for MPI's own classes to come, 64.. are the tool
 * interface's (MPI_T_ERR_*, which MPI_T_* procedures return). */
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
    X(MPI_T_ERR_MEMORY, 64, "MPI_T: out of memory")                           \
    X(MPI_T_ERR_NOT_INITIALIZED, 65, "MPI_T: interface not initialized")      \
    X(MPI_T_ERR_CANNOT_INIT, 66, "MPI_T: interface cannot be initialized")    \
    X(MPI_T_ERR_INVALID_INDEX, 67, "MPI_T: index out of range")               \
    X(MPI_T_ERR_INVALID_ITEM, 68, "MPI_T: item index out of range")           \
    X(MPI_T_ERR_INVALID_HANDLE, 69, "MPI_T: invalid handle")                  \
    X(MPI_T_ERR_OUT_OF_HANDLES, 70, "MPI_T: no more handles available")       \
    X(MPI_T_ERR_OUT_OF_SESSIONS, 71, "MPI_T: no more sessions available")     \
    X(MPI_T_ERR_INVALID_SESSION, 72, "MPI_T: invalid session")                \
    X(MPI_T_ERR_CVAR_SET_NOT_NOW, 73, "MPI_T: control variable cannot be set now") \
    X(MPI_T_ERR_CVAR_SET_NEVER, 74, "MPI_T: control variable cannot be set any more") \
    X(MPI_T_ERR_PVAR_NO_STARTSTOP, 75, "MPI_T: performance variable cannot be started or stopped") \
    X(MPI_T_ERR_PVAR_NO_WRITE, 76, "MPI_T: performance variable cannot be written or reset") \
    X(MPI_T_ERR_PVAR_NO_ATOMIC, 77, "MPI_T: performance variable cannot be read and reset atomically") \
    X(MPI_T_ERR_INVALID_NAME, 78, "MPI_T: no variable or category of that name") \
    X(MPI_T_ERR_INVALID, 79, "MPI_T: invalid use of the interface or bad parameter value") \
    X(MPI_T_ERR_NOT_ACCESSIBLE, 80, "MPI_T: not accessible")                  \
    X(MPI_T_ERR_NOT_SUPPORTED, 81, "MPI_T: not supported")                    \
    X(MPI_ERR_LASTCODE, 95, "last error code")

#define FM_DEFINE_ERRCLASS(name, value, text) name = value,
enum { FM_ERROR_CLASSES(FM_DEFINE_ERRCLASS) };
#undef FM_DEFINE_ERRCLASS

/* ---- callback types ------------------------------------------------------- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
/* MPI-4.0: the large-count form, for MPI_Op_create_c. */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);
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
/* Generalized requests (MPI_Grequest_start). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
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

/* ---- one-sided communication (RMA) ---------------------------------------- */
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

/* ---- the tool information interface (MPI_T) ------------------------------- */
typedef struct fm_mpit_enum *MPI_T_enum;
typedef struct fm_mpit_cvar_handle *MPI_T_cvar_handle;
typedef struct fm_mpit_pvar_handle *MPI_T_pvar_handle;
typedef struct fm_mpit_session *MPI_T_pvar_session;
extern struct fm_mpit_pvar_handle fab_pvar_all_handles;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES (&fab_pvar_all_handles)
/* In increasing detail, users before tuners before MPI developers. */
enum {
    MPI_T_VERBOSITY_USER_BASIC = 1, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
    MPI_T_BIND_NO_OBJECT = 1, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO,
    MPI_T_BIND_MPI_SESSION
};
enum {
    MPI_T_SCOPE_CONSTANT = 1, MPI_T_SCOPE_READONLY, MPI_T_SCOPE_LOCAL, MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL, MPI_T_SCOPE_ALL_EQ
};
enum {
    MPI_T_PVAR_CLASS_STATE = 1, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_PVAR_CLASS_LOWWATERMARK,
    MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER,
    MPI_T_PVAR_CLASS_GENERIC
};
/* Events (MPI-4.0 section 15.3.8). */
typedef struct fm_event_registration *MPI_T_event_registration;
typedef struct fm_event_instance *MPI_T_event_instance;
/* In increasing order of what a callback promises: a callback registered
 * for a level may also be called where a lower one is required. */
typedef enum {
    MPI_T_CB_REQUIRE_NONE = 0, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);

/* ---- procedures ----------------------------------------------------------- */
/* Every MPI_ procedure fabmpi defines and its PMPI_ twin, generated from the
 * standard's list of procedures (tools/gen-mpi-api). */
#include "mpi_proto.h"
#include "pmpi_proto.h"

/* fabmpi's extensions (MPIX_), with their PMPIX_ twins.
 * MPIX_Request_detach: the library completes and frees *request (set to
 * MPI_REQUEST_NULL) and then fulfils omp_event, an OpenMP 5.0
 * omp_event_handle_t from a task's detach clause (cast to uintptr_t);
 * nonblocking requests only.  docs/THREADS.md. */
int MPIX_Request_detach(MPI_Request *request, uintptr_t omp_event);
int PMPIX_Request_detach(MPI_Request *request, uintptr_t omp_event);
/* MPIX_Progress_thread: start (on = 1) or stop (on = 0) the progress
 * thread (FABMPI_PROGRESS_THREAD); starting it twice, or stopping it when
 * none runs, does nothing. */
int MPIX_Progress_thread(int on);
int PMPIX_Progress_thread(int on);

#ifdef __cplusplus
}
#endif
#endif /* FABMPI_MPI_H */
