"""Shape operations on run-time arrays: transpose, reshape, expand_dims, squeeze, split, concatenate, stack, and
the array constructors (zeros, full, arange, eye, tri ...) when a size or fill value is a run-time value.

Sizes are Dims (types/shapes.py): a static int, an argument's dim, or an expression of them, so `np.split(x, 3)`
of a run-time dim gives three pieces of one shared size `(d//3)`, and a reshape or split that NumPy would refuse
for some sizes becomes a guard checked before the call.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import Sym, broadcast, data_sized, derived, is_checkable, readable
from .builder import Builder, as_operand, check_python_int_fits, coerce
from .elementwise import as_dim, int64_const, size_values


def as_var(b: Builder, a) -> Var:
    a = as_operand(a)
    return a if isinstance(a, Var) else b.const(np.asarray(a))


def as_size(value, what: str = "size", b: Builder | None = None):
    """A size given by the program: an int, or a run-time int (a dim, or a value computed in the kernel). With a
    builder, a value computed in the kernel is an array size, checked there (`kernel_size`)."""
    if isinstance(value, Sym):
        return value
    d = as_dim(value)
    if d is not None:
        if isinstance(d, int) and d < 0:
            raise UserError(f"negative dimensions are not allowed ({what} {d})", ValueError)
        return d
    if isinstance(value, Var) and value.ndim == 0 and value.dtype.kind in "iu":
        from .indexing import run_time_int
        return kernel_size(b, value) if b is not None else run_time_int(value)
    raise UserError(f"{what} must be an integer, got {type(value).__name__}", TypeError)


def kernel_size(b: Builder, value: Var):
    """An array size only the kernel knows (`np.zeros(k)` for a `k` read from an array): a negative one is NumPy's
    ValueError, raised at the call, and the kernel allocates nothing for it (clamped to 0)."""
    from .indexing import run_time_int
    b.check(b.emit1("lt", [value, b.const(np.zeros((), value.dtype))], dtypes.BOOL, ()), ValueError,
            "negative dimensions are not allowed")
    if value.dtype == np.uint64:    # past int64 it would be a negative index (and an empty array)
        b.check(b.emit1("gt", [value, b.const(np.array(2**63 - 1, np.uint64))], dtypes.BOOL, ()), ValueError,
                "Maximum allowed dimension exceeded")
    return input_size(b, value) or limited(b, derived("max", run_time_int(value), 0))


def input_size(b: Builder, value: Var):
    """`max(n, 0)` for an int argument `n` of the compiled function, or None for any other value. Sizes made of it
    are computed before the call, where every array size they make is checked (runtime/allocation.py:
    np.zeros((n, n)) past memory is NumPy's MemoryError, not a crash in the kernel); one dim per argument, so that
    two arrays of size n have one size (np.meshgrid's grids of `np.linspace(a, b, n)`s: with sizes checked in the
    kernel each grid had a size of its own, and adding them was a run-time broadcast)."""
    n = input_int(b, value)
    if n is None:
        return None
    if getattr(value, "_input_dim", None) is None:
        value._input_dim = derived("max", n, 0)
    return value._input_dim


def input_int(b: Builder, value: Var):
    """An int argument `n` of the compiled function as a dim expression (its value, negative or not), or None for
    any other value; one Sym per argument."""
    if not b.top_level or not any(value is v for v in b.program.inputs):
        return None
    if getattr(value, "_input_sym", None) is None:
        index = next(i for i, v in enumerate(b.program.inputs) if v is value)
        value._input_sym = Sym(f"int({b.program.input_names[index]})", ("input", index, value))
    return value._input_sym


def fitting(b: Builder, dims: tuple, dtype) -> tuple:
    """The shape of a new array (np.zeros, np.eye ...) made of sizes computed from data (each already checked by
    `limited`): if their product's bytes exceed this machine's memory, NumPy's MemoryError at the call, and every
    such dim is 0 (a failed allocation cannot unwind: the kernel must never ask for it)."""
    data = [d for d in dims if data_sized(d)]
    if not data or len(dims) == 1 and np.dtype(dtype).itemsize <= 8:
        return dims
    too_big = b.exceeds_memory(dims, dtype)
    b.check(too_big, MemoryError, f"Unable to allocate an array of data type {np.dtype(dtype)} whose sizes, computed "
                                  "from the data, need more than this machine's memory")
    # each data-sized dim allowed up to a limit that is -1 when the whole does not fit
    limit = b.emit1("select", [too_big, b.const(np.int64(-1)), b.const(np.int64(2**62))], dtypes.INT64, ())
    from .indexing import run_time_int
    allowed = run_time_int(limit)
    return tuple(derived("upto", d, allowed) if any(d is x for x in data) else d for d in dims)


def _bounded(d) -> bool:
    """Whether a dim is at most an expression of the arguments' dims (a slice's length, `min(k, n)` ...)."""
    if isinstance(d, int) or is_checkable(d):
        return True
    kind, *operands = d.origin
    if kind == "min":
        return any(_bounded(o) for o in operands)
    if kind == "ifneg":
        return all(_bounded(o) for o in operands[1:])
    return kind in ("add", "sub", "mul", "floordiv", "max", "wrap", "same", "bcast", "upto") and \
        all(map(_bounded, operands))


def limited(b: Builder, d):
    """A dim computed in the kernel, as the kernel allocates it: one larger than this machine's memory (where
    `malloc` would fail, and a failed allocation cannot unwind) is NumPy's MemoryError, raised at the call, and the
    kernel allocates nothing for it."""
    from ..runtime.allocation import memory_limit
    if _bounded(d):      # no larger than the arguments' dims: checked before the call (runtime/allocation.py)
        return d
    limit = memory_limit() // 8     # elements of up to 8 bytes: any array of such a length fits
    size = b.emit1("size_value", [], dtypes.INT64, (), dim=d)
    b.check(b.emit1("gt", [size, b.const(np.int64(limit))], dtypes.BOOL, ()), MemoryError,
            f"Unable to allocate an array with a dimension of more than {limit} elements, this machine's memory in "
            "8-byte items (a size computed from the data)")
    return derived("upto", d, limit)


def normalize_axis(axis, ndim: int) -> int:
    if isinstance(axis, Var):
        raise UserError("axis must be known at compile time", TypeError)
    try:
        return int(np.lib.array_utils.normalize_axis_index(axis, ndim))
    except np.exceptions.AxisError as e:
        raise UserError(str(e), np.exceptions.AxisError) from None


# ---- permutations and reshapes -----------------------------------------------------------------------------------
def transpose(b: Builder, a, axes=None) -> Var:
    x = as_var(b, a)
    if axes is None:
        perm = tuple(reversed(range(x.ndim)))
    else:
        perm = tuple(normalize_axis(ax, x.ndim) for ax in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise UserError("axes don't match array", ValueError)
    if perm == tuple(range(x.ndim)):
        return same_view(b, x)
    return b.emit1("transpose", [x], x.dtype, tuple(x.shape[p] for p in perm), perm=perm)


def same_view(b: Builder, x: Var) -> Var:
    """A view op that changes nothing (`x.T` of a 1-d x, `x.reshape(x.shape)`, `x[...]`): in NumPy a new view of
    x, not x itself, so a returned one is a new array object that shares x's memory. An identity transpose, which
    codegen passes through. Scalars stay themselves (a NumPy scalar's .T is itself)."""
    if x.scalar or x.weak:
        return x
    return b.emit1("transpose", [x], x.dtype, x.shape, perm=tuple(range(x.ndim)))


def transpose_method(b: Builder, x, *axes):
    if len(axes) == 1 and (isinstance(axes[0], (tuple, list)) or axes[0] is None):
        axes = axes[0]
    return transpose(b, x, axes if axes else None)


def swapaxes(b: Builder, a, axis1, axis2) -> Var:
    x = as_var(b, a)
    perm = list(range(x.ndim))
    i, j = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(b, x, perm)


def reshape(b: Builder, a, shape, order="C") -> Var:
    if order != "C":
        raise UserError("only order='C' reshapes are supported", TypeError)
    x = as_var(b, a)
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    dims = []
    unknown = None
    for i, s in enumerate(shape):
        if isinstance(s, (int, np.integer)) and int(s) < 0:    # (NumPy takes any negative size as the unknown one)
            if unknown is not None:
                raise UserError("can only specify one unknown dimension", ValueError)
            unknown = i
            dims.append(None)
        else:
            dims.append(as_size(s, "reshape dimension"))
    total = product(x.shape, b)
    known = product([d for d in dims if d is not None], b)
    if unknown is not None:
        if isinstance(known, Sym) and not is_checkable(known):    # sizes the kernel computes: a check in it
            _check_nonzero_product(b, [s for i, s in enumerate(shape) if i != unknown],
                                   f"cannot reshape array of size {total} into shape with -1 and a zero dim")
        elif isinstance(known, Sym):    # NumPy cannot infer -1 when the other dims multiply to 0
            b.env.require_nonzero(known, f"cannot reshape array of size {total} into shape with -1 and a zero dim")
        elif known == 0:              # known while compiling (static shapes, a literal 0)
            raise UserError(f"cannot reshape array of size {total} into shape with -1 and a zero dim", ValueError)
        dims[unknown] = derived("floordiv", total, known)
    shown = ", ".join("-1" if d is None else readable(d) for d in dims)
    b.env.unify(product(dims, b), total, f"cannot reshape array of size {readable(total)} into shape ({shown})")
    dims = tuple(dims)
    if tuple(b.env.find(d) for d in dims) == tuple(b.env.find(d) for d in x.shape):
        return same_view(b, x)
    return b.emit1("reshape", [x], x.dtype, dims)


def _check_nonzero_product(b: Builder, sizes: list, message: str) -> None:
    """NumPy's ValueError when the run-time `sizes` (ints and run-time ints) multiply to 0, checked in the kernel."""
    from . import elementwise as ew
    zero = None
    for size in sizes:
        if isinstance(size, (int, np.integer)):
            if int(size) == 0:
                raise UserError(message, ValueError)
            continue
        flag = ew.apply_ufunc(b, np.equal, [size, 0])
        zero = flag if zero is None else ew.apply_ufunc(b, np.logical_or, [zero, flag])
    if zero is not None:
        b.check(zero, ValueError, message)


def require_nonzero(b: Builder, d, message: str) -> None:
    """NumPy's ValueError when the size `d` is 0: before the call where the arguments' sizes give it, otherwise
    checked in the kernel (a size computed from the data, such as a selection's length passed to an outlined
    function that reshapes it with -1)."""
    if is_checkable(d):
        b.env.require_nonzero(d, message)
        return
    size = b.emit1("size_value", [], dtypes.INT64, (), dim=d)
    b.check(b.emit1("eq", [size, b.const(np.int64(0))], dtypes.BOOL, ()), ValueError, message)


def reshape_method(b: Builder, x, *shape, order="C"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return reshape(b, x, shape, order)


def product(dims, b: Builder):
    total = 1
    for d in dims:
        total = derived("mul", total, b.env.find(d))
    return total


def expand_dims(b: Builder, a, axis) -> Var:
    x = as_var(b, a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = x.ndim + len(axes)
    axes = tuple(sorted(normalize_axis(ax, ndim) for ax in axes))
    if len(set(axes)) != len(axes):
        raise UserError("repeated axis", ValueError)
    shape = list(x.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return b.emit1("expand_dims", [x], x.dtype, tuple(shape), axes=axes)


def squeeze(b: Builder, a, axis=None) -> Var:
    x = as_var(b, a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if b.env.find(d) == 1)
        for i, d in enumerate(x.shape):
            if i not in axes and not _never_one(b.env.find(d)):   # kept: NumPy removes it where it is 1
                size = b.emit1("size_value", [], dtypes.INT64, (), dim=d)
                b.check(b.emit1("eq", [size, b.const(np.int64(1))], dtypes.BOOL, ()), ValueError,
                        f"squeeze(): axis {i} has a size known only at run time, here 1, which NumPy removes; a "
                        "result whose rank depends on the data is not supported: give squeeze an axis, or reshape")
    else:
        axes = tuple(sorted({normalize_axis(ax, x.ndim) for ax in (axis if isinstance(axis, (tuple, list))
                                                                     else (axis,))}))
        if any(b.env.find(x.shape[ax]) != 1 for ax in axes):
            raise UserError("cannot select an axis to squeeze out which has size not equal to one", ValueError)
    if not axes:
        return x        # NumPy's squeeze with nothing to squeeze returns the array itself
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return b.emit1("squeeze", [x], x.dtype, shape, axes=axes)


def _never_one(d) -> bool:
    """A size that cannot be 1 when the kernel runs: a static size other than 1, an argument's dim (a dim of 1 is
    specialized, static), and sums and products of those (0, or at least 2)."""
    if isinstance(d, int):
        return d != 1
    kind = d.origin[0]
    return kind == "arg" or kind in ("add", "mul") and all(_never_one(o) for o in d.origin[1:])


# ---- pieces and joins -----------------------------------------------------------------------------------------
def take_slice(b: Builder, x: Var, axis: int, start, size) -> Var:
    """x[..., start:start+size, ...] along `axis` (start and size are Dims known to be in range)."""
    specs = [("all",)] * x.ndim
    specs[axis] = ("range", start, size, 1)
    shape = tuple(size if i == axis else d for i, d in enumerate(x.shape))
    return b.emit1("slice", [x], x.dtype, shape, specs=tuple(specs))


# pieces of np.split / np.array_split made while compiling, one view each (about 0.3 ms apiece): a count past it
# (np.split(x, n) with n = 10**12) ran for hours and took all the memory before anything was checked
MAX_PIECES = 20_000


def _check_pieces(k: int) -> None:
    if k > MAX_PIECES:
        raise UserError(f"splitting into {k} pieces is not supported: the compiler makes one array per piece (at most "
                        f"{MAX_PIECES}); index the array instead", TypeError)


def split(b: Builder, a, indices_or_sections, axis=0) -> list:
    x = as_var(b, a)
    axis = normalize_axis(axis, x.ndim)
    n = b.env.find(x.shape[axis])
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise UserError("number sections must be larger than 0.", ValueError)
        _check_pieces(k)
        piece = derived("floordiv", n, k)
        b.env.unify(derived("mul", piece, k), n, "array split does not result in an equal division")
        return [take_slice(b, x, axis, derived("mul", piece, i), piece) for i in range(k)]
    return _split_at(b, x, axis, n, list(indices_or_sections))


def array_split(b: Builder, a, indices_or_sections, axis=0) -> list:
    x = as_var(b, a)
    axis = normalize_axis(axis, x.ndim)
    n = b.env.find(x.shape[axis])
    if not isinstance(indices_or_sections, (int, np.integer)):
        return _split_at(b, x, axis, n, list(indices_or_sections))
    k = int(indices_or_sections)
    if k <= 0:
        raise UserError("number sections must be larger than 0.", ValueError)
    _check_pieces(k)
    base = derived("floordiv", n, k)
    extra = derived("sub", n, derived("mul", base, k))      # the first `extra` pieces get one more element
    pieces, start = [], 0
    for i in range(k):
        size = derived("add", base, derived("min", derived("max", derived("sub", extra, i), 0), 1))
        pieces.append(take_slice(b, x, axis, start, size))
        start = derived("add", start, size)
    return pieces


def _split_at(b: Builder, x: Var, axis: int, n, indices: list) -> list:
    """np.split at explicit indices: pieces x[i:j] with NumPy's slice clamping."""
    _check_pieces(len(indices) + 1)
    bounds = [0] + [_clamp_index(as_dim_or_error(i), n) for i in indices] + [n]
    pieces = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        size = derived("max", derived("sub", hi, lo), 0)
        pieces.append(take_slice(b, x, axis, derived("min", lo, n), size))
    return pieces


def as_dim_or_error(i):
    d = as_dim(i)
    if d is None:
        raise UserError("split indices must be integers", TypeError)
    return d


def _clamp_index(i, n):
    if isinstance(i, int):    # past any length (np.split(x, [2**70])): NumPy's slice clamps it; int64 constants here
        i = max(min(i, 2**62), -2**62)
    if isinstance(i, int) and i < 0:
        i = derived("max", derived("add", n, i), 0)
    return derived("min", i, n)


def concatenate(b: Builder, arrays, axis=0, dtype=None) -> Var:
    if axis is None:
        arrays = [reshape(b, a, (-1,)) for a in arrays]
        axis = 0
    from .values import contains_var
    # a list holding run-time numbers ([len(x)], [x[0], 1.0]) is an array of them, as NumPy makes it
    xs = [stack(b, a) if isinstance(a, (list, tuple)) and contains_var(a) else as_var(b, a) for a in arrays]
    if not xs:
        raise UserError("need at least one array to concatenate", ValueError)
    ndim = xs[0].ndim
    if ndim == 0 or any(x.ndim != ndim for x in xs):
        raise UserError("all the input arrays must have same number of dimensions", ValueError)
    axis = normalize_axis(axis, ndim)
    out_dt = dtypes.check_supported(dtype) if dtype is not None else np.result_type(*[x.dtype for x in xs])
    xs = [coerce(b, x, out_dt) for x in xs]
    from .elementwise import equal_in_kernel
    message = "all the input array dimensions except for the concatenation axis must match exactly"
    for i in range(ndim):     # lengths only the kernel knows (x[a:a + n, None] beside x[b:b + n, None]): there
        if i != axis:
            xs = equal_in_kernel(b, [(x, i) for x in xs], f"{message} (sizes known only when the kernel runs)") or xs
    shape = list(xs[0].shape)
    for x in xs[1:]:
        for i in range(ndim):
            if i != axis:
                shape[i] = b.env.unify(shape[i], x.shape[i], message)
    total = 0
    for x in xs:
        total = derived("add", total, b.env.find(x.shape[axis]))
    shape[axis] = total
    if len(xs) == 1:      # NumPy still returns a new array
        return b.emit1("copy", xs, out_dt, tuple(shape))
    return b.emit1("concat", xs, out_dt, tuple(shape), axis=axis)


def stack(b: Builder, arrays, axis=0) -> Var:
    xs = [as_var(b, a) for a in arrays]
    if not xs:
        raise UserError("need at least one array to stack", ValueError)
    if any(x.ndim != xs[0].ndim for x in xs):
        raise UserError("all input arrays must have the same shape", ValueError)
    from .elementwise import equal_in_kernel
    for i in range(xs[0].ndim):     # lengths only the kernel knows (np.stack([x[a:a + n], x[b:b + n]])): there
        xs = equal_in_kernel(b, [(x, i) for x in xs], "all input arrays must have the same shape (sizes known "
                                                      "only when the kernel runs)") or xs
    shape = broadcast([xs[0].shape], b.env)
    for x in xs[1:]:
        shape = tuple(b.env.unify(p, q, "all input arrays must have the same shape") for p, q in zip(shape, x.shape))
    axis = normalize_axis(axis, len(shape) + 1)
    return concatenate(b, [expand_dims(b, x, axis) for x in xs], axis)


def hstack(b: Builder, tup, dtype=None) -> Var:
    xs = [atleast_1d(b, a) for a in tup]
    return concatenate(b, xs, 0 if xs and xs[0].ndim == 1 else 1, dtype)


def vstack(b: Builder, tup, dtype=None) -> Var:
    return concatenate(b, [atleast_2d(b, a) for a in tup], 0, dtype)


def atleast_1d(b: Builder, a) -> Var:
    x = as_var(b, a)
    return expand_dims(b, x, 0) if x.ndim == 0 else x


def atleast_2d(b: Builder, a) -> Var:
    x = atleast_1d(b, a)
    return expand_dims(b, x, 0) if x.ndim == 1 else x


# ---- constructors with run-time sizes ------------------------------------------------------------------------
def shape_of(b: Builder, shape) -> tuple:
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(as_size(s, "size", b) for s in shape)


def full(b: Builder, shape, fill_value, dtype=None) -> Var:
    dims = shape_of(b, shape)
    if isinstance(fill_value, Var):
        out_dt = dtypes.check_supported(dtype) if dtype is not None else fill_value.dtype
        if fill_value.ndim:
            raise UserError("a run-time fill value must be a scalar", ValueError)
        check_python_int_fits(b, fill_value, out_dt)
        return b.emit1("full", [b.convert(fill_value, out_dt)], out_dt, fitting(b, dims, out_dt))
    out_dt = dtypes.check_supported(dtype if dtype is not None else np.asarray(fill_value).dtype)
    if type(fill_value) is int and out_dt.kind in "iu":
        # NumPy's copyto sets a Python int by value: one the dtype cannot hold is an OverflowError, not wrapped
        value = dtypes.weak_to_dtype(fill_value, out_dt)
    else:
        value = np.asarray(fill_value).astype(out_dt)
    return b.emit1("full", [b.const(np.asarray(value))], out_dt, fitting(b, dims, out_dt))


def zeros(b: Builder, shape, dtype=float):
    return full(b, shape, 0, dtype)


def ones(b: Builder, shape, dtype=float):
    return full(b, shape, 1, dtype)


def like(value):
    def handler(b: Builder, a, *args, dtype=None, shape=None):
        x = as_var(b, a)
        fill_value = args[0] if args else value
        return full(b, x.shape if shape is None else shape, fill_value, dtype if dtype is not None else x.dtype)
    return handler


_NO_ARG = object()


def arange(b: Builder, start_or_stop=_NO_ARG, stop=None, step=None, dtype=None, *, start=_NO_ARG, like=None,
           device=None):
    """np.arange. Static int start and step with a stop that is a dim or a run-time int: one `arange` primitive.
    Anything else run-time (a float bound, a start or step read from an array): NumPy's own steps, in the kernel."""
    if like is not None:
        raise UserError("np.arange(like=) is not supported", TypeError)
    if start_or_stop is _NO_ARG and start is _NO_ARG:
        raise UserError("arange() requires stop to be specified.", TypeError)
    if start_or_stop is _NO_ARG:
        start_or_stop = start
    if stop is None:
        first, stop = 0, start_or_stop
    else:
        first = start_or_stop
    step = 1 if step is None else step
    # (a uint64 stop makes NumPy's result float64)
    int_stop = isinstance(stop, (int, np.integer, Sym)) and not isinstance(stop, (bool, np.uint64)) \
        or isinstance(stop, Var) \
        and stop.ndim == 0 and stop.dtype.kind in "iu" and stop.dtype != np.dtype(np.uint64)
    static_ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (first, step))
    if int_stop and static_ints and step > 0 and (dtype is None or np.dtype(dtype).kind in "iuf"):
        # (np.arange(n) of an int argument n: its size is n's dim, as np.zeros(n)'s is)
        argument = input_int(b, stop) if isinstance(stop, Var) else None
        end = as_size(stop, "arange stop") if argument is None else argument
        length = derived("max", derived("floordiv", derived("add", derived("sub", end, int(first)), int(step) - 1),
                                        int(step)), 0)
        if argument is not None and (first, step) == (0, 1):
            length = input_size(b, stop)
        out_dt = dtypes.check_supported(dtype) if dtype is not None else np.arange(first, first + step).dtype
        return b.emit1("arange", [], out_dt, (limited(b, length),), start=first, step=step)
    return _arange_run_time(b, first, stop, step, dtype)


def _arange_run_time(b: Builder, start, stop, step, dtype) -> Var:
    """NumPy's PyArray_ArangeObj with run-time values: the length is ceil((stop - start) / step), computed as
    NumPy computes it on these scalars (NEP 50: Python numbers are weak); the first two values are start and
    start + step cast to the dtype, and the others the dtype's `fill`: start + i * delta, with delta the
    difference of those two in the dtype (float16 computes in float32, integers wrap)."""
    from . import elementwise as ew
    from .indexing import run_time_int
    values = [as_operand(v) for v in (start, stop, step)]
    for v in values:
        if not isinstance(v, Var) and not isinstance(v, (bool, int, float, complex, np.generic)):
            raise UserError(f"np.arange: a bound of type {type(v).__name__} is not supported", TypeError)
        if isinstance(v, Var) and v.ndim:
            raise UserError("arange: scalar arguments expected instead of an array", TypeError)
    start, stop, step = values
    probes = [type(v)(1) if not isinstance(v, Var) else {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}[v.dtype.kind]
              if v.weak else v.dtype.type(1) for v in values]
    try:
        out_dt = np.dtype(dtype) if dtype is not None else np.arange(*probes).dtype    # (of the types only)
    except (TypeError, ValueError) as error:
        raise UserError(str(error), type(error)) from None
    dtypes.check_supported(out_dt, "np.arange")
    kinds = {v.dtype.kind for v in values if isinstance(v, Var)} | {np.asarray(v).dtype.kind for v in values
                                                                     if not isinstance(v, Var)}
    if out_dt.kind in "bc" or "c" in kinds:
        raise UserError(f"np.arange with run-time bounds: {out_dt} results (and complex bounds) are not supported",
                        TypeError)
    if out_dt.kind in "iu" and "f" in kinds:
        raise UserError("np.arange of run-time float bounds into an integer dtype is not supported (NumPy converts "
                        "each bound as a Python float: give integer bounds)", TypeError)
    # the length: (stop - start) / step as NumPy's scalars compute it, as a double
    if isinstance(step, Var) and step.weak or not isinstance(step, Var) and isinstance(step, (int, float)):
        # a Python number divides as Python does: by zero is ZeroDivisionError (NumPy's scalars give inf instead)
        zero = ew.apply_ufunc(b, np.equal, [step, 0])
        if isinstance(zero, Var):
            b.check(zero, ZeroDivisionError, "division by zero" if "f" not in kinds else "float division by zero")
        elif zero:
            raise UserError("division by zero", ZeroDivisionError)
    span = ew.apply_ufunc(b, np.subtract, [stop, start], python_op=True)
    quotient = ew.astype(b, as_var(b, ew.apply_ufunc(b, np.true_divide, [span, step], python_op=True)),
                         dtypes.FLOAT64)
    ceil = ew.apply_ufunc(b, np.ceil, [quotient])
    b.check(ew.apply_ufunc(b, np.isnan, [ceil]), ValueError, "arange: cannot compute length")
    b.check(ew.apply_ufunc(b, np.logical_not, [ew.apply_ufunc(b, np.logical_and, [
        ew.apply_ufunc(b, np.greater_equal, [ceil, -2.0**63]), ew.apply_ufunc(b, np.less_equal, [ceil, 2.0**63])])]),
        ValueError, "Maximum allowed size exceeded")
    # a double of 2**63 passes NumPy's range check and converts to the smallest int64 (x86): no element
    in_range = ew.apply_ufunc(b, np.logical_and, [ew.apply_ufunc(b, np.less, [ceil, 2.0**63]),
                                                 ew.apply_ufunc(b, np.greater, [ceil, 0.0])])
    count = ew.astype(b, ew.where(b, in_range, ceil, 0.0), dtypes.INT64)
    # a quotient that underflows to 0 (or a step of inf) while the span is not 0: one element if it is positive
    underflow = ew.apply_ufunc(b, np.logical_and, [ew.apply_ufunc(b, np.equal, [quotient, 0.0]),
                                                  ew.apply_ufunc(b, np.not_equal, [span, 0])])
    positive = ew.apply_ufunc(b, np.equal, [ew.apply_ufunc(b, np.greater, [span, 0]),
                                            ew.apply_ufunc(b, np.greater, [step, 0])])
    count = ew.where(b, underflow, ew.astype(b, as_var(b, positive), dtypes.INT64), count)
    length = limited(b, derived("max", run_time_int(as_var(b, count)), 0))
    # the values: start and start + step set into the dtype, then start + i * (their difference)
    first = ew.astype(b, as_var(b, start), out_dt) if isinstance(start, Var) else b.const(np.array(start, out_dt))
    second_value = ew.apply_ufunc(b, np.add, [start, step], python_op=True)
    second = ew.astype(b, as_var(b, second_value), out_dt) if isinstance(second_value, Var) \
        else b.const(np.array(second_value, out_dt))
    if out_dt.kind in "iu":
        _check_int_fits(b, start, out_dt, ew.apply_ufunc(b, np.greater, [count, 0]))
        _check_int_fits(b, second_value, out_dt, ew.apply_ufunc(b, np.greater, [count, 1]))
    i = b.emit1("arange", [], dtypes.INT64, (length,), start=0, step=1)
    if out_dt.kind == "f":
        work = np.dtype(np.float32) if out_dt == np.float16 else out_dt
        v0, v1 = ew.astype(b, first, work, copy=False), ew.astype(b, second, work, copy=False)
        delta = ew.apply_ufunc(b, np.subtract, [v1, v0])
        filled = ew.apply_ufunc(b, np.add, [v0, ew.apply_ufunc(b, np.multiply, [ew.astype(b, i, work), delta])])
    else:        # C's integer arithmetic, modulo 2**64, then truncated to the dtype
        v0, v1 = ew.astype(b, first, dtypes.INT64, copy=False), ew.astype(b, second, dtypes.INT64, copy=False)
        delta = ew.apply_ufunc(b, np.subtract, [v1, v0])
        filled = ew.apply_ufunc(b, np.add, [v0, ew.apply_ufunc(b, np.multiply, [i, delta])])
    filled = ew.astype(b, filled, out_dt, copy=False)
    return ew.where(b, ew.apply_ufunc(b, np.equal, [i, 0]), first,
                    ew.where(b, ew.apply_ufunc(b, np.equal, [i, 1]), second, filled))


def _check_int_fits(b: Builder, value, out_dt: np.dtype, stored) -> None:
    """NumPy sets arange's first two values into the array as Python ints: a NumPy integer scalar outside the dtype's
    range is an OverflowError there (np.arange(np.int64(-1), 3, dtype=np.uint8)), not a wrapped value; `stored` says
    whether NumPy sets this value (only when the length reaches it). Python ints are checked by value already."""
    from . import elementwise as ew
    if not isinstance(value, Var) or value.weak or value.dtype.kind not in "iu":
        return
    src, out = np.iinfo(value.dtype), np.iinfo(out_dt)
    message = f"Python integer out of bounds for {out_dt}" if value.dtype != np.uint64 or out.max >= src.max \
        else "Python int too large to convert to C long"
    if src.min < out.min:
        b.check(ew.apply_ufunc(b, np.logical_and, [stored, ew.apply_ufunc(b, np.less, [value, out.min])]),
                OverflowError, message)
    if src.max > out.max:
        b.check(ew.apply_ufunc(b, np.logical_and, [stored, ew.apply_ufunc(b, np.greater, [value, out.max])]),
                OverflowError, message)


_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


def _diagonal(b: Builder, k, what: str, columns=None, shift: int = 0) -> tuple:
    """k of np.tri / eye / triu / tril: (the int, no operand), or for a run-time int (None, [it as int64]), so that a
    k argument does not compile again for each value. With `columns` (M: an int or a run-time int), NumPy's range
    rule for np.tri(N, M, k - shift) is checked first (`_check_tri_range`)."""
    narrow = k.dtype if isinstance(k, Var) and k.ndim == 0 and not k.weak and k.dtype.kind in "iub" else \
        np.asarray(k).dtype if isinstance(k, (np.integer, np.bool_)) else None
    if narrow is not None and narrow != np.dtype(np.int64):
        # NumPy computes k - 1, -k and M - k in k's own dtype: they wrap or raise (np.triu(x, np.uint8(200)) is x,
        # np.tri(3, k=np.uint64(3)) an OverflowError, an int8 k with M > 127 too, a np.bool_ k a TypeError)
        raise UserError(f"{what}: a k of dtype {narrow} is not supported (NumPy's arithmetic on it wraps): "
                        "give a Python int or an np.int64", TypeError)
    if isinstance(k, Var) and k.ndim == 0 and k.dtype.kind in "iub":
        if columns is not None:
            _check_tri_range(b, k, what, columns, shift)
        return None, [b.convert(k, dtypes.INT64)]
    if isinstance(k, (int, np.integer)):
        if columns is not None:
            _check_tri_range(b, k, what, columns, shift)
        # the kernel compares j - i (never near the int64 limits) with k: a k past them compares as the limit does
        return min(max(int(k), _INT64_MIN), _INT64_MAX), []
    # NumPy's tri builds its mask from np.arange(-k, M - k, dtype=int): a float k gives a mask of no meaning
    raise UserError(f"{what}: k must be an integer, got {type(k).__name__}", TypeError)


def _check_tri_range(b: Builder, k, what: str, columns, shift: int) -> None:
    """NumPy's tri masks with np.arange(-k, M - k) in int64 (triu with k - 1 for k): for a Python int k, -k past
    int64 (or -k + 1 when M >= 2) is NumPy's OverflowError; -k + M - 1 past it wraps around (the mask means nothing):
    refused, with an OverflowError that says so. An np.int64 k wraps already in -k and M - k: refused likewise."""
    from . import elementwise as ew

    def ufunc(f, *args):
        return ew.apply_ufunc(b, f, list(args)) if any(isinstance(a, Var) for a in args) else f(*args)

    def raise_if(flag, message):
        if isinstance(flag, Var):
            b.check(flag, OverflowError, message)
        elif flag:
            raise UserError(message, OverflowError)

    numpy_message = "Python int too large to convert to C long"
    wrap_message = (f"{what}: a k this close to the int64 limits is not supported (NumPy's mask, "
                    "np.arange(-k, M - k), wraps around int64 there)")
    weak = isinstance(k, Var) and k.weak or not isinstance(k, (Var, np.integer))
    if not weak:
        wrap_message = f"{what}: an np.int64 k this close to the int64 limits is not supported (NumPy's -k wraps)"
    some = ufunc(np.greater_equal, columns, 1)    # M == 0: an empty arange, whatever k is
    two = ufunc(np.greater_equal, columns, 2)
    if isinstance(k, Var):       # an int64 k (k - shift compared as k with shifted bounds: k - 1 may overflow)
        if weak:
            raise_if(ufunc(np.logical_or, ufunc(np.logical_and, some, ufunc(np.less, k, shift + 1 - 2**63)),
                           ufunc(np.logical_and, two, ufunc(np.less, k, shift + 2 - 2**63))), numpy_message)
            lowest = ufunc(np.add, columns, shift - 2**63)                 # no wrap: k - shift >= M - 2**63
        else:
            lowest = ufunc(np.add, columns, shift + 1 - 2**63)             # no wrap: k - shift >= M - 2**63 + 1
        raise_if(ufunc(np.logical_and, some, ufunc(np.less, k, lowest)), wrap_message)
        return
    kp = int(k) - shift
    if weak:
        if kp > 2**63 or kp < 1 - 2**63:
            raise_if(some, numpy_message)
            return
        if kp < 2 - 2**63:
            raise_if(two, numpy_message)
        reach = kp + 2**63           # M past it wraps
    else:
        reach = max(kp + 2**63 - 1, 0)
    if reach < 2**63 - 1:
        raise_if(ufunc(np.greater, columns, reach), wrap_message)


def tri(b: Builder, N, M=None, k=0, dtype=float):
    n = as_size(N, "N", b)
    m = n if M is None else as_size(M, "M", b)
    dt = dtypes.check_supported(dtype)
    columns = as_operand(N if M is None else M)
    k, extra = _diagonal(b, k, "np.tri", columns if isinstance(columns, (int, np.integer, Var)) else None)
    return b.emit1("tri", extra, dt, fitting(b, (n, m), dt), k=k, mode="tri")


def eye(b: Builder, N, M=None, k=0, dtype=float):
    n = as_size(N, "N", b)
    m = n if M is None else as_size(M, "M", b)
    dt = dtypes.check_supported(dtype)
    k, extra = _diagonal(b, k, "np.eye")     # NumPy's eye takes any int k (past the corners: all zeros)
    return b.emit1("tri", extra, dt, fitting(b, (n, m), dt), k=k, mode="eye")


def triangle(mode):
    def handler(b: Builder, m, k=0):
        from .numpy_api import dim_value
        x = as_var(b, m)
        if x.ndim < 2:
            raise UserError(f"{mode}: input must be at least 2-d", ValueError)
        # NumPy masks with np.tri(*m.shape[-2:], k=k - 1) for triu, k=k for tril
        k, extra = _diagonal(b, k, f"np.{mode}", dim_value(b, x, x.ndim - 1), shift=int(mode == "triu"))
        return b.emit1("triangle", [x] + extra, x.dtype, x.shape, k=k, mode=mode)
    return handler


def broadcast_to(b: Builder, array, shape, subok=False) -> Var:
    """np.broadcast_to: NumPy's read-only view of `array` with `shape`, its broadcast dims of stride 0 (as memory's
    strided views: a write through it is NumPy's ValueError, a write into `array` is seen through it, returned it is
    a view of the caller's array)."""
    from ..types.shapes import fmt_shape
    x = as_var(b, array)
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    for s in shape:
        if isinstance(s, Var) and s.dtype.kind == "i":
            b.check(b.emit1("lt", [s, b.const(np.zeros((), s.dtype))], dtypes.BOOL, ()), ValueError,
                    "all elements of broadcast shape must be non-negative")
    if any(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s < 0 for s in shape):
        raise UserError("all elements of broadcast shape must be non-negative", ValueError)
    dims = shape_of(b, shape)
    if len(dims) < x.ndim:
        raise UserError("input operand has more dimensions than allowed by the axis remapping", ValueError)
    lead = len(dims) - x.ndim
    message = (f"operands could not be broadcast together with remapped shapes [original->remapped]: "
               f"{fmt_shape(x.shape)}  and requested shape {fmt_shape(dims)}")
    kept = []       # whether each of x's dims is read along (else broadcast: a size of 1)
    for k, d in enumerate(x.shape):
        if b.env.find(d) == 1:
            kept.append(False)
        else:
            b.env.unify(d, dims[lead + k], message)
            kept.append(True)
    why = ("np.broadcast_to gives a read-only view in NumPy: write into a copy of it "
           "(`np.broadcast_to(...).copy()`)")
    return _broadcast_view(b, x, dims, kept, why, "np.broadcast_to of an array, which NumPy makes a read-only view")


def _broadcast_view(b: Builder, x: Var, dims, kept, why: str, alias_why: str, warns_on_write=False) -> Var:
    """x's view with shape `dims`, of stride 0 along its new leading dims and its dims of size 1 (`kept` False)."""
    lead = len(dims) - x.ndim
    value = b.emit1("copy", [x], x.dtype, dims)
    starts = [int64_const(b, 0) for _ in range(x.ndim)]
    sizes = size_values(b, dims)
    steps = [int64_const(b, int(i >= lead and j == i - lead and kept[j]))
             for i in range(len(dims)) for j in range(x.ndim)]
    params = starts + sizes + steps
    if not b.memory.readonly_view(x, value, params, why, warns_on_write):
        value = b.memory.readonly_alias(x, value, None, alias_why, warns_on_write)
    return value


def broadcast_arrays(b: Builder, *args, subok=False) -> tuple:
    """np.broadcast_arrays: each argument as an array (a list or a scalar a new one); one of the broadcast shape
    already is itself, the others views with stride 0 along their broadcast dims. NumPy's views are writable with a
    DeprecationWarning when written: writing through them is refused (TypeError); returned, they are NumPy's."""
    from ..types.shapes import fmt_shape
    from .numpy_api import _zero_d_array
    xs = [_zero_d_array(b, as_var(b, a)) for a in args]
    dims = broadcast([x.shape for x in xs], b.env)
    why = ("writing through np.broadcast_arrays' result is not supported: NumPy's is a view that warns when written "
           "(DeprecationWarning) and writes the array it broadcasts, several elements at once; write into a copy "
           "(`.copy()`) or into the array itself")
    out = []
    for x in xs:
        if x.ndim == len(dims) and all(b.env.same_expression(d, e) for d, e in zip(x.shape, dims)):
            out.append(x)
            continue
        lead = len(dims) - x.ndim
        kept = [b.env.find(d) != 1 for d in x.shape]
        for k, d in enumerate(x.shape):
            if kept[k]:
                b.env.unify(d, dims[lead + k], f"shape mismatch: objects cannot be broadcast to a single shape "
                                               f"({fmt_shape(x.shape)} against {fmt_shape(dims)})")
        out.append(_broadcast_view(b, x, dims, kept, why, why, warns_on_write=True))
    return tuple(out)


def broadcast_shapes(b: Builder, *shapes) -> tuple:
    """np.broadcast_shapes: NumPy's broadcasting of the shapes (sizes known only at run time are run-time ints)."""
    out = []
    for d in broadcast([shape_of(b, s) for s in shapes], b.env):
        d = b.env.find(d)
        if not isinstance(d, int):
            value = b.emit1("size_value", [], dtypes.INT64, (), dim=d, weak=True)    # (a Python int, as x.shape's)
            value.size_of = d
            d = value
        out.append(d)
    return tuple(out)
