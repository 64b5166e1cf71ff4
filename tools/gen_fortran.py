"""The Fortran bindings `mpif.h` and `use mpi` of every procedure fabmpi
defines, from the standard's apis.json (imported by tools/gen-mpi-api):

  src/fortran/bindings_<family>.c  mpi_x_ and pmpi_x_ (gfortran's names) in
                              C, one file per family of tools/mpi_families.py:
                              convert INTEGER handles, statuses, LOGICALs,
                              strings and sentinels, call MPI_X / PMPI_X
  src/fortran/interfaces.f90  the explicit interfaces the mpi module gives
  src/fortran/interfaces_f08.f90  the same for mpi_f08: its handle types,
                              TYPE(MPI_Status) and OPTIONAL ierror describe
                              the same C wrappers
  src/fortran/bindings_<family>_c.c  mpi_x_c_ and pmpi_x_c_: the large-count
                              variants (MPI_Send_c), which mpi_f08 alone
                              offers, as specific procedures of the generic
                              name (MPI_Send with an INTEGER(KIND=
                              MPI_COUNT_KIND) count); overload() says which

A procedure with a parameter these rules cannot convert (user callbacks,
attribute values) is listed in HAND_WRITTEN when src/fortran/special.c or
callbacks.c binds it; not_bound() says why the others are left out;
tests/check-api-coverage counts both.  The interfaces also declare the
predefined callbacks (MPI_COMM_DUP_FN, ...; src/fortran/callbacks_predefined.c)
and, in mpi_f08, the standard's abstract interfaces of the callbacks
callbacks.c converts."""

import mpi_families
import mpi_large

HANDLES = {  # kind -> (C type, MPI_<Name>_f2c name, f2c.h kind)
    'COMMUNICATOR': ('MPI_Comm', 'Comm', 'FM_F_COMM'),
    'DATATYPE': ('MPI_Datatype', 'Type', 'FM_F_TYPE'),
    'GROUP': ('MPI_Group', 'Group', 'FM_F_GROUP'),
    'OPERATION': ('MPI_Op', 'Op', 'FM_F_OP'),
    'REQUEST': ('MPI_Request', 'Request', 'FM_F_REQUEST'),
    'ERRHANDLER': ('MPI_Errhandler', 'Errhandler', 'FM_F_ERRHANDLER'),
    'INFO': ('MPI_Info', 'Info', 'FM_F_INFO'),
    'WINDOW': ('MPI_Win', 'Win', 'FM_F_WIN'),
    'MESSAGE': ('MPI_Message', 'Message', 'FM_F_MESSAGE'),
}
BUFFERS = {'BUFFER', 'C_BUFFER2'}
# Procedures whose user callbacks the library calls with Fortran's
# conventions, through trampolines (src/fortran/callbacks.c binds them).
# mpi_f08 declares their callback arguments with the standard's abstract
# interfaces; MPI_Op_create's user function stays EXTERNAL there.
CALLBACKS = {
    'MPI_Comm_create_errhandler', 'MPI_Win_create_errhandler', 'MPI_Comm_create_keyval',
    'MPI_Type_create_keyval', 'MPI_Win_create_keyval', 'MPI_Keyval_create', 'MPI_Grequest_start',
}
# Procedures whose Fortran binding is written by hand (src/fortran/special.c,
# callbacks.c).
HAND_WRITTEN = {
    'MPI_Comm_get_attr', 'MPI_Comm_set_attr', 'MPI_Type_get_attr', 'MPI_Type_set_attr',
    'MPI_Win_get_attr', 'MPI_Win_set_attr', 'MPI_Attr_get', 'MPI_Attr_put', 'MPI_Op_create',
    'MPI_Info_get_string',
} | CALLBACKS
# Not bound yet, and why: besides these, every other procedure that takes a
# user callback (not_bound(): MPI-IO's and sessions' error handlers, which
# fabmpi does not define yet).
NOT_BOUND = {}
# Arrays of handles whose length the standard writes as `*`: how to count.
STAR_LENGTH = {
    ('MPI_Alltoallw', 'sendtypes'): 'fm_f_comm_peers(PMPI_Comm_f2c(*comm))',
    ('MPI_Alltoallw', 'recvtypes'): 'fm_f_comm_peers(PMPI_Comm_f2c(*comm))',
    ('MPI_Ialltoallw', 'sendtypes'): 'fm_f_comm_peers(PMPI_Comm_f2c(*comm))',
    ('MPI_Ialltoallw', 'recvtypes'): 'fm_f_comm_peers(PMPI_Comm_f2c(*comm))',
    ('MPI_Alltoallw_init', 'sendtypes'): 'fm_f_comm_peers(PMPI_Comm_f2c(*comm))',
    ('MPI_Alltoallw_init', 'recvtypes'): 'fm_f_comm_peers(PMPI_Comm_f2c(*comm))',
    ('MPI_Neighbor_alltoallw', 'sendtypes'): 'fm_f_neighbors(PMPI_Comm_f2c(*comm), 1)',
    ('MPI_Neighbor_alltoallw', 'recvtypes'): 'fm_f_neighbors(PMPI_Comm_f2c(*comm), 0)',
    ('MPI_Ineighbor_alltoallw', 'sendtypes'): 'fm_f_neighbors(PMPI_Comm_f2c(*comm), 1)',
    ('MPI_Ineighbor_alltoallw', 'recvtypes'): 'fm_f_neighbors(PMPI_Comm_f2c(*comm), 0)',
    ('MPI_Neighbor_alltoallw_init', 'sendtypes'): 'fm_f_neighbors(PMPI_Comm_f2c(*comm), 1)',
    ('MPI_Neighbor_alltoallw_init', 'recvtypes'): 'fm_f_neighbors(PMPI_Comm_f2c(*comm), 0)',
}
# Indices into an array of requests: Fortran counts them from 1 (MPI-4.0
# 3.7.5); the C call's 0-based answers are shifted on the way out.
ONE_BASED = {
    ('MPI_Waitany', 'index'), ('MPI_Testany', 'index'),
    ('MPI_Waitsome', 'array_of_indices'), ('MPI_Testsome', 'array_of_indices'),
}


