"""Which part of MPI a procedure belongs to, by its name: the generated
files are split along these families so each stays small and says what it
holds (src/fortran/bindings_<family>.c).  A nonblocking form (MPI_Ibcast,
MPI_Isend, MPI_Ineighbor_alltoall) goes with its blocking one.  The first
family whose pattern matches wins; the rest is the environment."""

import re

# (family, what it holds, regex on the name without MPI_ and without the I
# of a nonblocking form)
FAMILIES = [
    ('io', 'files (MPI-IO)', r'File_|Register_datarep'),
    ('tools', 'the tools interface (MPI_T)', r'T_'),
    ('topo', 'process topologies and neighborhood collectives',
     r'Cart|Graph|Dist_graph|Dims_create|Topo_test|Neighbor_'),
    ('rma', 'one-sided communication',
     r'Win_|Put$|Get$|Get_accumulate|Rput$|Rget$|Rget_accumulate|Accumulate|Raccumulate'
     r'|Fetch_and_op|Compare_and_swap|Alloc_mem|Free_mem'),
    ('icoll', 'nonblocking and persistent collective operations',
     r'I(barrier|bcast|gatherv?|scatterv?|allgatherv?|alltoall[vw]?|reduce|allreduce'
     r'|reduce_scatter(_block)?|scan|exscan)$'
     r'|(Barrier|Bcast|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|Reduce|Allreduce'
     r'|Reduce_scatter(_block)?|Scan|Exscan)_init$'),
    ('coll', 'blocking collective operations and reduction operators',
     r'(Barrier|Bcast|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|Reduce|Allreduce'
     r'|Reduce_scatter(_block)?|Scan|Exscan)$|Reduce_local|Op_'),
    ('dtype', 'datatypes and packing',
     r'Type_|Pack|Unpack|Get_address|Get_elements|Aint_'),
    ('comm', 'groups, communicators and their attributes',
     r'Comm_|Group_|Intercomm_|Keyval_|Attr_'),
    ('pt2pt', 'point-to-point communication and requests',
     r'Send|[BSR]send|Recv|Sendrecv|Probe|Mprobe|Mrecv|Buffer_|Request_|Wait|Test|Start|Cancel'
     r'|Get_count|Status_|P(send|recv)_init|Pready|Parrived|Grequest_'),
]
ENV = ('env', 'the environment: init and finalize, errors, info, threads, timers')


def family(name):
    """(family, what it holds) of MPI_<name>."""
    short = name[4:] if name.startswith('MPI_') else name
    forms = [short]
    if len(short) > 2 and short[0] == 'I' and short[1].islower():
        forms.append(short[1].upper() + short[2:])  # Ibcast -> Bcast
    for fam, what, pattern in FAMILIES:
        if any(re.match(pattern, f) for f in forms):
            return fam, what
    return ENV


# The order families are presented in (a header's sections): the standard's
# chapters, roughly.
ORDER = ['env', 'pt2pt', 'dtype', 'coll', 'icoll', 'comm', 'topo', 'rma', 'io', 'tools']
