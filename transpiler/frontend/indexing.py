"""x[index] on run-time arrays: basic indexing (ints, slices, Ellipsis, None) as one `slice` primitive plus
`expand_dims`; one advanced index (an int array, a list of ints, a range) as a `gather` along its axis, several
(broadcast together, NumPy's advanced indexing) as one `gather_nd` over their axes, and their writes as
`scatter` / `scatter_nd`.

Negative indices count from the end, as in NumPy. An integer index or gathered id that is out of range raises
IndexError: at compile time when it is known then, else through a kernel check flag (the kernel clamps the read,
so it never touches memory out of bounds, and the caller raises).
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import SizesDiffer, Sym, broadcast, derived, fmt_shape, nonnegative, readable_shape
from .builder import Builder, check_python_int_fits
from .elementwise import as_dim, at_most_one, broadcast_in_kernel, sizes_differ, warn_at
from .shape_ops import as_var, expand_dims, same_view, squeeze, transpose
from .values import RuntimeRange, contains_var


def parse_index(b: Builder, x: Var, index):
    """(specs per axis of x, positions of new axes in the result, the advanced indices as (axis, out_pos, item),
    whether the advanced indices (ints included) are adjacent: NumPy then puts their dims where they are, else
    first; a None between them separates them)."""
    items = list(index) if isinstance(index, tuple) else [index]
    items = _expand_ellipsis(items, x.ndim)
    specs, new_axes, advanced = [], [], []
    tokens = []          # per item: "new" (None), "dim" (a slice), "adv" (an int or an index array)
    axis = 0
    out_pos = 0
    for item in items:
        if item is None:
            new_axes.append(out_pos)
            tokens.append("new")
            out_pos += 1
            continue
        if axis >= x.ndim:
            raise UserError(f"too many indices for array: array is {x.ndim}-dimensional", IndexError)
        if _is_advanced(item):
            advanced.append((axis, out_pos, item))
            specs.append(("all",))
            tokens.append("adv")
            out_pos += 1
        elif isinstance(item, slice):
            specs.append(_slice_spec(b, item, x.shape[axis]))
            tokens.append("dim")
            out_pos += 1
        else:
            specs.append(_index_spec(b, item, x.shape[axis], axis))
            tokens.append("adv")
        axis += 1
    specs += [("all",)] * (x.ndim - axis)
    positions = [k for k, t in enumerate(tokens) if t == "adv"]
    adjacent = bool(positions) and positions == list(range(positions[0], positions[0] + len(positions)))
    if advanced and new_axes:
        new_axes = _new_axes_among_advanced(tokens, adjacent, max(_index_ndim(item) for _, _, item in advanced))
    return specs, new_axes, advanced, adjacent


def _index_ndim(item) -> int:
    return item.ndim if isinstance(item, Var) else 1 if isinstance(item, (range, RuntimeRange)) else np.ndim(item)


def _new_axes_among_advanced(tokens: list, adjacent: bool, ndim: int) -> list:
    """Where the None items' unit dims are in x[index] with advanced indices: NumPy's layout is the items' dims in
    order with the advanced ones (broadcast, `ndim` dims) where the first of them is when they are adjacent, else
    first."""
    if adjacent:
        k = tokens.index("adv")
        layout = tokens[:k] + ["B"] + [t for t in tokens[k:] if t != "adv"]
    else:
        layout = ["B"] + [t for t in tokens if t != "adv"]
    out, pos = [], 0
    for t in layout:
        if t == "new":
            out.append(pos)
        pos += ndim if t == "B" else 1
    return out


def _run_time_bool_lists(b: Builder, index):
    """The index with each list of bools, some known only at run time (`x[[x[0] > 0, True, s > 1]]`), as the bool
    array NumPy makes of it (np.asarray): a mask. (A list mixing bools with ints is an int array, as in NumPy.)"""
    if isinstance(index, tuple):
        return tuple(_run_time_bool_lists(b, i) for i in index)
    leaves: list = []

    def flat(item) -> bool:
        if isinstance(item, list):
            return bool(item) and all(flat(i) for i in item)
        leaves.append(item)
        return isinstance(item, (bool, np.bool_)) or isinstance(item, Var) and item.dtype == dtypes.BOOL
    if not isinstance(index, list) or not contains_var(index) or not flat(index):
        return index
    mask = _stacked_ids(b, index)
    return b.convert(mask, dtypes.BOOL) if mask.weak else mask


def getitem(b: Builder, x: Var, index):
    index = _run_time_bool_lists(b, index)
    if is_mask(index):
        from .selection import get_masked
        mask = index[0] if isinstance(index, tuple) else index
        return get_masked(b, x, mask if isinstance(mask, Var) else np.asarray(mask))
    items = index if isinstance(index, tuple) else (index,)
    if x.ndim == 0 and all(i is Ellipsis for i in items):
        # NumPy: a 0-d array indexed by () is a scalar; anything indexed by ... is a 0-d array (a new view of a
        # 0-d array: another object)
        if x.scalar == bool(items):
            return b.emit1("copy", [x], x.dtype, (), scalar=not items)
        return same_view(b, x) if items else x
    mask_dims: dict = {}
    if any(_is_bool_array(i) for i in items):
        index = _masks_as_ids(b, items, mask_dims)   # x[mask, j], x[:, mask]: its positions, one array per dim
    specs, new_axes, advanced, adjacent = parse_index(b, x, index)
    _match_mask_dims(b, x, advanced, mask_dims, reading=True)
    if any(i is Ellipsis for i in items) and not advanced and not new_axes and \
            all(s[0] in ("index", "index_var") for s in specs):
        # NumPy: `a[2, ...]` of a 1-d a is a 0-d view, which sees later writes into a; the compiler reads elements as
        # scalars (a copy of the value then): refused rather than a stale value after a write
        raise UserError("an integer index for every axis together with `...` (a[i, ...]) makes a 0-d view in NumPy, "
                        "which the compiler does not follow: write a[i] for the element's value, or a[i:i + 1] for "
                        "a view", TypeError)
    result = _basic(b, x, specs)
    if result is x and not advanced and not new_axes:
        result = same_view(b, x)         # x[...], x[:, ...]: a new view of x, as in NumPy
    if len(advanced) > 1:
        result = _gather_many(b, result, specs, advanced, adjacent)
    elif advanced:
        ax, _, idx = advanced[0]
        idx = _index_array(b, idx)
        dropped = sum(1 for s in specs[:ax] if s[0] == "index")
        result = gather(b, result, idx, ax - dropped)
        if not adjacent:
            # NumPy: advanced indices separated by a slice put their dims first
            ids_ndim = np.ndim(idx) if not isinstance(idx, Var) else idx.ndim
            start = ax - dropped
            perm = list(range(start, start + ids_ndim)) + [i for i in range(result.ndim)
                                                           if not start <= i < start + ids_ndim]
            result = transpose(b, result, perm)
    if new_axes:
        result = expand_dims(b, result, tuple(new_axes))
    if not advanced and not result.scalar and any(_is_array_scalar(i) for i in items):
        # NumPy: a 0-d integer array index is an advanced index (x[np.array(1)] is a copy, x[np.int64(1)] a view)
        result = b.emit1("copy", [result], result.dtype, result.shape)
    return result


def _is_array_scalar(item) -> bool:
    """A 0-d integer array (not a NumPy or Python scalar)."""
    if isinstance(item, Var):
        return item.ndim == 0 and not item.scalar and not item.weak and item.dtype.kind in "iu"
    return isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype.kind in "iu"


# ---- x[index] = value ----------------------------------------------------------------------------------------
def setitem(b: Builder, x: Var, index, value) -> Var:
    """The contents of x after `x[index] = value`: value cast as NumPy's setitem casts (unsafe: a float stored into
    an int array truncates) and broadcast to x[index]'s shape."""
    index = _run_time_bool_lists(b, index)
    _check_scalar_store(b, value, x.dtype, numpy_scalars=False)    # (Python floats, whatever the index)
    if is_mask(index):
        return _set_masked(b, x, as_var(b, index), value)
    items = index if isinstance(index, tuple) else (index,)
    mask_dims: dict = {}
    if any(_is_bool_array(i) for i in items):
        index = _masks_as_ids(b, items, mask_dims)     # x[:, mask] = v: at the mask's positions
    specs, new_axes, advanced, adjacent = parse_index(b, x, index)
    _match_mask_dims(b, x, advanced, mask_dims, reading=False)
    if len(advanced) > 1 or advanced and (new_axes or any(s[0] != "all" for s in specs)):
        return _scatter_many(b, x, specs, advanced, value, adjacent, new_axes)
    if advanced:
        return _scatter(b, x, specs, advanced[0], value)
    shape, extra, norm = _normalized(b, x, specs)
    region = list(shape)
    for pos in new_axes:
        region.insert(pos, 1)
    _check_scalar_store(b, value, x.dtype, numpy_scalars=True)     # (NumPy scalars, a basic index)
    v = fit_value(b, value, x.dtype, tuple(region), kernel_checked=True)
    if new_axes:
        v = squeeze(b, v, tuple(new_axes))
    if all(s[0] == "all" for s in specs):
        return v
    norm = _region_sized(b, norm, v.shape)
    return b.emit1("update_slice", [x, v, *extra], x.dtype, x.shape, specs=norm)