CALLBACK_KINDS = {'FUNCTION', 'FUNCTION_SMALL', 'POLYFUNCTION'}


def not_bound(entry):
    """Why the procedure has no generated binding, or None."""
    if entry['name'] in NOT_BOUND:
        return NOT_BOUND[entry['name']]
    if entry['name'] not in HAND_WRITTEN and \
            any(p['kind'] in CALLBACK_KINDS for p in entry['parameters']):
        return 'Fortran user callbacks: bind it in src/fortran/callbacks.c'
    return None


# Integer kinds of the same width here (8 bytes on every platform fabmpi
# builds for): a large-count variant that differs from its procedure only
# between them is the same Fortran interface, and the standard leaves it
# out of the generic (MPI_Type_get_extent_c).  Were they to differ, the
# generics these would then omit are still correct, only narrower.
WIDE_KINDS = ('MPI_ADDRESS_KIND', 'MPI_COUNT_KIND', 'MPI_OFFSET_KIND')


def f08_type(kinds, p, large):
    k = kinds[p['kind']]
    t = (large and k.get('f08_large')) or k['f08_small']
    return 'INTEGER(8)' if t and any(w in t for w in WIDE_KINDS) else t


def overload(entry, kinds, defined):
    """Why mpi_f08 has no large-count overload of this procedure (the
    specific MPI_X_c of the generic MPI_X), or None when it has one."""
    if entry['name'] + mpi_large.SUFFIX not in defined:
        return 'no large-count variant defined'
    if not entry['attributes']['f08_expressible']:
        return 'no mpi_f08 binding in the standard'
    if entry['name'] in HAND_WRITTEN or not_bound(entry):
        return 'takes a user callback, bound by hand in its small form only'
    small = [f08_type(kinds, p, False) for p in fortran_params(entry, 'f08')]
    large = [f08_type(kinds, p, True) for p in fortran_params(entry, 'f08', large=True)]
    if small == large:
        return 'the same Fortran interface as the procedure itself'
    return None


