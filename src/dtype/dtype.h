/* dtype.h — datatypes: predefined table, committed flattened form, pack/unpack.
 *
 * A committed datatype is a list of contiguous blocks (offset from the
 * buffer start, length in bytes) describing ONE element; element i sits at
 * i * extent.  Fast paths: FM_DT_CONTIG (one block and extent == size, so
 * `count` elements are one run of count*size bytes starting at buf+true_lb).
 *
 * A list entry may stand for a run of equal blocks at a fixed stride
 * (count > 1).  Types whose list stays short are expanded to single blocks
 * at commit, so the common pack loop never sees a run; only types that
 * would need more than FM_DT_EXPAND_MAX blocks (a vector of 10^9 elements)
 * keep runs and are marked FM_DT_RUNS, so they commit in memory
 * proportional to their constructor, not to their element count. */
#ifndef FM_DTYPE_DTYPE_H
#define FM_DTYPE_DTYPE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define FM_MAGIC_DTYPE 0x44545950u

/* Basic element kinds, for reductions: one per family of predefined
 * datatypes that reduce alike (MPI_REAL is FLOAT, MPI_INTEGER FINT4,
 * MPI_2INTEGER 2INT).  The (value, index) pair kinds come last, from
 * FM_BK_FLOAT_INT on (fm_dt_kind_is_pair); at most 64 kinds, as windows
 * keep sets of them in a 64-bit mask. */
enum fm_basic_kind {
    FM_BK_NONE = 0,
    FM_BK_CHAR, FM_BK_SCHAR, FM_BK_UCHAR, FM_BK_SHORT, FM_BK_USHORT, FM_BK_INT, FM_BK_UINT,
    FM_BK_LONG, FM_BK_ULONG, FM_BK_LLONG, FM_BK_ULLONG,
    FM_BK_INT8, FM_BK_INT16, FM_BK_INT32, FM_BK_INT64,
    FM_BK_UINT8, FM_BK_UINT16, FM_BK_UINT32, FM_BK_UINT64,
    FM_BK_FLOAT, FM_BK_DOUBLE, FM_BK_LDOUBLE, FM_BK_WCHAR, FM_BK_BOOL,
    FM_BK_FCOMPLEX, FM_BK_DCOMPLEX, FM_BK_LDCOMPLEX, FM_BK_BYTE,
    /* Fortran: CHARACTER, LOGICAL (4 bytes, .TRUE. is 1), INTEGER*1..16
     * (the standard's "Fortran integer": no logical ops), REAL*16 (IEEE
     * quad, as gfortran) and COMPLEX*32 */
    FM_BK_FCHARACTER, FM_BK_FLOGICAL, FM_BK_FINT1, FM_BK_FINT2, FM_BK_FINT4, FM_BK_FINT8,
    FM_BK_FINT16, FM_BK_FLOAT128, FM_BK_F128COMPLEX,
    FM_BK_FLOAT_INT, FM_BK_DOUBLE_INT, FM_BK_LONG_INT, FM_BK_2INT, FM_BK_SHORT_INT,
    FM_BK_LDOUBLE_INT, FM_BK_2REAL, FM_BK_2DOUBLE,
    FM_BK_COUNT
};

static inline int fm_dt_kind_is_pair(int k) { return k >= FM_BK_FLOAT_INT; }

enum {
    FM_DT_PREDEFINED = 1, /* library-owned; never freed */
    FM_DT_COMMITTED = 2,
    FM_DT_CONTIG = 4,     /* count elements = one run of count*size bytes */
    FM_DT_RUNS = 16,      /* some block has count > 1 (8 is FM_DT_EXPLICIT_BOUNDS) */
};

/* Committed types needing at most this many single blocks are expanded. */
#define FM_DT_EXPAND_MAX 65536

typedef struct fm_dt_block {
    MPI_Aint off;    /* first block, from the buffer start */
    MPI_Aint len;    /* bytes of each block */
    MPI_Aint count;  /* blocks in the run (>= 1; 1 unless FM_DT_RUNS) */
    MPI_Aint stride; /* bytes from one block of the run to the next */
} fm_dt_block;

struct fm_attr;

struct fm_datatype {
    uint32_t magic;
    int flags;
    int refcount;
    MPI_Count size;           /* bytes of data in one element */
    MPI_Aint lb, extent;      /* MPI lower bound and extent */
    MPI_Aint true_lb, true_extent;
    int nblocks;
    fm_dt_block *blocks;      /* nblocks entries; predefined: one block */
    fm_dt_block one_block;    /* storage when nblocks == 1 */
    enum fm_basic_kind basic; /* kind every element is made of, or FM_BK_NONE if mixed */
    MPI_Count nbasic;         /* basic elements in one element */
    MPI_Count basic_size;     /* packed bytes of one basic element (pairs: value + int) */
    int combiner;             /* MPI_COMBINER_* */
    struct fm_datatype *inner; /* type this one was built from (retained), or NULL */
    MPI_Count inner_count;
    char name[MPI_MAX_OBJECT_NAME];
    /* Private to src/dtype. */
    MPI_Aint *pos;            /* packed offset of each block start (nblocks + 1 entries);
                               * NULL when nblocks <= 1 */
    MPI_Count nelem;          /* primitive elements in one element (a pair counts 2),
                               * for MPI_Get_elements */
    int align;                /* strictest C alignment inside, for struct extent padding */
    struct fm_dt_contents *contents; /* constructor arguments; NULL for predefined */
    struct fm_attr *attrs;    /* cached attributes, owned by src/mpi/attr.c */
};