def _check_scalar_store(b: Builder, value, dtype: np.dtype, numpy_scalars: bool, item: Var | None = None) -> None:
    """NumPy stores a run-time scalar into an integer array through a Python int where the cast would not: a Python
    float (any index; checked when not `numpy_scalars`) and, with a basic index (`numpy_scalars`), a NumPy scalar of
    another dtype into a signed integer array (`int8_array[i] = float64_array[j]`; an unsigned array wraps, as a cast). That int is checked:
    NaN is ValueError, one the dtype cannot hold (inf too) OverflowError. The kernel checks them (before, the store
    cast: NaN became INT_MIN, 300.0 in int8 44). Python ints: fit_value; complex scalars are not checked.
    With `item`, `value` is a 1-D array of such scalars, each as `item` (np.array of a list appended to in a
    run-time loop, with an integer dtype); Python ints are checked too, and the first bad one decides the error, as
    NumPy converts the items in order."""
    like = value if item is None else item
    if not isinstance(value, Var) or like.ndim or np.dtype(dtype).kind not in "iu" or value.dtype == dtype:
        return
    python_int = item is not None and like.weak and like.dtype == dtypes.INT64
    if like.weak and not python_int:
        if numpy_scalars or like.dtype.kind != "f":
            return      # (a Python float was checked by the call without numpy_scalars)
    elif not python_int and (not (numpy_scalars and like.scalar and np.dtype(dtype).kind == "i"
                                  and like.dtype.kind in "iuf") or np.can_cast(like.dtype, dtype, "safe")):
        return
    from .elementwise import apply_ufunc
    info = np.iinfo(dtype)

    def either(ufunc_low, low, ufunc_high, high, of):
        return apply_ufunc(b, np.logical_or, [apply_ufunc(b, ufunc_low, [of, low]),
                                              apply_ufunc(b, ufunc_high, [of, high])])
    nan = None
    if value.dtype.kind == "f":
        nan = apply_ufunc(b, np.isnan, [value])
        # the truncated value against -2**(bits - 1) and 2**(bits - 1) (or 0 and 2**bits): powers of two, exact in
        # every float type (or +-inf, which only +-inf reaches)
        with np.errstate(over="ignore"):
            lowest, past = value.dtype.type(info.min), value.dtype.type(float(info.max) + 1)
        out = either(np.less, lowest, np.greater_equal, past, apply_ufunc(b, np.trunc, [value]))
        out = apply_ufunc(b, np.logical_or, [out, apply_ufunc(b, np.isinf, [value])])   # (-inf past a float16 -inf)
    else:
        out = either(np.less, int(info.min), np.greater, int(info.max), value)
    if value.ndim:
        nan, out = _first_bad_decides(b, nan, out)
    if nan is not None:
        b.check(nan, ValueError, "cannot convert float NaN to integer")
    b.check(out, OverflowError, f"Python integer out of bounds for {np.dtype(dtype)}")