def callback_types(apis, defined):
    """The callback prototypes (MPI_Comm_copy_attr_function, ...) of the
    CALLBACKS procedures fabmpi defines, by lower-case name."""
    return {p['func_type'].lower() for name in CALLBACKS if name in defined
            for p in apis[name.lower()]['parameters'] if p['kind'] in CALLBACK_KINDS}


def predefined_callbacks(apis, defined, lang):
    """The predefined callbacks (MPI_COMM_DUP_FN, ...) of those prototypes
    that the mpi (f90) or mpi_f08 (f08) module declares, sorted."""
    types = callback_types(apis, defined)
    return sorted(e['name'] for e in apis.values()
                  if e['attributes']['predefined_function'] and
                  e['attributes']['predefined_function'].lower() in types and
                  e['attributes'][f'{lang}_expressible'])


def f90_params(entry, large=False):
    """The arguments of the Fortran binding (large: of the _c variant's)."""
    return [p for p in entry['parameters'] if 'f90_parameter' not in p['suppress'].split()
            and p['kind'] != 'VARARGS' and (large or not p['large_only'])]


def c_params(entry, large=False):
    return [p for p in entry['parameters'] if 'c_parameter' not in p['suppress'].split()
            and (large or not p['large_only'])]


def wrapper_param(kinds, p, large=False):
    """The C declaration of one Fortran argument as gfortran passes it."""
    kind, name = p['kind'], p['name']
    if kind in BUFFERS:
        return f'void *{name}'
    if kind == 'STRING':
        return f'char *{name}'
    ftype = (large and kinds[kind].get('f08_large')) or kinds[kind]['f90_small']
    if kind == 'C_BUFFER' or ftype.startswith('INTEGER(KIND='):
        ctype = 'MPI_Count' if 'COUNT_KIND' in ftype else \
            'MPI_Offset' if 'OFFSET_KIND' in ftype else 'MPI_Aint'
        return f'{ctype} *{name}'
    return f'MPI_Fint *{name}'