/* Constructor arguments exactly as MPI_Type_get_contents returns them
 * (MPI_Type_get_contents_c for a type made by a large-count constructor,
 * MPI_Type_vector_c & co.: ncounts > 0 exactly for those, and naints 0). */
struct fm_dt_contents {
    int nints, naints, ncounts, ntypes;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    MPI_Datatype *types; /* each retained */
};

/* Private flag: the bounds were set explicitly (resized, subarray), so
 * struct types built from it get no alignment padding. */
#define FM_DT_EXPLICIT_BOUNDS 8

/* Set up the predefined datatypes (called once from MPI_Init). */
void fm_dt_init(void);

/* 1 if dt is a usable datatype handle (not NULL, magic right).  Inline:
 * every communication call checks its datatype. */
static inline int fm_dt_valid(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && dt->magic == FM_MAGIC_DTYPE;
}
/* 1 if dt may be used for communication (predefined or committed). */
static inline int fm_dt_usable(MPI_Datatype dt)
{
    return fm_dt_valid(dt) && (dt->flags & FM_DT_COMMITTED);
}

static inline int fm_dt_is_contig(MPI_Datatype dt) { return dt->flags & FM_DT_CONTIG; }

/* Copy bytes [offset, offset+len) of the packed form of (buf, count, dt)
 * into out.  Returns bytes copied (less than len only at the end). */
size_t fm_dt_pack(const void *buf, MPI_Count count, MPI_Datatype dt, size_t offset, void *out,
                  size_t len);
/* Scatter len packed bytes that start at packed offset `offset` into
 * (buf, count, dt).  Bytes beyond count*size are ignored.  Returns bytes used. */
size_t fm_dt_unpack(void *buf, MPI_Count count, MPI_Datatype dt, size_t offset, const void *in,
                    size_t len);

/* The "external32" representation (external32.c): bytes of one element
 * of dt; packing count elements of (buf, dt) into exactly count * that
 * many bytes at out; unpacking them from in.  FM_OK, FM_ERR_ARG when the
 * size overflows, FM_ERR_NOMEM (walking a subarray). */
int fm_dt_external32_size(MPI_Datatype dt, MPI_Count *size);
int fm_dt_pack_external32(const void *buf, MPI_Count count, MPI_Datatype dt, void *out);
int fm_dt_unpack_external32(const void *in, void *buf, MPI_Count count, MPI_Datatype dt);

/* Elements of dt (and basic elements) contained in `bytes` packed bytes;
 * MPI_UNDEFINED when bytes is not a whole number of elements. */
MPI_Count fm_dt_count_of(MPI_Datatype dt, MPI_Count bytes);
MPI_Count fm_dt_elements_of(MPI_Datatype dt, MPI_Count bytes);
/* Packed bytes holding the first `elements` basic elements of a stream of
 * dt (the inverse of fm_dt_elements_of); -1 when that overflows or ends
 * inside a basic element. */
MPI_Count fm_dt_bytes_of_elements(MPI_Datatype dt, MPI_Count elements);

/* Reference counting for derived types held by pending operations. */
void fm_dt_retain(MPI_Datatype dt);
void fm_dt_release(MPI_Datatype dt);

/* Build an uncommitted derived type (refcount 1) from constructor arguments
 * laid out as MPI_Type_get_contents returns them for `combiner` (copied;
 * each type retained).  Arguments must already be checked by the caller.
 * Returns FM_OK, FM_ERR_NOMEM, or FM_ERR_ARG for a layout that overflows. */
int fm_dt_create(int combiner, int nints, const int *ints, int naints, const MPI_Aint *aints,
                 int ntypes, const MPI_Datatype *types, MPI_Datatype *newtype);
/* The same for a large-count constructor (MPI_Type_vector_c): what the int
 * form splits into integers and addresses are large counts here, in the
 * same order; subarray and darray keep their plain integers (ndims, order,
 * distributions, ...) as integers (MPI-4.0 5.1.13). */
int fm_dt_create_c(int combiner, int nints, const int *ints, int ncounts, const MPI_Count *counts,
                   int ntypes, const MPI_Datatype *types, MPI_Datatype *newtype);
/* Flatten dt into its block list and mark it committed (idempotent).
 * Returns FM_OK, FM_ERR_NOMEM, or FM_ERR_ARG when it has over INT_MAX blocks. */
int fm_dt_commit(MPI_Datatype dt);

/* `reps` runs of `count` consecutive elements of `child`: run r starts at
 * byte displacement disp + r * rep_stride of the parent element.  Pieces
 * come in type-map order; a vector is one piece (reps = its count), so
 * walking it costs the same for 10 blocks as for 10^9. */
typedef struct fm_dt_piece {
    MPI_Aint disp;
    MPI_Count count;
    MPI_Datatype child;
    MPI_Count reps;       /* >= 1 */
    MPI_Aint rep_stride;
} fm_dt_piece;
typedef int fm_dt_piece_fn(void *ctx, const fm_dt_piece *piece);
/* Call fn for every piece of a derived dt (nothing for predefined ones);
 * stops at and returns the first non-zero fn result. */
int fm_dt_for_each_piece(MPI_Datatype dt, fm_dt_piece_fn *fn, void *ctx);

#endif