def _first_bad_decides(b: Builder, nan: Var | None, out: Var) -> tuple:
    """Of the elementwise flags of a 1-D array's items (NaN, out of range), the two 0-d flags that raise the error
    of the first bad item."""
    from .elementwise import apply_ufunc
    from .reductions import reduce
    from .shape_ops import concatenate
    if nan is None:
        return None, reduce(b, "any", out)
    bad = apply_ufunc(b, np.logical_or, [nan, out])
    first = b.emit1("argmax", [concatenate(b, [bad, b.const(np.array([True]))])], dtypes.INT64, (), scalar=True,
                    axis=0)     # (past the end where none is bad)
    first_nan = getitem(b, concatenate(b, [nan, b.const(np.array([False]))]), first)
    any_bad = reduce(b, "any", bad)
    return (apply_ufunc(b, np.logical_and, [any_bad, first_nan]),
            apply_ufunc(b, np.logical_and, [any_bad, apply_ufunc(b, np.logical_not, [first_nan])]))


def check_items_into(b: Builder, values: Var, item: Var, dtype) -> None:
    """np.array(items, dtype) of a list's items (scalars as `item`, or arrays), stacked as `values`: the checks of
    NumPy's conversion of each item (a Python float, a Python int, a NumPy scalar into a signed int dtype)."""
    if not item.ndim and values.ndim == 1:
        _check_scalar_store(b, values, np.dtype(dtype), numpy_scalars=False, item=item)
        _check_scalar_store(b, values, np.dtype(dtype), numpy_scalars=True, item=item)


def items_as(b: Builder, obj, dtype):
    """The items of a list or tuple given to np.array with a dtype, each converted to it as NumPy converts it: a
    run-time scalar as setitem stores one (a Python float or a NumPy scalar into an int dtype through a Python
    int: NaN and values past the dtype raise), an array cast, a compile-time number by NumPy itself. (Stacked
    first, [x[0], 1.5] was float64 before the int64 cast: 2**62 + 1 became 2**62.)"""
    if isinstance(obj, (list, tuple)):
        return type(obj)(items_as(b, item, dtype) for item in obj)
    dtype = np.dtype(dtype)
    if isinstance(obj, Var):
        if not obj.ndim:
            _check_scalar_store(b, obj, dtype, numpy_scalars=False)
            _check_scalar_store(b, obj, dtype, numpy_scalars=True)
        return fit_value(b, obj, dtype, obj.shape)
    try:
        return b.const(np.array([obj], dtype=dtype)[0])
    except (TypeError, ValueError, OverflowError) as e:
        raise UserError(str(e), type(e)) from None


def _region_sized(b: Builder, norm: tuple, sizes: tuple) -> tuple:
    """The slice specs with each range's length taken from the value stored there: they differ where only the
    kernel can compare them (fit_value), and then the value's (checked) size is the one written."""
    sizes = iter(sizes)
    out = []
    for spec in norm:
        if spec[0] in ("all", "range"):
            d = next(sizes)
            if spec[0] == "range" and b.env.find(d) is not b.env.find(spec[2]):
                spec = ("range", spec[1], d, spec[3])
        out.append(spec)
    return tuple(out)