class Wrapper:
    """Builds the body of one C wrapper: declarations, conversions before
    the call, the call's arguments, conversions after."""

    def __init__(self, entry, kinds, large=False):
        self.e, self.kinds, self.large = entry, kinds, large
        self.name = entry['name']
        self.decl, self.before, self.args, self.after, self.cleanup = [], [], [], [], []
        self.fparams = f90_params(entry, large)
        self.fnames = {p['name'] for p in self.fparams}

    def length(self, p):
        length = p['length']
        if length == '*':
            return STAR_LENGTH[(self.name, p['name'])]
        if isinstance(length, list):
            length = length[0]
        if length in self.fnames:
            return f'*{length}'
        raise KeyError(f'{self.name}: length {length!r} of {p["name"]}')

    def handle(self, p):
        ctype, kname, fkind = HANDLES[p['kind']]
        n, d = p['name'], p['param_direction']
        c = f'c_{n}'
        if p['length'] is None:
            if d == 'in':
                self.decl.append(f'{ctype} {c} = PMPI_{kname}_f2c(*{n});')
            elif d == 'out':
                self.decl.append(f'{ctype} {c} = NULL;')
                self.after.append(f'*{n} = PMPI_{kname}_c2f({c});')
            else:
                self.decl.append(f'{ctype} {c} = PMPI_{kname}_f2c(*{n});')
                self.after.append(f'fm_f_update({fkind}, {n}, {c} == NULL, '
                                  f'PMPI_{kname}_c2f({c}));')
            self.args.append(c if d == 'in' and not p['pointer'] else f'&{c}')
            return
        count = self.length(p)
        self.decl.append(f'int n_{n} = {count};')
        self.decl.append(f'{ctype} *{c} = fm_f_array(n_{n}, sizeof *{c});')
        if d in ('in', 'inout'):
            self.before.append(f'for (int i = 0; i < n_{n}; i++)')
            self.before.append(f'    {c}[i] = PMPI_{kname}_f2c({n}[i]);')
        if d == 'out':
            self.after.append(f'for (int i = 0; i < n_{n}; i++)')
            self.after.append(f'    {n}[i] = PMPI_{kname}_c2f({c}[i]);')
        elif d == 'inout':
            self.after.append(f'for (int i = 0; i < n_{n}; i++)')
            self.after.append(f'    fm_f_update({fkind}, &{n}[i], {c}[i] == NULL, '
                              f'PMPI_{kname}_c2f({c}[i]));')
        self.cleanup.append(f'free({c});')
        self.args.append(c)

    def param(self, p):
        kind, n, d = p['kind'], p['name'], p['param_direction']
        if kind in HANDLES:
            return self.handle(p)
        if kind in BUFFERS:
            if kind == 'C_BUFFER2':   # MPI_Buffer_detach: the address means nothing to Fortran
                self.decl.append(f'void *c_{n} = NULL;')
                self.decl.append(f'(void){n};')
                self.args.append(f'&c_{n}')
            else:
                self.args.append(f'fm_f_buffer({n})')
            return
        if kind == 'C_BUFFER':  # an address as INTEGER(KIND=MPI_ADDRESS_KIND)
            self.decl.append(f'void *c_{n} = NULL;')
            self.args.append(f'&c_{n}')
            self.after.append(f'*{n} = (MPI_Aint)c_{n};')
            return
        if kind == 'STATUS':
            self.args.append(f'fm_f_statuses({n})' if p['length'] is not None
                             else f'fm_f_status({n})')
            return
        if kind == 'F08_STATUS':   # TYPE(MPI_Status): MPI_F08_status's layout
            self.args.append(f'(MPI_F08_status *){n}')
            return
        if kind == 'F90_STATUS':   # an INTEGER status, as C's MPI_Fint *
            self.args.append(n)
            return
        if (self.name, n) in ONE_BASED:
            return self.one_based(p)
        if kind == 'STRING':
            if d == 'in':
                # An info key or value loses its leading blanks too (MPI-4.0 10).
                strip = 'fm_f_cstring_info' if self.name.startswith('MPI_Info_') \
                    else 'fm_f_cstring'
                self.decl.append(f'char *c_{n} = {strip}({n}, {n}_len);')
                self.cleanup.append(f'free(c_{n});')
            else:
                self.decl.append(f'char *c_{n} = fm_f_array((int)fm_f_string_room({n}_len), 1);')
                # Written back only when the call set it (MPI_Info_get's flag).
                cond = ' && c_flag' if any(q['name'] == 'flag' for q in self.fparams) else ''
                self.after.insert(0, f'if (rc == MPI_SUCCESS{cond})')
                self.after.insert(1, f'    fm_f_fstring({n}, {n}_len, c_{n});')
                self.cleanup.append(f'free(c_{n});')
            self.args.append(f'c_{n}')
            return
        if kind == 'LOGICAL' and p['length'] is None and d != 'in':
            self.decl.append(f'int c_{n} = 0;')
            self.args.append(f'&c_{n}')
            self.after.append(f'*{n} = c_{n} ? FM_F_TRUE : 0;')
            return
        if kind == 'WEIGHT' and d == 'in':
            self.args.append(f'fm_f_weights({n})')
            return
        if isinstance(p['length'], list):   # MPI_Group_range_incl's ranges[][3]
            self.args.append(f'(int (*)[{p["length"][1]}]){n}')
            return
        # Integers and LOGICAL arrays (gfortran: 0 and 1) have C's layout.
        pointer = p['length'] is not None or d != 'in'
        self.args.append(n if pointer else f'*{n}')

    def one_based(self, p):
        n = p['name']
        if p['length'] is None:   # MPI_UNDEFINED (none active) stays as it is
            self.decl.append(f'int c_{n} = MPI_UNDEFINED;')
            self.args.append(f'&c_{n}')
            self.after.append(f'*{n} = c_{n} >= 0 ? c_{n} + 1 : c_{n};')
            return
        self.args.append(n)       # written only for the outcount completed
        self.after.append('if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && '
                          '*outcount != MPI_UNDEFINED)')
        self.after.append('    for (int i = 0; i < *outcount; i++)')
        self.after.append(f'        {n}[i]++;')

    def render(self):
        for p in c_params(self.e, self.large):
            if p['kind'] == 'ARGUMENT_COUNT' and p['pointer'] is False:
                self.args.append('0')       # MPI_Info_create_env(argc, argv): none
            elif p['kind'] in ('ARGUMENT_COUNT', 'ARGUMENT_LIST'):
                self.args.append('NULL')
            elif p['kind'] == 'VARARGS':
                continue
            else:
                self.param(p)
        has_ierror = any(p['name'] == 'ierror' for p in self.fparams)
        callee = self.name + (mpi_large.SUFFIX if self.large else '')
        call = f'(profiled ? P{callee} : {callee})({", ".join(self.args)})'
        lines = [f'    {x}' for x in self.decl + self.before]
        ret = self.e['return_kind']
        if ret != 'ERROR_CODE':
            lines.append(f'    return {call};')
        elif not has_ierror:   # MPI_Pcontrol
            lines.append(f'    {call};')
        else:
            lines.append(f'    int rc = {call};')
            lines += [f'    {x}' for x in self.after + self.cleanup]
            if has_ierror:   # absent (NULL) when mpi_f08 leaves out the OPTIONAL ierror
                lines.append('    if (ierror)')
                lines.append('        *ierror = rc;')
        return lines


