"""The MPI-4.0 large-count variants (MPI_Send_c, MPI_Type_size_c, ...):
which procedures of the standard have one, and how its C binding differs.

apis.json lists each procedure once; its `_c` variant is implied (the
standard's README beside apis.json): a procedure has one when a C parameter
has a kind whose C type differs in the large binding (`iso_c_large` in
kinds.json: int -> MPI_Count, MPI_Aint -> MPI_Count, int -> MPI_Aint), takes
a callback whose large form has a count of its own (POLYFUNCTION:
MPI_User_function -> MPI_User_function_c), or has parameters that exist only
there (`large_only`: MPI_Type_get_envelope_c's num_large_counts).

Imported by tools/gen-mpi-api (the C prototypes) and tests/check-api-coverage
(the variants count as procedures of the standard)."""

SUFFIX = '_c'


def c_parameters(entry, large):
    """The parameters of the C binding, small or large."""
    return [p for p in entry['parameters']
            if 'c_parameter' not in p['suppress'].split() and (large or not p['large_only'])]


def large_ctype(kinds, kind):
    """The C type of `kind` in the large binding, None where it is the small one."""
    k = kinds.get(kind, {})
    large = k.get('iso_c_large')
    return large if large and large != k.get('iso_c_small') else None


def has_variant(entry, kinds):
    return any(p['large_only'] or p['kind'] == 'POLYFUNCTION' or large_ctype(kinds, p['kind'])
               for p in c_parameters(entry, True))


def is_procedure(entry):
    """A C-expressible procedure, neither a callback prototype nor a
    predefined callback (what tests/check-api-coverage counts)."""
    a = entry['attributes']
    return a['c_expressible'] and not a['callback'] and not a['predefined_function']


def variants(apis, kinds):
    """{'MPI_Send_c': 'mpi_send', ...}: every large-count procedure, with
    the apis.json key of the procedure it is the variant of."""
    return {e['name'] + SUFFIX: key for key, e in apis.items()
            if is_procedure(e) and has_variant(e, kinds)}
