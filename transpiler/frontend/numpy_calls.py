"""NumPy functions the kernel calls NumPy itself for (runtime/numpy_calls.py): sorting and searching, order
statistics, histograms and np.linalg (LAPACK through NumPy).

Each handler works out what NumPy returns, dtypes and shapes, run-time sizes included (NumPy's own dtype is read
off a call on a tiny probe input of the same dtypes, so every promotion rule is NumPy's), and emits one
`numpy_call`. Errors NumPy raises at run time (a singular matrix, a bad axis of a run-time shape) are raised at the
call, as NumPy raises them."""
from __future__ import annotations

import inspect

import numpy as np

from ..errors import UserError
from ..program import Var
from ..runtime import numpy_calls as runtime
from ..types import dtypes
from ..types.shapes import broadcast, derived
from . import shape_ops as so
from .numpy_api import FUNCTIONS, METHODS, dim_value
from .values import contains_var


def call(b, name: str, args: tuple, kwargs: dict, outs: list) -> list:
    """Emit a call of NumPy's `name` (a key of runtime.FUNCTIONS) on these arguments; `outs`: [(dtype, shape)] of
    what it returns. Returns the result Vars."""
    symbol, inputs = _call_symbol(b, name, args, kwargs, outs)
    *results, failed = b.emit("numpy_call", inputs, list(outs) + [(dtypes.BOOL, ())], scalar=True, symbol=symbol)
    b.check(failed, runtime.CallFailed, f"np.{name}")
    return results


def _call_symbol(b, name: str, args: tuple, kwargs: dict, outs: list) -> tuple:
    """(the external symbol of such a call, the Vars it takes: the kernel's buffers passed to NumPy)."""
    inputs = []

    def encode(value):
        if isinstance(value, Var):
            inputs.append(value)
            return {"in": len(inputs) - 1, "k": "weak" if value.weak else "scalar" if value.scalar else "array"}
        if isinstance(value, (np.ndarray, np.generic)):
            inputs.append(b.const(value))
            return {"in": len(inputs) - 1, "k": "array" if isinstance(value, np.ndarray) else "scalar"}
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return {"f": repr(value)}
        if isinstance(value, complex):
            return {"c": [repr(value.real), repr(value.imag)]}
        if isinstance(value, tuple):
            return {"t": [encode(v) for v in value]}
        if isinstance(value, list):
            return [encode(v) for v in value]
        if isinstance(value, np.dtype) or isinstance(value, type) and issubclass(value, (np.generic, float, int)):
            return {"dt": np.dtype(value).str}
        raise UserError(f"np.{name}(): an argument of type {type(value).__name__} is not supported here", TypeError)

    spec = {"fn": name, "args": [encode(a) for a in args], "kwargs": {k: encode(v) for k, v in kwargs.items()}}
    spec["in"] = [[v.dtype.str, v.ndim] for v in inputs]
    spec["out"] = [[np.dtype(dt).str, len(shape)] for dt, shape in outs]
    for dt, _ in outs:
        dtypes.check_supported(np.dtype(dt), f"the result of np.{name}")
    return runtime.symbol(spec), inputs


def _array(b, a) -> Var:
    if isinstance(a, (list, tuple)) and contains_var(a):
        return so.stack(b, a)
    return so.as_var(b, a)


def _probe(x: Var, fill=0):
    """A tiny array (or scalar) of x's kind, to ask NumPy what dtype it returns for such inputs."""
    if x.weak:
        return {"b": False, "i": 1, "u": 1, "f": 0.5, "c": 0.5j}[x.dtype.kind]
    if x.scalar:
        return x.dtype.type(fill)
    return np.full((1,) * x.ndim, fill, x.dtype)


def _result_dtype(fn, *args, **kwargs) -> np.dtype:
    """The dtype(s) NumPy gives for these probe arguments; NumPy's refusal (a dtype linalg does not take ...) is the
    user's error."""
    try:
        result = fn(*args, **kwargs)
    except (TypeError, ValueError, np.linalg.LinAlgError) as error:
        raise UserError(str(error), type(error)) from None
    return [np.asarray(r).dtype for r in result] if isinstance(result, tuple) else np.asarray(result).dtype


def _axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return tuple(so.normalize_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))


def _reduced(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)


def _flat(b, x: Var) -> tuple:
    return (so.product(x.shape, b),)


def _static(value, what: str):
    if contains_var(value):
        raise UserError(f"{what} must be known at compile time", TypeError)
    return value