def fit_value(b: Builder, value, dtype: np.dtype, shape: tuple, kernel_checked: bool = False) -> Var:
    """`value` as stored into an array region of this dtype and shape (NumPy's setitem: unsafe cast, broadcast).

    With `kernel_checked`, a size that only the kernel can compare with the region's (a slice `x[i:i + n]` with a
    run-time i, written with an n-long value) is checked there: the call raises NumPy's ValueError, and the value is
    cut to `same(region, value)` along that axis, which is 0 when they differ, so a mismatch writes nothing and
    never out of bounds. The returned value's shape then has that size where the region has its own."""
    if isinstance(value, (list, tuple)) and contains_var(value):
        from .shape_ops import stack
        value = stack(b, value) if value else b.const(np.zeros((0,), dtype))
    if not isinstance(value, Var):
        try:
            arr = np.empty(np.shape(value), dtype)
            arr[...] = value        # NumPy's own conversion: its errors (an int out of range ...) are the user's
        except (TypeError, ValueError, OverflowError) as e:
            raise UserError(str(e), type(e)) from None
        v = b.const(arr)
    else:
        if dtypes.is_complex(value.dtype) and not dtypes.is_complex(dtype) and dtype != dtypes.BOOL:
            warn_at(b, np.exceptions.ComplexWarning, "Casting complex values to real discards the imaginary part")
        check_python_int_fits(b, value, dtype)
        v = b.convert(value, dtype)
    while v.ndim > len(shape) and b.env.find(v.shape[0]) == 1:   # extra leading 1s broadcast away
        v = squeeze(b, v, 0)
    message = f"could not broadcast input array from shape {readable_shape(v.shape)} into shape " \
              f"{readable_shape(shape)}"
    if v.ndim > len(shape):
        raise UserError(message, ValueError)
    shape = list(shape)
    in_kernel = []      # (axis of shape, value's size, region's size)
    for i, (d, t) in enumerate(zip(v.shape[::-1], shape[::-1])):
        axis = len(shape) - 1 - i
        if b.env.find(d) == 1:
            continue
        if kernel_checked and b.env.needs_kernel_check(d, t):
            in_kernel.append((axis, d, t))
            message = (f"could not broadcast input array from shape {fmt_shape(v.shape)} into shape "
                       f"{fmt_shape(shape)} (sizes known only when the kernel runs)")
        else:
            b.env.unify(d, t, message)
    if in_kernel:
        v = _cut_to_checked_sizes(b, v, shape, in_kernel, message)
    if tuple(b.env.find(d) for d in v.shape) == tuple(b.env.find(d) for d in shape):
        return v
    return b.emit1("copy", [v], dtype, tuple(shape))    # broadcast: an elementwise copy to the region's shape


def _cut_to_checked_sizes(b: Builder, v: Var, shape: list, in_kernel: list, message: str) -> Var:
    """fit_value's kernel check: flag the sizes that differ (ValueError after the call) and cut value and region
    (`shape`, updated) to `same(region, value)` on those axes."""
    differ = None
    specs = [("all",)] * v.ndim
    cut = list(v.shape)         # the value's own sizes: a 1 that broadcasts stays 1 (the copy after broadcasts it)
    for axis, d, t in in_kernel:
        if at_most_one(b.env, d):   # (a value of one element, x[a:a + n] = x[7:8], broadcasts as NumPy's does)
            ne = sizes_differ(b, d, t, broadcasts=False)     # and the value's is not 1 (the region never broadcasts)
            one = b.emit1("const", [], dtypes.INT64, (), value=np.asarray(1, np.int64))
            ne = b.emit1("and", [ne, b.emit1("ne", [b.emit1("size_value", [], dtypes.INT64, (), dim=d), one],
                                              dtypes.BOOL, ())], dtypes.BOOL, ())
            differ = ne if differ is None else b.emit1("or", [differ, ne], dtypes.BOOL, ())
            common = derived("bcast", t, d)
            v = broadcast_in_kernel(b, v, axis - (len(shape) - v.ndim), common)
            cut[axis - (len(shape) - v.ndim)] = common
            shape[axis] = common
            continue
        ne = sizes_differ(b, d, t, broadcasts=False)
        differ = ne if differ is None else b.emit1("or", [differ, ne], dtypes.BOOL, ())
        common = derived("same", t, d)
        specs[axis - (len(shape) - v.ndim)] = ("range", 0, common, 1)
        cut[axis - (len(shape) - v.ndim)] = common
        shape[axis] = common
    b.check(differ, SizesDiffer, message)
    return b.emit1("slice", [v], v.dtype, tuple(cut), specs=tuple(specs))


def is_mask(index) -> bool:
    if isinstance(index, tuple) and len(index) == 1:
        index = index[0]
    if isinstance(index, Var):
        return index.dtype == dtypes.BOOL and not index.weak     # a 0-d mask too: all or nothing
    if isinstance(index, list) and index and not contains_var(index):
        index = np.asarray(index)                                # a list of bools is a mask
    return isinstance(index, np.ndarray) and index.dtype == np.bool_


def _set_masked(b: Builder, x: Var, mask: Var, value) -> Var:
    """x[mask] = value for a mask over x's leading dims and a value that is the same for every selected element
    (a scalar, or a row broadcast to each selected row): np.where(mask, value, x)."""
    if mask.ndim > x.ndim:
        raise UserError(f"too many indices for array: array is {x.ndim}-dimensional, but {mask.ndim} were indexed",
                        IndexError)
    rest = x.shape[mask.ndim:]
    v = value if isinstance(value, Var) else np.asarray(value)
    if np.ndim(v) > len(rest) and not all(b.env.find(d) == 1 for d in np.shape(v)[:np.ndim(v) - len(rest)]):
        return _set_masked_values(b, x, mask, value)
    return masked_merge(b, x, mask, fit_value(b, value, x.dtype, tuple(rest)))