def signature(entry, kinds, name, large=False):
    params = [wrapper_param(kinds, p, large) for p in f90_params(entry, large)]
    params += [f'size_t {p["name"]}_len' for p in f90_params(entry, large)
               if p['kind'] == 'STRING']
    ret = entry['return_kind']
    rtype = 'void' if ret == 'ERROR_CODE' else kinds[ret]['iso_c_small']
    return rtype, f'{name}({", ".join(params) or "void"})'


def cptr_form(e):
    """The standard's second specific of the mpi module's generic, whose
    baseptr is TYPE(C_PTR) (MPI_Alloc_mem, MPI_Win_allocate, ...)."""
    return bool(e['attributes'].get('f90_index_overload'))


def wrapper(e, kinds, large):
    """The C lines of one procedure's binding: a static body taking
    `profiled`, then mpi_x_ and pmpi_x_ (large: mpi_x_c_, pmpi_x_c_)."""
    low = e['name'].lower() + (mpi_large.SUFFIX if large else '')
    rtype, sig = signature(e, kinds, 'f_' + low[4:], large)
    params = f90_params(e, large)
    args = [p['name'] for p in params] + [f'{p["name"]}_len' for p in params
                                          if p['kind'] == 'STRING']
    out = [f'/* {e["name"]}{mpi_large.SUFFIX if large else ""} */']
    sig = sig.replace('(void)', '(int profiled)') if sig.endswith('(void)') else \
        sig.replace('(', '(int profiled, ', 1)
    out.append(f'static inline {rtype} {sig}')
    out.append('{')
    out += Wrapper(e, kinds, large).render()
    out.append('}')
    # The mpi module's TYPE(C_PTR) form (MPI_Alloc_mem_cptr: an address
    # passed alike) binds to the same body.
    forms = [''] + (['_cptr'] if cptr_form(e) and not large else [])
    for form in forms:
        for prefix, prof in (('', 0), ('p', 1)):
            _, s = signature(e, kinds, f'{prefix}{low}{form}_', large)
            call = f'f_{low[4:]}({", ".join([str(prof)] + args)})'
            out.append(f'{rtype} {s}')
            out.append(f'{{ {"return " if rtype != "void" else ""}{call}; }}')
    out.append('')
    return out


def file_head(fam, what, large):
    if large:
        first = [f'/* bindings_{fam}_c.c - the large-count Fortran bindings (use mpi_f08) of',
                 f' * {what}: mpi_x_c_ calls MPI_X_c,',
                 ' * pmpi_x_c_ PMPI_X_c; mpi_f08\'s generic MPI_X names them as its specific',
                 ' * MPI_X_c (tools/gen_fortran.py overload()).']
    else:
        first = [f'/* bindings_{fam}.c - the Fortran bindings (mpif.h, use mpi) of',
                 f' * {what}: of the procedures fabmpi defines, mpi_x_ calls MPI_X,',
                 ' * so a C profiling library sees Fortran calls too; pmpi_x_ calls PMPI_X.']
    return first + [' *',
                    ' * GENERATED by tools/gen-mpi-api from the MPI standard\'s apis.json; do',
                    ' * not edit.  Conversions: src/fortran/bindings.h. */',
                    '#include "fortran/bindings.h"', '']