# ---- sorting and searching ----------------------------------------------------------------------------------------
def _sort_like(name, index_result: bool):
    def handler(b, a, axis=-1, kind=None, order=None, *, stable=None):
        x = _array(b, a)
        if order is not None:
            raise UserError(f"np.{name}(order=) needs a structured array, which the compiler does not take", TypeError)
        if x.ndim == 0 and axis is not None:
            raise UserError("Cannot sort a 0-d array along an axis" if name == "sort" else "axis -1 is out of bounds "
                            "for array of dimension 0", np.exceptions.AxisError)
        shape = _flat(b, x) if axis is None else x.shape
        if axis is not None:
            so.normalize_axis(_static(axis, "axis"), x.ndim)
        kw = {"axis": axis, "kind": _static(kind, "kind")}
        if stable is not None:
            kw["stable"] = _static(stable, "stable")
        return call(b, name, (x,), kw, [(dtypes.INT64 if index_result else x.dtype, shape)])[0]
    return handler


_sort = _sort_like("sort", False)
_argsort = _sort_like("argsort", True)


def _sort_method(b, x, axis=-1, kind=None, order=None, *, stable=None):
    """x.sort(): in place, returns None."""
    b.write(x, lambda: _sort(b, x, axis, kind, order, stable=stable))


def _partition_like(name, index_result: bool):
    def handler(b, a, kth, axis=-1, kind="introselect", order=None):
        x = _array(b, a)
        if order is not None:
            raise UserError(f"np.{name}(order=) needs a structured array, which the compiler does not take", TypeError)
        shape = _flat(b, x) if axis is None else x.shape
        if axis is not None:
            so.normalize_axis(_static(axis, "axis"), x.ndim)
        kth = kth if isinstance(kth, Var) else np.asarray(kth)
        return call(b, name, (x, kth), {"axis": axis, "kind": _static(kind, "kind")},
                    [(dtypes.INT64 if index_result else x.dtype, shape)])[0]
    return handler


def _searchsorted(b, a, v, side="left", sorter=None):
    x = _array(b, a)
    if x.ndim != 1:
        raise UserError("object too deep for desired array" if x.ndim > 1 else "object of too small depth for "
                        "desired array", ValueError)
    values = v if isinstance(v, Var) and v.ndim == 0 else _array(b, v)
    args = (x, values, _static(side, "side")) + (() if sorter is None else (_array(b, sorter),))
    return call(b, "searchsorted", args, {}, [(dtypes.INT64, values.shape)])[0]


def _lexsort(b, keys, axis=-1):
    """np.lexsort: NumPy's own, on the keys as they are (a sequence of arrays stays one: stacking them would promote
    their dtypes, and an int64 key converted to float64 could sort differently)."""
    axis = _static(axis, "axis")
    if isinstance(keys, (list, tuple)):
        if not keys:
            raise UserError("need sequence of keys with len > 0 in lexsort", TypeError)
        arrays = tuple(so.as_var(b, k) for k in keys)
        shape = arrays[0].shape
        for k in arrays[1:]:
            if k.ndim != len(shape):
                raise UserError("all keys need to be the same shape", ValueError)
            for d, e in zip(shape, k.shape):
                b.env.unify(d, e, "all keys need to be the same shape")
        args = (arrays,)
    else:
        x = so.as_var(b, keys)
        if x.ndim == 0:
            raise UserError("need sequence of keys with len > 0 in lexsort", TypeError)
        shape, args = x.shape[1:], (x,)
    if shape:
        so.normalize_axis(axis, len(shape))
    return call(b, "lexsort", args, {"axis": axis}, [(dtypes.INT64, tuple(shape))])[0]