def _set_masked_values(b: Builder, x: Var, mask: Var, value) -> Var:
    """x[mask] = values, one value (row) per selected element in C order: the values' count must be the mask's
    count of True (NumPy's ValueError otherwise, and then nothing is written)."""
    from .reductions import reduce
    _match_mask(b, x, mask)
    rest = x.shape[mask.ndim:]
    v = as_var(b, value)
    if v.ndim != len(rest) + 1:
        raise UserError(f"NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has "
                        f"{v.ndim} dimensions", ValueError)
    from .memory import Ref
    if isinstance(v.ref, Ref) and isinstance(x.ref, Ref) and v.ref.buffer is x.ref.buffer:
        # NumPy stores element by element from the view as it changes (x[m] = x[::-1] of all-True m gives
        # [5, 4, 3, 3, 4, 5]), where the compiled store reads the values first
        raise UserError("x[mask] = values where the values are a view of x: NumPy stores them one by one, reading "
                        "the ones already overwritten; not supported: pass a copy (`.copy()`)", TypeError)
    v = fit_value(b, v, x.dtype, (v.shape[0],) + tuple(rest))
    count = reduce(b, "sum", b.convert(mask, dtypes.INT64))
    size = b.emit1("dim_size", [v], dtypes.INT64, (), axis=0)
    bad = b.emit1("ne", [count, size], dtypes.BOOL, ())
    b.check(bad, ValueError, "NumPy boolean array indexing assignment cannot assign the input values to the output "
                             "values where the mask is true (the counts differ)")
    return b.emit1("masked_scatter", [x, mask, v, bad], x.dtype, x.shape)


def masked_merge(b: Builder, x: Var, mask: Var, value: Var) -> Var:
    """x with the elements (rows) the mask selects taken from `value` (which broadcasts against x)."""
    _match_mask(b, x, mask)
    rest = x.ndim - mask.ndim
    m = mask if not rest else b.emit1("expand_dims", [mask], mask.dtype, tuple(mask.shape) + (1,) * rest,
                                      axes=tuple(range(mask.ndim, x.ndim)))
    return b.emit1("select", [m, value, x], x.dtype, x.shape)


def _match_mask(b: Builder, x: Var, mask: Var) -> None:
    from .selection import match_mask
    match_mask(b, x, mask)


def _scatter(b: Builder, x: Var, specs, advanced, value) -> Var:
    """x[..., ids, ...] = value for one integer index array (its other indices full slices): stored id by id in
    order, so a repeated id keeps the last value, as in NumPy."""
    axis, _, ids = advanced
    ids = _index_array(b, ids)
    # the value broadcasts to x[ids]'s shape (ids' own dims), then is stored id by id as the ids are, flattened
    v = fit_value(b, value, x.dtype, x.shape[:axis] + ids.shape + x.shape[axis + 1:])
    if ids.ndim != 1:
        from .shape_ops import reshape
        ids = reshape(b, ids, (-1,))
        v = reshape(b, v, x.shape[:axis] + ids.shape + x.shape[axis + 1:])
    n = x.shape[axis]
    flag = b.emit1("index_check", [ids], dtypes.BOOL, (), n=n)
    b.check(flag, IndexError, f"index out of bounds for axis {axis} with size {n}")
    return b.emit1("scatter", [x, ids, v, flag], x.dtype, x.shape, axis=axis)


def _ids_as_var(b: Builder, ids) -> Var:
    """Index positions given as an array, a list (an empty one is int64) or a range, as a Var."""
    if isinstance(ids, (range, RuntimeRange)):
        ids = ids.materialize(b) if isinstance(ids, RuntimeRange) else np.arange(ids.start, ids.stop, ids.step)
    if isinstance(ids, list) and contains_var(ids):
        return _stacked_ids(b, ids)      # A[[i, p]] with run-time ints (a row swap in LU's pivoting)
    if isinstance(ids, list):
        ids = np.asarray(ids)
        if ids.size == 0:
            ids = ids.astype(np.int64)
    return as_var(b, ids)


def _stacked_ids(b: Builder, ids: list) -> Var:
    """A (nested) list of ints and run-time ints as one array, as np.asarray makes it (int64 for Python ints)."""
    from .shape_ops import stack
    return stack(b, [_stacked_ids(b, i) if isinstance(i, list) and contains_var(i) else i for i in ids])


def _index_array(b: Builder, ids) -> Var:
    """An advanced index (an int array, a list of ints, a range) as an integer Var."""
    ids = _ids_as_var(b, ids)
    if ids.dtype == dtypes.BOOL:
        raise UserError("boolean arrays combined with other indices are not supported here: use "
                        "np.nonzero(mask)'s arrays", TypeError)
    if ids.dtype.kind not in "iu":
        raise UserError("arrays used as indices must be of integer type", IndexError)
    return ids


def _advanced_layout(b: Builder, r: Var, specs, advanced, adjacent: bool):
    """NumPy's advanced indexing over several index arrays, on the basic result (integer indices dropped):
    (the advanced axes there, whether they stay where they are, the index arrays broadcast to one shape B and
    checked in range, the flag of any id out of range). NumPy puts B where the advanced indices were when they
    (and the integer indices, which count as advanced) are adjacent, else first."""
    dropped = [i for i, s in enumerate(specs) if s[0] == "index"]
    axes = [ax - sum(1 for i in dropped if i < ax) for ax, _, _ in advanced]
    sizes = [r.shape[a] for a in axes]
    ids = [_index_array(b, item) for _, _, item in advanced]
    shape = broadcast([i.shape for i in ids], b.env, "shape mismatch: indexing arrays could not be broadcast together "
                      "with shapes " + " ".join(fmt_shape(i.shape) for i in ids), IndexError)
    ids = [i if tuple(b.env.find(d) for d in i.shape) == tuple(b.env.find(d) for d in shape) else
           b.emit1("copy", [i], i.dtype, shape) for i in ids]
    bad = None
    for (ax, _, _), i, n in zip(advanced, ids, sizes):     # after broadcasting: NumPy checks only the ids it uses
        flag = b.emit1("index_check", [i], dtypes.BOOL, (), n=n)
        b.check(flag, IndexError, f"index out of bounds for axis {ax} with size {n}")
        bad = flag if bad is None else b.emit1("or", [bad, flag], dtypes.BOOL, ())
    return axes, adjacent, ids, shape, bad