def c_bindings(apis, kinds, defined):
    """({file key: text of src/fortran/bindings_<key>.c}, names bound): key
    <family> for the procedures, <family>_c for their large-count variants."""
    files = {}
    bound = []
    for key in sorted(apis):
        e = apis[key]
        name = e['name']
        if (name not in defined or not e['attributes']['f90_expressible'] or
                name in HAND_WRITTEN or not_bound(e)):
            continue
        fam, what = mpi_families.family(name)
        variants = [False] + ([True] if overload(e, kinds, defined) is None else [])
        for large in variants:
            k = fam + mpi_large.SUFFIX if large else fam
            if k not in files:
                files[k] = file_head(fam, what, large)
            files[k] += wrapper(e, kinds, large)
        bound.append(name)
    return {k: '\n'.join(out) for k, out in files.items()}, bound


# ---- the mpi module's interfaces -----------------------------------------

def fortran_params(entry, lang, large=False):
    if lang == 'f90':
        return f90_params(entry, large)
    return [p for p in entry['parameters'] if 'f08_parameter' not in p['suppress'].split()
            and p['kind'] != 'VARARGS' and (large or not p['large_only'])]


def fortran_decl(kinds, p, lang, abstract=frozenset(), large=False):
    """A dummy argument of the interface in `use mpi` (f90) or `use mpi_f08`
    (f08).  Both describe the same C wrapper: an f08 handle type holds
    just its INTEGER (MPI_VAL), TYPE(MPI_Status) is the INTEGER status, and
    TYPE(C_PTR) is an address integer, so they pass alike.  A callback whose
    prototype is in `abstract` (f08) has that abstract interface."""
    kind, name = p['kind'], p['name']
    ftype = (large and kinds[kind].get('f08_large')) or kinds[kind][f'{lang}_small']
    intent = {'in': 'IN', 'out': 'OUT', 'inout': 'INOUT'}[p['param_direction']]
    dims = ''
    if p['length'] is not None:
        dims = '(3, *)' if isinstance(p['length'], list) else '(*)'
    if kind in BUFFERS:
        # Buffers of nonblocking calls: the program's must be ASYNCHRONOUS
        # too, or the compiler may move its stores past the call.
        asynchronous = ', ASYNCHRONOUS' if p['asynchronous'] else ''
        return [f'!GCC$ ATTRIBUTES NO_ARG_CHECK :: {name}',
                f'TYPE(*), DIMENSION(*){asynchronous} :: {name}']
    if kind == 'STRING':
        return [f'CHARACTER(LEN=*), INTENT({intent}) :: {name}']
    if kind == 'F90_STATUS':
        return [f'INTEGER, INTENT({intent}) :: {name}(MPI_STATUS_SIZE)']
    if kind == 'STATUS' and lang == 'f90':
        dims = 'MPI_STATUS_SIZE, *' if p['length'] is not None else 'MPI_STATUS_SIZE'
        return [f'INTEGER, INTENT({intent}) :: {name}({dims})']
    if kind in ('FUNCTION', 'POLYFUNCTION'):
        if lang == 'f08' and p['func_type'].lower() in abstract:
            return [f'PROCEDURE({p["func_type"]}) :: {name}']
        return [f'EXTERNAL :: {name}']
    if kind == 'C_BUFFER' and lang == 'f90':
        ftype = 'INTEGER(KIND=MPI_ADDRESS_KIND)'
    if name == 'ierror' and lang == 'f08':
        return [f'{ftype}, OPTIONAL, INTENT({intent}) :: {name}']
    return [f'{ftype}, INTENT({intent}) :: {name}{dims}']