# ---- order statistics and histograms -------------------------------------------------------------------------------
def _order_statistic(name):
    """np.percentile / np.quantile (q first) and np.median (no q), arguments bound as NumPy's signature binds them."""
    fn = getattr(np, name)
    signature = inspect.signature(fn)

    def handler(b, *args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise UserError(f"{name}(): {error}", TypeError) from None
        given = bound.arguments
        if any(given.get(k) is not None for k in ("out", "weights", "interpolation")):
            raise UserError(f"np.{name}(): out=, weights= and interpolation= are not supported", TypeError)
        x = _array(b, given["a"])
        q = given.get("q")
        if q is not None and not isinstance(q, Var):
            q = _static(q, "q")     # as given: a Python float is weak (NEP 50), a list becomes a float64 array
        axis, keepdims = _static(given.get("axis"), "axis"), bool(_static(given.get("keepdims", False), "keepdims"))
        kw = {"axis": axis, "keepdims": keepdims}
        if "method" in given:
            kw["method"] = _static(given["method"], "method")
        probe_q = () if q is None else (_probe(q, 0.5) if isinstance(q, Var) else q,)
        try:
            dtype = _result_dtype(fn, _probe(x, 1), *probe_q, **kw)
        except UserError as error:
            # NumPy's quantile of bools refuses their subtraction (TypeError), but only once it has taken the first
            # values: of an empty axis it raises IndexError first. Either way NumPy raises, so its own call in the
            # kernel does, with NumPy's exception; the result's dtype is never used.
            if x.dtype != dtypes.BOOL or error.kind is not TypeError:
                raise
            dtype = np.dtype(np.float64)
        shape = (() if q is None else tuple(q.shape) if isinstance(q, Var) else np.shape(q)) + _reduced(x.shape, _axes(axis, x.ndim), keepdims)
        return call(b, name, (x,) if q is None else (x, q), kw, [(dtype, shape)])[0]
    return handler


def _histogram(b, a, bins=10, range=None, density=None, weights=None):
    x = _array(b, a)
    if isinstance(bins, str):
        raise UserError("np.histogram(bins=str): the number of bins depends on the data; give an int or the edges",
                        TypeError)
    if isinstance(bins, Var) and bins.ndim == 0 or isinstance(bins, int):
        n = so.as_size(bins, "bins", b)
        probe_bins = 1
    else:
        bins = _array(b, bins)
        if bins.ndim != 1:
            raise UserError("`bins` must be 1d, when an array", ValueError)
        n = derived("sub", b.env.find(bins.shape[0]), 1)
        probe_bins = np.array([0, 1], bins.dtype)
    w = None if weights is None else _array(b, weights)
    hist_dt, edge_dt = _result_dtype(np.histogram, np.zeros(1, x.dtype), probe_bins, density=density,
                                     weights=None if w is None else np.ones(1, w.dtype))
    kw = {"bins": bins, "range": range, "density": density, "weights": w}
    return tuple(call(b, "histogram", (x,), kw, [(hist_dt, (n,)), (edge_dt, (derived("add", n, 1),))]))


# ---- results whose length the data decides: the kernel counts, then NumPy fills ----------------------------------
def _bincount(b, x, weights=None, minlength=0):
    from . import elementwise as ew, reductions as red
    x = _array(b, x)
    if x.ndim != 1:
        raise UserError("object too deep for desired array" if x.ndim > 1 else "object of too small depth for "
                        "desired array", ValueError)
    w = None if weights is None else _array(b, weights)
    dtype = _result_dtype(np.bincount, np.zeros(1, x.dtype), None if w is None else np.ones(1, w.dtype))
    # max(x) + 1 (at least minlength): a -1 appended makes the maximum of an empty x defined
    ext = so.concatenate(b, [ew.astype(b, x, dtypes.INT64), b.const(np.array([-1]))])
    top = red.reduce(b, "max", ext, None, None, None, False, None, None)
    length = ew.apply_ufunc(b, np.maximum, [ew.apply_ufunc(b, np.add, [top, 1]), minlength])
    # a count array whose bytes (8 each, intp or float64) pass intp is NumPy's ValueError before any allocation
    # (a smaller one that no memory holds is the MemoryError so.as_size raises). The largest value is tested too:
    # for 2**63 - 1, max + 1 wraps, and NumPy's own bincount returns an empty array and writes past it
    limit = (2**63 - 1) // 8
    too_big = ew.apply_ufunc(b, np.logical_or, [ew.apply_ufunc(b, np.greater, [length, limit]),
                                                ew.apply_ufunc(b, np.greater_equal, [top, limit])])
    b.check(too_big, ValueError,
            "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    return call(b, "bincount", (x,), {"weights": w, "minlength": minlength},
                [(dtype, (so.as_size(length, "bincount length", b),))])[0]


def _unique(b, ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """np.unique of the flattened array: the kernel sorts and counts the distinct values (NaNs as one when
    `equal_nan`, as NumPy), then NumPy computes the results into arrays of that length."""
    from . import elementwise as ew, indexing, reductions as red
    if axis is not None:
        raise UserError("np.unique(axis=) is not supported: only the flattened array's unique values", TypeError)
    x = _array(b, ar)
    flat = so.reshape(b, x, (-1,))
    s = _sort(b, flat)
    later, earlier = indexing.getitem(b, s, slice(1, None)), indexing.getitem(b, s, slice(None, -1))
    new = ew.apply_ufunc(b, np.not_equal, [later, earlier])
    if equal_nan and x.dtype.kind == "f":
        both_nan = ew.apply_ufunc(b, np.logical_and, [ew.apply_ufunc(b, np.isnan, [later]),
                                                      ew.apply_ufunc(b, np.isnan, [earlier])])
        new = ew.apply_ufunc(b, np.logical_and, [new, ew.apply_ufunc(b, np.logical_not, [both_nan])])
    count = red.reduce(b, "sum", new, None, None, None, False, None, None)
    size = dim_value(b, flat, 0)
    nonempty = int(size > 0) if isinstance(size, int) else ew.astype(b, ew.apply_ufunc(b, np.greater, [size, 0]),
                                                                     dtypes.INT64)
    length = so.as_size(ew.apply_ufunc(b, np.add, [count, nonempty]), "np.unique length", b)
    probe = np.unique(np.zeros((1,) * x.ndim, x.dtype), return_index=True, return_inverse=True, return_counts=True)
    outs = [(probe[0].dtype, (length,))]
    if return_index:
        outs.append((probe[1].dtype, (length,)))
    if return_inverse:
        outs.append((probe[2].dtype, tuple(x.shape) if probe[2].ndim == x.ndim else tuple(flat.shape)))
    if return_counts:
        outs.append((probe[3].dtype, (length,)))
    kw = {"return_index": bool(return_index), "return_inverse": bool(return_inverse),
          "return_counts": bool(return_counts), "equal_nan": bool(equal_nan)}
    results = call(b, "unique", (x,), kw, outs)
    return results[0] if len(results) == 1 else tuple(results)


# ---- np.linalg --------------------------------------------------------------------------------------------------
def _at_least_2d(x: Var) -> None:
    if x.ndim < 2:
        raise UserError(f"{x.ndim}-dimensional array given. Array must be at least two-dimensional",
                        np.linalg.LinAlgError)


def _unary_linalg(name, shape_of, probe=lambda dt: np.eye(2, dtype=dt)):
    fn = getattr(np.linalg, name)

    def handler(b, a, *args, **kwargs):
        x = _array(b, a)
        _at_least_2d(x)
        kwargs = {k: _static(v, k) for k, v in kwargs.items()}
        args = tuple(v if isinstance(v, Var) else _static(v, "argument") for v in args)
        probe_args = tuple(_probe(v, 2) if isinstance(v, Var) else v for v in args)
        dts = _result_dtype(fn, probe(x.dtype), *probe_args, **kwargs)
        shapes = shape_of(b, x, *args, **kwargs)
        if isinstance(dts, np.dtype):
            return call(b, f"linalg.{name}", (x, *args), kwargs, [(dts, shapes)])[0]
        results = call(b, f"linalg.{name}", (x, *args), kwargs, list(zip(dts, shapes)))
        return type(fn(probe(x.dtype), *probe_args, **kwargs))(*results)
    return handler


def _batch(x):
    return tuple(x.shape[:-2])


def _qr_shapes(b, x, mode="reduced"):
    m, n = x.shape[-2:]
    k = derived("min", b.env.find(m), b.env.find(n))
    if mode == "reduced":
        return [_batch(x) + (m, k), _batch(x) + (k, n)]
    if mode == "complete":
        return [_batch(x) + (m, m), _batch(x) + (m, n)]
    if mode == "r":
        return _batch(x) + (k, n)
    raise UserError(f"np.linalg.qr(mode={mode!r}) is not supported (reduced, complete and r are)", TypeError)


def _svd_shapes(b, x, full_matrices=True, compute_uv=True, hermitian=False):
    m, n = x.shape[-2:]
    k = derived("min", b.env.find(m), b.env.find(n))
    if not compute_uv:
        return _batch(x) + (k,)
    if full_matrices:
        return [_batch(x) + (m, m), _batch(x) + (k,), _batch(x) + (n, n)]
    return [_batch(x) + (m, k), _batch(x) + (k,), _batch(x) + (k, n)]


# ---- np.linalg.inv and solve: LAPACK's dgesv called by the kernel itself (codegen/lapack_call.py) --------------
def _direct_gesv(result_dtype, *inputs) -> bool:
    """Whether np.linalg.inv / solve of these inputs calls dgesv from the kernel: real inputs (NumPy computes in
    float64 for all of them, 'd->d') and the library NumPy calls at hand; else NumPy's own call."""
    from ..runtime import blas
    return result_dtype in (np.dtype(np.float32), dtypes.FLOAT64) and all(v.dtype.kind in "biuf" for v in inputs) \
        and blas.lapack_available()


def _same_dims(b, x: Var, y: Var) -> bool:
    """Whether stacks x and y have the same batch dims, known while compiling (no broadcasting between them)."""
    return all(b.env.find(d) is b.env.find(e) or b.env.find(d) == b.env.find(e)
               for d, e in zip(_batch(x), _batch(y)))


def _gesv(b, kind: str, name: str, inputs: list, original: list, shape: tuple, result_dtype):
    """dgesv on float64 copies of the inputs (exact), the result rounded to NumPy's result dtype as NumPy rounds
    it; a singular matrix is NumPy's LinAlgError at the call, with NumPy's message. Shapes NumPy refuses (a matrix
    that is not square, a b of other rows) are known at run time only: there the kernel calls NumPy's own function
    on the `original` arguments instead, which raises NumPy's exact error."""
    from . import elementwise as ew
    wide = [ew.astype(b, v, dtypes.FLOAT64, copy=False) for v in inputs]
    fallback, passed = _call_symbol(b, name, tuple(original), {}, [(dtypes.FLOAT64, shape)])
    x, singular, refused = b.emit("lapack_gesv", wide + passed, [(dtypes.FLOAT64, shape), (dtypes.BOOL, ()),
                                                                 (dtypes.BOOL, ())],
                                  scalar=True, kind=kind, fallback=fallback)
    b.check(refused, runtime.CallFailed, f"np.{name}")
    b.check(singular, np.linalg.LinAlgError, "Singular matrix", located=False)
    return ew.astype(b, x, result_dtype, copy=False)


def _inv(b, a):
    x = _array(b, a)
    _at_least_2d(x)
    dtype = _result_dtype(np.linalg.inv, np.eye(2, dtype=x.dtype))
    if not _direct_gesv(dtype, x):
        return call(b, "linalg.inv", (x,), {}, [(dtype, tuple(x.shape))])[0]
    return _gesv(b, "inv", "linalg.inv", [x], [x], tuple(x.shape), dtype)


def _solve(b, a, b_):
    x, y = _array(b, a), _array(b, b_)
    _at_least_2d(x)
    dtype = _result_dtype(np.linalg.solve, np.eye(2, dtype=x.dtype), np.ones(2, y.dtype))
    if _direct_gesv(dtype, x, y) and (x.ndim == 2 and y.ndim == 1 or x.ndim == y.ndim and _same_dims(b, x, y)):
        if y.ndim >= 2:
            return _gesv(b, "solve", "linalg.solve", [x, y], [x, y], tuple(y.shape), dtype)
        column = so.expand_dims(b, y, 1)      # NumPy's solve1: the vector as one right-hand side
        return so.squeeze(b, _gesv(b, "solve", "linalg.solve", [x, column], [x, y], tuple(column.shape), dtype), 1)
    if y.ndim == 1:
        shape = x.shape[:-1]
    else:
        shape = broadcast([_batch(x), _batch(y)], b.env) + tuple(y.shape[-2:])
    return call(b, "linalg.solve", (x, y), {}, [(dtype, shape)])[0]


def _norm(b, x, ord=None, axis=None, keepdims=False):
    v = _array(b, x)
    ord, axis = _static(ord, "ord"), _static(axis, "axis")
    axes = _axes(axis, v.ndim)
    dtype = _result_dtype(np.linalg.norm, np.ones((2,) * v.ndim, v.dtype), ord, axis, keepdims)
    return call(b, "linalg.norm", (v, ord, axis, bool(keepdims)), {}, [(dtype, _reduced(v.shape, axes, keepdims))])[0]


def _lstsq(b, a, b_, rcond=None):
    """np.linalg.lstsq: (x, residuals, rank, s). The residuals' length is b's column count (1 for a 1-D b) when the
    rank is full and a is tall, else 0: NumPy fills them at full length and says their length (runtime._lstsq_full),
    and the kernel cuts them to it (a slice, so a length the kernel never wrote stays within the buffer)."""
    from . import indexing
    x, y = _array(b, a), _array(b, b_)
    if isinstance(rcond, Var):
        if rcond.ndim:
            raise UserError("np.linalg.lstsq(rcond=): an array of rconds is not supported, give one number",
                            TypeError)
    elif rcond is not None:
        rcond = _static(rcond, "rcond")
        if np.ndim(rcond):
            raise UserError("np.linalg.lstsq(rcond=): an array of rconds is not supported, give one number",
                            TypeError)
    probe_rcond = _probe(rcond, 0.5) if isinstance(rcond, Var) else rcond
    # NumPy's own refusals (a 1-D or 3-D array, float16, a string rcond) and result dtypes, from a tiny call
    probe_a = np.eye(2, dtype=x.dtype) if x.ndim == 2 else np.ones((2,) * x.ndim, x.dtype)
    dts = _result_dtype(np.linalg.lstsq, probe_a, np.ones((2,) * y.ndim, y.dtype), probe_rcond)
    m, n = x.shape
    if isinstance(b.env.find(m), int) and isinstance(b.env.find(y.shape[0]), int) \
            and b.env.find(m) != b.env.find(y.shape[0]):
        raise UserError("Incompatible dimensions", np.linalg.LinAlgError)    # else NumPy's check, at the call
    k = 1 if y.ndim == 1 else y.shape[1]
    shapes = [(n,) if y.ndim == 1 else (n, k), (k,), (), (derived("min", b.env.find(m), b.env.find(n)),), ()]
    outs = list(zip(dts, shapes)) + [(dtypes.INT64, ())]
    solution, residuals, rank, s, length = call(b, "linalg.lstsq", (x, y), {"rcond": rcond}, outs)
    return solution, indexing.getitem(b, residuals, slice(None, length)), rank, s


def _register():
    for name, fn in (("sort", _sort), ("argsort", _argsort)):
        FUNCTIONS[getattr(np, name)] = fn
    METHODS["argsort"] = _argsort
    METHODS["sort"] = _sort_method
    FUNCTIONS[np.partition] = _partition_like("partition", False)
    FUNCTIONS[np.argpartition] = METHODS["argpartition"] = _partition_like("argpartition", True)
    FUNCTIONS[np.searchsorted] = _searchsorted
    FUNCTIONS[np.lexsort] = _lexsort
    METHODS["searchsorted"] = _searchsorted
    for name in ("median", "percentile", "quantile"):
        FUNCTIONS[getattr(np, name)] = _order_statistic(name)
    FUNCTIONS[np.histogram] = _histogram
    FUNCTIONS[np.bincount] = _bincount
    FUNCTIONS[np.unique] = _unique
    la = np.linalg
    same = lambda b, x, *a, **k: tuple(x.shape)                                        # noqa: E731
    batch = lambda b, x, *a, **k: _batch(x)                                            # noqa: E731
    FUNCTIONS[la.inv] = _inv
    FUNCTIONS[la.cholesky] = _unary_linalg("cholesky", same)
    FUNCTIONS[la.matrix_power] = _unary_linalg("matrix_power", same)
    FUNCTIONS[la.pinv] = _unary_linalg("pinv", lambda b, x, *a, **k: _batch(x) + (x.shape[-1], x.shape[-2]))
    FUNCTIONS[la.det] = _unary_linalg("det", batch)
    FUNCTIONS[la.slogdet] = _unary_linalg("slogdet", lambda b, x: [_batch(x), _batch(x)])
    FUNCTIONS[la.matrix_rank] = _unary_linalg("matrix_rank", batch)
    FUNCTIONS[la.cond] = _unary_linalg("cond", batch)
    FUNCTIONS[la.eigh] = _unary_linalg("eigh", lambda b, x, UPLO="L": [x.shape[:-1], tuple(x.shape)])
    FUNCTIONS[la.eigvalsh] = _unary_linalg("eigvalsh", lambda b, x, UPLO="L": tuple(x.shape[:-1]))
    FUNCTIONS[la.qr] = _unary_linalg("qr", _qr_shapes, probe=lambda dt: np.ones((2, 2), dt) + np.eye(2, dtype=dt))
    FUNCTIONS[la.svd] = _unary_linalg("svd", _svd_shapes)
    FUNCTIONS[la.solve] = _solve
    FUNCTIONS[la.norm] = _norm
    FUNCTIONS[la.lstsq] = _lstsq


_register()