def _gather_many(b: Builder, r: Var, specs, advanced, adjacent: bool) -> Var:
    """r (x's basic result) indexed by several index arrays: one gather_nd over their axes."""
    axes, adjacent, ids, shape, _ = _advanced_layout(b, r, specs, advanced, adjacent)
    if not adjacent:
        r = transpose(b, r, axes + [a for a in range(r.ndim) if a not in axes])
    start = axes[0] if adjacent else 0
    out = r.shape[:start] + tuple(shape) + r.shape[start + len(axes):]
    return b.emit1("gather_nd", [r, *ids], r.dtype, out, axis=start)


def _scatter_many(b: Builder, x: Var, specs, advanced, value, adjacent: bool, new_axes=()) -> Var:
    """x[index] = value with integer arrays among other indices or slices: the basic region (integer indices
    dropped) with a scatter_nd over the advanced axes (moved first when NumPy puts their dims first), written
    back with update_slice. The ids are stored in C order of their broadcast shape: the last of repeated ids wins."""
    r = _basic(b, x, specs)
    axes, adjacent, ids, shape, bad = _advanced_layout(b, r, specs, advanced, adjacent)
    perm = None
    if not adjacent:
        perm = axes + [a for a in range(r.ndim) if a not in axes]
        r = transpose(b, r, perm)
    start = axes[0] if adjacent else 0
    region = list(r.shape[:start] + tuple(shape) + r.shape[start + len(axes):])
    for pos in new_axes:               # x[index] has unit dims there: the value broadcasts against them
        region.insert(pos, 1)
    v = fit_value(b, value, x.dtype, tuple(region))
    if new_axes:
        v = squeeze(b, v, tuple(new_axes))
    new = b.emit1("scatter_nd", [r, v, bad, *ids], x.dtype, r.shape, axis=start)
    if perm is not None:
        new = transpose(b, new, sorted(range(len(perm)), key=lambda i: perm[i]))
    if all(s[0] == "all" for s in specs):
        return new
    _, extra, norm = _normalized(b, x, specs)
    return b.emit1("update_slice", [x, new, *extra], x.dtype, x.shape, specs=norm)


def _is_bool_array(item) -> bool:
    if isinstance(item, Var):
        return item.dtype == dtypes.BOOL and not item.weak and item.ndim > 0
    if isinstance(item, list) and item and not contains_var(item):
        item = np.asarray(item)
    return isinstance(item, np.ndarray) and item.dtype == np.bool_ and item.ndim > 0


def _match_mask_dims(b: Builder, x: Var, advanced, mask_dims: dict, reading: bool) -> None:
    """A mask's positions (from _masks_as_ids) are in range once the mask has the sizes of the axes it indexes."""
    from .selection import match_mask_dim
    for axis, _, item in advanced:
        if id(item) in mask_dims:
            match_mask_dim(b, mask_dims[id(item)], x.shape[axis], axis, reading)


def _masks_as_ids(b: Builder, items, mask_dims: dict) -> tuple:
    """An index with masks among other items (NumPy reads x[..., mask, ...] as x[..., *np.nonzero(mask), ...]):
    each mask replaced by its positions, one int array per dim it spans; `mask_dims` gets the size each one's axis
    must have."""
    from .selection import nonzero_ids
    out = []
    for item in items:
        if not _is_bool_array(item):
            out.append(item)
            continue
        mask = item if isinstance(item, Var) else np.asarray(item)
        for j, ids in enumerate(nonzero_ids(b, mask)):
            mask_dims[id(ids)] = mask.shape[j]
            out.append(ids)
    return tuple(out)


def _expand_ellipsis(items: list, ndim: int) -> list:
    count = sum(1 for i in items if i is Ellipsis)
    if count > 1:
        raise UserError("an index can only have a single ellipsis ('...')", IndexError)
    if count == 0:
        return items
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    k = items.index(Ellipsis)
    return items[:k] + [slice(None)] * (ndim - consumed) + items[k + 1:]


def _is_advanced(item) -> bool:
    if isinstance(item, Var):
        return item.ndim > 0
    return isinstance(item, (list, np.ndarray, range, RuntimeRange)) and not (
        isinstance(item, np.ndarray) and item.ndim == 0)