def abstract_interfaces(apis, kinds, types):
    """mpi_f08's abstract interfaces of the callback prototypes `types`, as
    the standard writes them (no INTENT; the error handlers' varargs have
    no Fortran form)."""
    out = ['ABSTRACT INTERFACE']
    for key in sorted(types):
        e = apis[key]
        params = fortran_params(e, 'f08')
        out.append(f'  SUBROUTINE {e["name"]}({", ".join(p["name"] for p in params)})')
        out.append('    IMPORT')
        out.append('    IMPLICIT NONE')
        for p in params:
            out.append(f'    {kinds[p["kind"]]["f08_small"]} :: {p["name"]}')
        out.append('  END SUBROUTINE')
    out += ['END INTERFACE', '']
    return out


def fortran_interfaces(apis, kinds, names, lang, defined=frozenset()):
    module = {'f90': 'mpi module (src/fortran/mpi.f90)',
              'f08': 'mpi_f08 module (src/fortran/mpi_f08.f90)'}[lang]
    out = [f'! interfaces{"_f08" if lang == "f08" else ""}.f90 - explicit interfaces of the '
           'Fortran bindings,',
           f'! included by the {module}.',
           '!',
           "! GENERATED by tools/gen-mpi-api from the MPI standard's apis.json; do not",
           '! edit.', '']
    abstract = callback_types(apis, defined) if lang == 'f08' else frozenset()
    abstract = {t for t in abstract if apis[t]['attributes']['f08_expressible']}
    if abstract:
        out += abstract_interfaces(apis, kinds, abstract)
    def interface(e, large, prefix='', cptr=False):
        params = fortran_params(e, lang, large)
        plist = ', '.join(p['name'] for p in params)
        name = prefix + e['name'] + (mpi_large.SUFFIX if large else '') + \
            ('_CPTR' if cptr else '')
        ret = e['return_kind']
        if ret == 'ERROR_CODE':
            head, tail = f'SUBROUTINE {name}({plist})', 'END SUBROUTINE'
        else:
            rtype = kinds[ret][f'{lang}_small'] or 'DOUBLE PRECISION'
            head, tail = f'{rtype} FUNCTION {name}({plist})', 'END FUNCTION'
        lines = [f'  {head}']
        if cptr:
            lines.append('    USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR')
        lines += ['    IMPORT', '    IMPLICIT NONE']
        for p in params:
            if cptr and p['name'] == 'baseptr':
                lines.append('    TYPE(C_PTR), INTENT(OUT) :: baseptr')
                continue
            lines += [f'    {x}' for x in fortran_decl(kinds, p, lang, abstract, large)]
        return lines + [f'  {tail}']

    plain, generic = [], []
    for name in names:
        e = apis[name.lower()]
        if not e['attributes'][f'{lang}_expressible']:
            continue
        if lang == 'f08' and overload(e, kinds, defined) is None:
            # The generic name, with the procedure and its large-count
            # variant as specifics (Fortran lets one share the name).
            generic += [f'INTERFACE {name}'] + interface(e, False) + interface(e, True) + \
                       [f'END INTERFACE {name}', '']
        elif lang == 'f90' and cptr_form(e):
            generic += [f'INTERFACE {name}'] + interface(e, False) + \
                interface(e, False, cptr=True) + [f'END INTERFACE {name}', '']
        else:
            plain += interface(e, False)
        if e['return_kind'] != 'ERROR_CODE':
            # A function's profiling name needs its type declared too
            # (PMPI_Wtime would be a REAL); a subroutine's is called as it is.
            plain += interface(e, False, 'P')
    out += ['INTERFACE'] + plain + ['END INTERFACE', ''] + generic
    # The predefined callbacks, external procedures of libfabmpi_fortran.
    predefined = predefined_callbacks(apis, defined, lang)
    if predefined:
        out.append('! The predefined callbacks (src/fortran/callbacks_predefined.c).')
        if lang == 'f08':
            for name in predefined:
                iface = apis[name.lower()]['attributes']['predefined_function']
                out.append(f'PROCEDURE({iface}) :: {name}')
        else:
            out.append(f'EXTERNAL :: {", ".join(predefined)}')
        out.append('')
    return '\n'.join(out)