def _index_spec(b: Builder, item, n, axis: int):
    if isinstance(item, (bool, np.bool_)):
        raise UserError("boolean indices are not supported", TypeError)
    if isinstance(item, (int, np.integer)):
        i = int(item)
        if isinstance(b.env.find(n), int):
            size = b.env.find(n)
            if not -size <= i < size:
                raise UserError(f"index {i} is out of bounds for axis {axis} with size {size}", IndexError)
            return ("index", i % size if size else i, None)
        if 2**63 <= i < 2**64:        # NumPy's conversion of what fits a uint64 fails so
            raise UserError("Python int too large to convert to C long", OverflowError)
        if not -2**63 <= i < 2**63:   # NumPy cannot take it as an index (x[2**70])
            raise UserError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                            "boolean arrays are valid indices", IndexError)
        item = b.const(np.int64(i))  # a run-time size: normalized and checked in the kernel
        item.known = i               # (a view at this index can still be replayed on an argument: memory.py)
    if isinstance(item, Var) and item.ndim == 0 and item.dtype.kind in "iu":
        if item.dtype == np.uint64:   # past int64 NumPy's conversion fails (as an index it read as negative)
            from .elementwise import apply_ufunc
            b.check(apply_ufunc(b, np.greater, [item, np.uint64(2**63 - 1)]), OverflowError,
                    "Python int too large to convert to C long")
        if in_bounds(b, item, n):     # a loop index known to stay in range: no check, no clamping
            return ("index", None, item, True)
        flag = b.emit1("index_check", [item], dtypes.BOOL, (), n=n)
        b.check(flag, IndexError, f"index out of bounds for axis {axis}")
        return ("index", None, item, False)
    raise UserError(f"only integers, slices, ellipsis, None and integer arrays are valid indices, got "
                    f"{type(item).__name__}", IndexError)


def _slice_spec(b: Builder, s: slice, n):
    step = 1 if s.step is None else s.step
    if isinstance(step, Var):
        return _runtime_step_spec(b, s, n, step)
    step = int(step)
    if step == 0:
        raise UserError("slice step cannot be zero", ValueError)
    step = max(min(step, _HUGE_STEP), -_HUGE_STEP)     # past any length: one element, in the kernel's int64
    n = b.env.find(n)
    shifted = _shifted_slice(b, s, n, step)
    if shifted is not None:
        return shifted
    bounds = [s.start, s.stop]
    if all(v is None or isinstance(v, (int, np.integer)) for v in bounds) and isinstance(n, int):
        start, stop, step = slice(*(None if v is None else int(v) for v in bounds), step).indices(n)
        return ("range", start, len(range(start, stop, step)), step)
    if step < 0:
        last = derived("sub", n, 1)
        start, stop = (_bound(v, n, default, -1, last) for v, default in zip(bounds, (last, -1)))
        length = derived("max", derived("floordiv", derived("add", derived("sub", start, stop), -step - 1), -step), 0)
        return ("range", start, length, step)
    start, stop = (_bound(v, n, default, 0, n) for v, default in zip(bounds, (0, n)))
    length = derived("floordiv", derived("add", derived("max", derived("sub", stop, start), 0), step - 1), step)
    if step == 1 and s.stop is None and isinstance(s.start, (int, np.integer)) and s.start < 0:
        length = derived("min", -int(s.start), n)      # x[-k:]: the form shapes.broadcast knows to be <= k
    return ("range", start, length, step)


def _runtime_step_spec(b: Builder, s: slice, n, step: Var):
    """x[a:b:k] with a run-time k of either sign: Python's slice.indices, with both geometries computed and the one
    of k's sign taken in the kernel (`ifneg`). A k of 0 is NumPy's ValueError when the kernel runs (it reads as 1
    meanwhile)."""
    if step.ndim or step.dtype.kind not in "iu":
        raise UserError("slice indices must be integers or None or have an __index__ method", TypeError)
    from .elementwise import apply_ufunc
    b.check(apply_ufunc(b, np.equal, [step, 0]), ValueError, "slice step cannot be zero")
    k = run_time_int(step)
    n = b.env.find(n)
    # a step past the length takes one element: clamped to +-2**62, (stop - start + k - 1) // k cannot overflow
    # (y[1:9:2**63 - 1] was empty; NumPy gives y[1])
    forward_k = derived("max", derived("min", k, _HUGE_STEP), 1)
    start, stop = (_bound(v, n, default, 0, n) for v, default in zip([s.start, s.stop], (0, n)))
    forward = derived("max", derived("floordiv", derived("add", derived("sub", stop, start),
                                                          derived("sub", forward_k, 1)), forward_k), 0)
    if step.dtype.kind == "u":
        return ("range", start, forward, forward_k)
    last = derived("sub", n, 1)
    back_start, back_stop = (_bound(v, n, default, -1, last)
                             for v, default in zip([s.start, s.stop], (last, -1)))
    back_k = derived("min", derived("max", k, -_HUGE_STEP), -1)        # -k > 0 in the backward geometry
    backward = derived("max", derived("floordiv", derived("add", derived("sub", back_start, back_stop),
                                                           derived("sub", derived("sub", 0, back_k), 1)),
                                      derived("sub", 0, back_k)), 0)
    return ("range", derived("ifneg", k, back_start, start), derived("ifneg", k, backward, forward),
            derived("ifneg", k, back_k, forward_k))


_HUGE_STEP = 2**62     # larger than any length; its sums with lengths stay within int64


def _shifted_slice(b: Builder, s: slice, n, step: int):
    """x[i + a:i + c] (constant a <= c, step > 0) with i a loop index (or one shifted by a constant) that keeps
    i + a >= 0: when its bounds also keep i + c <= n, the slice has the static length ceil((c - a) / step) and
    starts at i + a (Floyd-Warshall's `D[k:k + 1, :]` in `for k in range(D.shape[0])` is one row, and broadcasts).
    A one-element slice whose end the bounds do not keep within n (`D[:, k:k + 1]`: k ranges over the other dim)
    is still one element, checked when the kernel runs: where NumPy's would be empty, a ValueError (the read is
    clamped, as an index's is). None for other slices (the general arithmetic of _slice_spec)."""
    start, stop = _offset(s.start), _offset(s.stop)
    if step <= 0 or start is None or stop is None or start[0] is not stop[0] or stop[1] < start[1]:
        return None
    (base, a), c = start, stop[1]
    bounds = getattr(base, "bounds", None)
    if bounds is None or not nonnegative(_plus(bounds[0], a)):
        return None
    first, length = _plus(run_time_int(base), a), (c - a + step - 1) // step
    if at_most(b.env, _plus(bounds[1], c - 1), n):
        return ("range", first, length, step)
    if c - a != 1:
        return None
    from .elementwise import apply_ufunc
    size = b.emit1("size_value", [], dtypes.INT64, (), dim=n)
    past = apply_ufunc(b, np.greater, [s.stop, size])
    b.check(past, ValueError, f"a one-element slice i:i + 1 starts past the end of an axis of size {n}: NumPy's "
                              "slice is empty there, the compiled one has one element (so that it broadcasts); write "
                              "an index with the axis added back, x[:, i][:, None] for x[:, i:i + 1] (NumPy's "
                              "IndexError past the end)")
    return ("range", derived("max", derived("min", first, derived("sub", n, 1)), 0), 1, step)


def _offset(v):
    """(base, c) for a run-time int that is a loop index `base` shifted by the constant c (c = 0: itself)."""
    if not isinstance(v, Var) or v.ndim or getattr(v, "bounds", None) is None:
        return None
    return getattr(v, "offset_of", (v, 0))


def _plus(d, c: int):
    return derived("add", d, c) if c >= 0 else derived("sub", d, -c)


def _bound(v, n, default, low, high):
    """A slice bound as Python normalizes it: a negative one counts from the end, then it is clamped to
    [low, high] ([0, n] for a forward slice, [-1, n - 1] for a backward one). Run-time bounds must be sizes."""
    if v is None:
        return default
    d = as_dim(v)
    if d is None and isinstance(v, Var) and v.ndim == 0 and v.dtype.kind in "iu":
        d = derived("wrap", run_time_int(v), n)     # any run-time int: its sign is known only at run time
    if d is None:
        raise UserError("slice bounds must be integers", TypeError)
    if isinstance(d, int):     # past any length (x[3:2**70]): clamps as it would, and fits the kernel's int64
        d = max(min(d, _HUGE_STEP), -_HUGE_STEP)
    if isinstance(d, int) and d < 0:
        d = derived("add", n, d)
    return derived("max", derived("min", d, high), low)


def run_time_int(v: Var) -> Sym:
    """A run-time int as a dim expression (one Sym per Var, so `x[:j]` and `y[:j]` have the same length)."""
    if getattr(v, "_dim", None) is None:
        v._dim = Sym(f"int({getattr(v, 'source_name', None) or v})", ("var", v))
    return v._dim


def _basic(b: Builder, x: Var, specs) -> Var:
    if all(s[0] == "all" for s in specs):
        return x
    shape, extra, norm = _normalized(b, x, specs)
    return b.emit1("slice", [x, *extra], x.dtype, tuple(shape), scalar=not shape, specs=norm)


def _normalized(b: Builder, x: Var, specs):
    """(the region's shape, run-time index operands, specs as the slice primitives take them)."""
    shape, inputs = [], [x]
    norm = []
    for d, s in zip(x.shape, specs):
        if s[0] == "all":
            shape.append(d)
            norm.append(s)
        elif s[0] == "range":
            start, length, step = s[1], s[2], s[3] if len(s) > 3 else 1
            shape.append(length)
            norm.append(("range", start, length, step))
        else:
            _, i, var, *proven = s
            if var is not None:
                inputs.append(var)
                norm.append(("index_var", len(inputs) - 1, bool(proven and proven[0])))
            else:
                norm.append(("index", i))
    return tuple(shape), inputs[1:], tuple(norm)


def in_bounds(b: Builder, i: Var, n) -> bool:
    """Whether a run-time index is known to lie in [0, n): a loop index over range(lo, hi) (possibly shifted by a
    constant) with 0 <= lo and hi <= n."""
    bounds = getattr(i, "bounds", None)
    if bounds is None:
        return False
    lo, hi = bounds
    return nonnegative(lo) and at_most(b.env, hi, n)


def at_most(env, a, n) -> bool:
    """a <= n, for dims: equal expressions, a constant less, or a minimum with n."""
    a, n = env.find(a), env.find(n)
    if env.same_expression(a, n) or isinstance(a, int) and isinstance(n, int) and a <= n:
        return True
    if isinstance(a, Sym):
        kind, *operands = a.origin
        if kind == "sub" and isinstance(operands[1], int) and operands[1] >= 0:
            return at_most(env, operands[0], n)
        if kind == "min":
            return any(at_most(env, o, n) for o in operands)
    return False


def gather(b: Builder, x: Var, ids, axis: int, checked: bool = True) -> Var:
    """x.take(ids, axis) for integer ids (an array, a list, a range): ids.shape replaces dim `axis`. Ids not
    `checked` are known to be in range (a mask's positions)."""
    ids = _ids_as_var(b, ids)
    if ids.dtype.kind not in "iu":
        raise UserError("arrays used as indices must be of integer type", IndexError)
    n = x.shape[axis]
    shape = x.shape[:axis] + ids.shape + x.shape[axis + 1:]
    if checked:
        flag = b.emit1("index_check", [ids], dtypes.BOOL, (), n=n)
        b.check(flag, IndexError, f"index out of bounds for axis {axis} with size {n}")
    return b.emit1("gather", [x, ids], x.dtype, shape, axis=axis)
