"""NumPy functions of the wider surface (np.frexp, np.ldexp, np.broadcast_arrays, np.sort_complex, np.trim_zeros,
np.histogram_bin_edges, the NaN scans and arg extremes, and small functions of numpy/lib: np.fix, np.dstack ...)
compared with NumPy: result dtypes, values bit for bit (signed zeros, inf, nan, subnormals), shapes (sizes 0 and 1),
the warnings NumPy issues, views and errors. One compilation per case where the shapes allow."""
import math
import warnings

import numpy as np
import pytest

from transpiler import CompileError, transpile
from transpiler.runtime import errstate

from helpers import assert_same

FLOATS = [np.float16, np.float32, np.float64]
EXPONENT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.bool_]


def _bits(a):
    """The values' bits (floats as unsigned ints of their size), so that -0.0 and nan payloads compare."""
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def same_bits(actual, expected):
    assert type(actual) is type(expected)
    if isinstance(expected, tuple):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            same_bits(a, e)
        return
    assert actual.dtype == expected.dtype and np.shape(actual) == np.shape(expected)
    np.testing.assert_array_equal(_bits(actual), _bits(expected))


def float_edges(dtype):
    fi = np.finfo(dtype)
    tiny, sub = float(fi.smallest_normal), float(fi.smallest_subnormal)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, sub, -sub, 3 * sub, tiny, -tiny, 0.75 * tiny,
              float(fi.max), -float(fi.max), 1.0, -1.0, 0.5, 3.0, -0.7, 1e-3, 100.0]
    rng = np.random.default_rng(3)
    with np.errstate(all="ignore"):
        values += list(rng.normal(size=8) * 10.0 ** rng.integers(-30, 30, size=8))
    with np.errstate(all="ignore"):
        return np.array(values).astype(dtype)


# ---- frexp ----------------------------------------------------------------------------------------------------
def frexp(x):
    return np.frexp(x)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_frexp_is_numpys_bit_for_bit(dtype):
    """The mantissa in x's float dtype with x's sign, an int32 exponent; zeros, infinities and nan as they are with
    exponent 0; subnormals normalized (libm's frexp, NumPy's loop). Sizes 0 and 1, a 0-d array and a scalar."""
    compiled = transpile(frexp)
    x = float_edges(dtype)
    same_bits(compiled(x), frexp(x))
    same_bits(compiled(x[:1]), frexp(x[:1]))
    same_bits(compiled(x[:0]), frexp(x[:0]))
    same_bits(compiled(np.asarray(x[6])), frexp(np.asarray(x[6])))
    same_bits(transpile(lambda x: np.frexp(x[7]))(x), frexp(x[7]))      # NumPy scalars


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_frexp_of_ints_and_bools_in_numpys_loop_dtype(dtype):
    """int8, uint8 and bools in float16, int16 in float32, wider ints in float64, as NumPy's loops."""
    x = np.array([0, 1, 1, 0, 1], dtype) if dtype == np.bool_ else \
        np.array([0, 1, 5, 100, np.iinfo(dtype).max, np.iinfo(dtype).min], dtype)
    same_bits(transpile(frexp)(x), frexp(x))


def test_frexp_refuses_what_numpy_refuses():
    with pytest.raises(TypeError, match="not supported for the input types"):
        transpile(frexp)(np.ones(2, np.complex128))
    with pytest.raises(CompileError):       # (NumPy's out= writes two arrays: not compiled)
        transpile(lambda x, m, e: np.frexp(x, out=(m, e)))(np.ones(2), np.ones(2), np.ones(2, np.int32))


# ---- ldexp ----------------------------------------------------------------------------------------------------
def ldexp_all(x, n8, nu8, n16, nu16, n32, nu32, n64, nb):
    return tuple(np.ldexp(x, n) for n in (n8, nu8, n16, nu16, n32, nu32, n64, nb))


def exponents(size):
    base = np.array([0, 1, -1, 5, -5, 20, -20, 100, -100, 127, -128, 2000, -2000, 2 ** 40, -2 ** 40, 2 ** 62, 30])
    out = []
    for dt in EXPONENT_DTYPES:
        if dt == np.bool_:
            out.append(np.resize(np.array([True, False]), size))
        else:
            ii = np.iinfo(dt)
            out.append(np.resize(np.clip(base, ii.min, ii.max).astype(dt), size))
    return out


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_ldexp_is_numpys_bit_for_bit(dtype):
    """libm's ldexp for each exponent dtype NumPy's loops take (int32 for the narrow ints and bools, int64 for uint32
    and int64, clamped to a C int as NumPy's int64 loop): overflow to inf, underflow through the subnormals to
    zero, signed zeros, inf and nan kept; float16 through float32 rounded once. Sizes 0 and 1."""
    compiled = transpile(ldexp_all)
    x = float_edges(dtype)
    for size in (len(x), 1, 0):
        args = (x[:size], *exponents(size))
        with np.errstate(all="ignore"):
            expected = ldexp_all(*args)
        same_bits(compiled(*args), expected)


def test_ldexp_dtypes_scalars_and_broadcasting():
    """int x in NumPy's loop dtype (int8 in float16, int32 in float64), a Python float and a NumPy scalar, a Python
    int exponent (NumPy's int32 loop), broadcast shapes."""
    n = np.array([[1], [-3], [40]])
    for fn, args in [(lambda x, n: np.ldexp(x, n), (np.arange(4, dtype=np.int8), n)),
                     (lambda x, n: np.ldexp(x, n), (np.arange(4, dtype=np.int32), n[0])),
                     (lambda x, n: np.ldexp(1.5, n), (None, n.astype(np.int16))),
                     (lambda x, n: np.ldexp(x[1], n), (np.arange(4.0, dtype=np.float32), n)),
                     (lambda x, n: np.ldexp(x, 3) + np.ldexp(x, -1), (np.arange(4.0, dtype=np.float32), None))]:
        with np.errstate(all="ignore"):
            expected = fn(*args)
        same_bits(transpile(fn)(*args), expected)


def test_ldexp_refuses_as_numpy():
    """Float and uint64 exponents are NumPy's TypeError (no safe cast to its loops' ints); a Python int exponent
    outside int32 NumPy's OverflowError (its int32 loop); complex x a TypeError."""
    x = np.ones(3)
    for n in (np.ones(3), np.ones(3, np.float32), np.ones(3, np.uint64)):
        with pytest.raises(TypeError, match="not supported for the input types"):
            transpile(lambda x, n: np.ldexp(x, n))(x, n)
    with pytest.raises(TypeError, match="not supported for the input types"):
        transpile(lambda x: np.ldexp(x, 2.0))(x)
    with pytest.raises(TypeError, match="not supported for the input types"):
        transpile(lambda x: np.ldexp(x + 1j, 2))(x)
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        transpile(lambda x, n: np.ldexp(x, n))(x, 2 ** 40)


def test_ldexp_warns_as_numpy(monkeypatch):
    """With the opt-in warnings on, ldexp's overflow and underflow (NumPy's error state set to warn for it) are NumPy's
    warnings."""
    monkeypatch.setattr(errstate, "WARNINGS", True)
    monkeypatch.setenv("TRANSPILER_FP_WARNINGS", "1")

    def scaled(x, n):
        return np.ldexp(x, n)
    compiled = transpile(scaled)
    for x, n in [(np.array([1.0, 1e-300, 2.0]), np.array([2000, -100, 3])), (np.array([1.0, 2.0]), np.array([3, 4])),
                 (np.array([1.0, 3.0], np.float32), np.array([200, 1], np.int64))]:
        got = []
        for fn in (scaled, compiled):
            with warnings.catch_warnings(record=True) as caught, np.errstate(under="warn"):
                warnings.simplefilter("always")
                result = fn(x, n)
            got.append((result, sorted(str(w.message) for w in caught)))
        same_bits(got[1][0], got[0][0])
        assert got[1][1] == got[0][1]


# ---- broadcast_arrays -----------------------------------------------------------------------------------------
def _properties(v, args):
    """What a caller sees of a result: shape, writability, whether writing warns (NumPy's DeprecationWarning), which
    argument it is and which it shares memory with."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writeable = v.flags.writeable
        if writeable and v.size:
            v[...] = v.copy()
    return (v.shape, v.dtype, writeable, DeprecationWarning in {w.category for w in caught},
            [v is a for a in args], [np.shares_memory(v, a) for a in args if isinstance(a, np.ndarray)])


@pytest.mark.parametrize("fn", [
    lambda x, y: np.broadcast_arrays(x, y),
    lambda x, y: np.broadcast_arrays(x[:, None], y[0], 2.0),
    lambda x, y: np.broadcast_arrays(x),
    lambda x, y: np.broadcast_arrays(x[:0], y[:, :1]),
    lambda x, y: np.broadcast_arrays(x[0], 2.0),
], ids=["vector_matrix", "column_row_scalar", "one", "empty", "scalars"])
def test_broadcast_arrays_are_numpys_views(fn):
    """An argument of the broadcast shape is returned itself, the others as views of stride 0 that NumPy lets be
    written with a DeprecationWarning; a scalar becomes a new array."""
    x, y = np.arange(3.0), np.arange(6.0).reshape(2, 3)
    expected_args, args = (x.copy(), y.copy()), (x.copy(), y.copy())
    expected, result = fn(*expected_args), transpile(fn)(*args)
    assert_same(result, expected)
    assert [_properties(v, args) for v in result] == [_properties(v, expected_args) for v in expected]


def sums_of_broadcasts(x, y):
    a, b = np.broadcast_arrays(x, y)
    x[0] = 7.0              # seen through the view, as in NumPy
    return a * b + a.sum(axis=0)


def test_broadcast_arrays_read_follow_writes_and_refuse_writes_through_them():
    x, y = np.arange(3.0), np.arange(6.0).reshape(2, 3)
    assert_same(transpile(sums_of_broadcasts)(x.copy(), y), sums_of_broadcasts(x.copy(), y))

    def written(x, y):
        a, b = np.broadcast_arrays(x, y)
        a[0, 0] = 1.0
        return a
    with pytest.raises(CompileError, match="broadcast_arrays") as info:
        transpile(written)(x, y)
    assert isinstance(info.value, TypeError)
    with pytest.raises(ValueError):
        transpile(lambda x, y: np.broadcast_arrays(x, y))(np.ones(3), np.ones((2, 4)))


# ---- sort_complex ---------------------------------------------------------------------------------------------
def sort_complex(x):
    return np.sort_complex(x)


@pytest.mark.parametrize("x", [
    np.array([3, -1, 2, 0], np.int8), np.array([3.0, -1, np.nan, 0], np.float32), np.array([[3, 1, 2], [0, 5, -4]]),
    np.array([True, False, True]), np.array([[1 + 2j, 2 - 1j, 3 - 2j, 3 - 3j, 3 + 5j, np.nan]]),
    np.zeros(0, np.complex64),
], ids=["int8", "float32", "int64_2d", "bool", "complex128", "empty_complex64"])
def test_sort_complex_is_numpys(x):
    """Sorted along the last axis (real part, then imaginary: NumPy's order, nan last); complex64 for int8, int16,
    uint8 and uint16, complex128 for the other real dtypes (float32 and bools too)."""
    expected, result = np.sort_complex(x), transpile(sort_complex)(x)
    same_bits(result.view(result.real.dtype), expected.view(expected.real.dtype))
    assert result.dtype == expected.dtype


# ---- trim_zeros -----------------------------------------------------------------------------------------------
def trims(x):
    return np.trim_zeros(x), np.trim_zeros(x, "f"), np.trim_zeros(x, "B")


def trims_along(x):
    return np.trim_zeros(x, axis=-1), np.trim_zeros(x, "b", axis=(0,)), np.trim_zeros(x, "f")


@pytest.mark.parametrize("fn, arrays", [
    (trims, [np.array([0, 0, 1, 2, 0, 3, 0]), np.zeros(4, np.int64), np.array([5, 0, 0]), np.array([0, 0, 5]),
             np.zeros(0, np.int64), np.array([7])]),
    (trims, [np.array([0.0, -0.0, np.nan, 0.0, 2.0, 0.0])]),
    (trims_along, [np.array([[0, 0, 2, 3, 0, 0], [0, 1, 0, 3, 0, 0], [0, 0, 0, 0, 0, 0]]), np.zeros((2, 3), np.int64),
                   np.zeros((0, 3), np.int64), np.eye(4, dtype=np.int64)[1:3]]),
], ids=["1d", "float", "2d"])
def test_trim_zeros_is_numpys_view(fn, arrays):
    """NumPy's bounding box of the nonzero elements (-0.0 is zero, nan is not), along every axis or the given ones,
    a view of the argument; all-zero and empty arrays give empty results."""
    compiled = transpile(fn)
    for x in arrays:
        result, expected = compiled(x), fn(x)
        assert_same(result, expected)
        assert all(np.shares_memory(r, x) for r in result if r.size)


def test_trim_zeros_edge_arguments():
    assert_same(transpile(lambda x: np.trim_zeros(x))(np.array(3.0)), np.trim_zeros(np.array(3.0)))
    with pytest.raises(ValueError, match="unexpected character"):
        transpile(lambda x: np.trim_zeros(x, "x"))(np.ones(3))
    with pytest.raises(np.exceptions.AxisError):
        transpile(lambda x: np.trim_zeros(x, axis=2))(np.ones((2, 2)))
    with pytest.raises(CompileError, match="list"):      # NumPy returns a list
        transpile(lambda x: np.trim_zeros(x))([0, 1, 0])


# ---- histogram_bin_edges --------------------------------------------------------------------------------------
def edges(x):
    return np.histogram_bin_edges(x), np.histogram_bin_edges(x, 4, range=(-1, 2.5))


@pytest.mark.parametrize("dtype", [np.float32, np.int64], ids=lambda d: np.dtype(d).name)
def test_histogram_bin_edges_are_numpys(dtype):
    """NumPy's linspace over the data's range (min == max widened by 0.5 each side; empty data 0 to 1, in float64
    before the dtype's cast) in the data's float dtype, float64 for ints; one compilation for every size."""
    compiled = transpile(edges)
    for x in [np.array([1, 3, 2.5, 0, 7]), np.array([2, 2]), np.array([]), np.array([4])]:
        x = x.astype(dtype)
        same_bits(compiled(x), edges(x))


def test_histogram_bin_edges_arguments():
    """A run-time bin count, edges (returned as they are), weights (only their shape is checked); NumPy's errors,
    raised after the call for run-time values; string bins and bools refused."""
    x = np.array([1.0, 5.0, 2.0])
    by_count = transpile(lambda x, n: np.histogram_bin_edges(x, n))
    same_bits(by_count(x, 5), np.histogram_bin_edges(x, 5))
    by_edges = transpile(lambda x, e: np.histogram_bin_edges(x, e))
    e = np.array([0.0, 1.0, 3.0])
    assert by_edges(x, e) is e
    weighted = transpile(lambda x, w: np.histogram_bin_edges(x, 2, weights=w))
    same_bits(weighted(x, x), np.histogram_bin_edges(x, 2))
    three = transpile(lambda x: np.histogram_bin_edges(x, 3))
    for fn, args, kind in [
            (by_count, (x, 0), ValueError), (by_edges, (x, np.array([0.0, 4, 3])), ValueError),
            (weighted, (x, np.ones(2)), ValueError), (three, (np.array([1.0, np.nan]),), ValueError),
            (three, (np.array([1e300, 1e300 * (1 + 2 ** -52)]),), ValueError),      # too many bins for the range
            (transpile(lambda x: np.histogram_bin_edges(x, 0)), (x,), ValueError),
            (transpile(lambda x: np.histogram_bin_edges(x, 2.0)), (x,), TypeError),
            (transpile(lambda x: np.histogram_bin_edges(x, 3, range=(4, 0))), (x,), ValueError),
            (transpile(lambda x: np.histogram_bin_edges(x, "auto")), (x,), CompileError),  # a data-dependent count
            (transpile(lambda x: np.histogram_bin_edges(x > 1, 3)), (x,), CompileError)]:  # NumPy warns, converts
        with pytest.raises(kind):
            fn(*args)


# ---- nancumsum, nancumprod, nanargmax, nanargmin ----------------------------------------------------------------
def nan_scans(x):
    return (np.nancumsum(x), np.nancumsum(x, axis=1), np.nancumprod(x, 0), np.nanargmax(x), np.nanargmin(x, axis=1),
            np.nanargmax(x, axis=0, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float64, np.int64], ids=lambda d: np.dtype(d).name)
def test_nan_scans_and_arg_extremes_are_numpys(dtype):
    """NaNs replaced by 0 (cumsum), 1 (cumprod), -inf / inf (argmax / argmin) as NumPy's nanfunctions; ints as the
    plain functions; a slice of NaNs only is NumPy's ValueError, after the call."""
    x = np.arange(12.0).reshape(3, 4) - 5
    if dtype != np.int64:
        x[0, 1] = x[2, 3] = np.nan
    x = x.astype(dtype)
    compiled = transpile(nan_scans)
    assert_same(compiled(x), nan_scans(x))
    assert_same(compiled(x[1:2]), nan_scans(x[1:2]))
    if dtype != np.int64:
        with pytest.raises(ValueError, match="All-NaN slice"):
            compiled(np.full((2, 3), np.nan, dtype))


# ---- fix, iscomplex, isreal, asarray_chkfinite, astype, identity, diagflat, dstack, splits, unstack ------------------
def small_functions(x, n):
    z = x + 1j * (x > 1)
    return (np.fix(x), np.fix(x[0]), np.iscomplex(x), np.iscomplex(z), np.iscomplex(x[0]), np.isreal(x), np.isreal(z),
            np.astype(x, np.int32), np.identity(n), np.identity(n, dtype=np.int8), np.diagflat(x, -1),
            np.diagflat(x.reshape(2, 3), n))


def test_small_functions_are_numpys():
    x = np.array([0.5, -1.5, 2.0, -0.0, 3.7, np.nan])
    with np.errstate(all="ignore"):
        same_bits(transpile(small_functions)(x, 2), small_functions(x, 2))


def shape_functions(m):
    return (np.dstack((m, m)), np.dstack((m[0], m[1])), np.hsplit(m, 2), np.hsplit(m[0], [1, 3]), np.vsplit(m, [1]),
            np.dsplit(m[None], 2))


def test_stacks_and_splits_are_numpys():
    """hsplit, vsplit and dsplit give views (np.split's), dstack a new array; NumPy's ValueError for too few dims;
    unstack needs the unstacked axis's length while compiling (an argument's is a run-time size: refused)."""
    m = np.arange(12.0).reshape(3, 4)
    assert_same(transpile(shape_functions)(m), shape_functions(m))
    for fn in (lambda m: np.vsplit(m[0], 2), lambda m: np.dsplit(m, 2), lambda m: np.hsplit(m[0, 0], 2),
               lambda m: np.unstack(m[0, 0])):
        with pytest.raises(ValueError):
            transpile(fn)(m)
    assert_same(transpile(lambda m: np.unstack(m.reshape(3, 4), axis=1))(m), np.unstack(m, axis=1))
    with pytest.raises(CompileError, match="not known at compile time"):
        transpile(lambda m: np.unstack(m, axis=1))(m)


def test_asarray_chkfinite_is_numpys():
    compiled = transpile(lambda a: np.asarray_chkfinite(a))
    a = np.arange(3.0)
    assert compiled(a) is a
    with pytest.raises(ValueError, match="infs or NaNs"):
        compiled(np.array([1.0, np.inf, 2.0]))
    assert_same(transpile(lambda a: np.asarray_chkfinite(a, np.float32))(a), np.asarray_chkfinite(a, np.float32))


# ---- math.frexp, math.ldexp ----------------------------------------------------------------------------------
def math_frexp(x):
    return math.frexp(x)


def math_ldexp(x, i):
    return math.ldexp(x, i)


def test_math_frexp_and_ldexp_are_pythons():
    """Python floats and ints as CPython's math module gives them: frexp's (mantissa, int), ldexp's float, an
    exponent beyond a C int (or int64) the same inf or signed zero, CPython's OverflowError for an infinity from a
    finite x, its TypeError for an exponent that is not a Python int."""
    compiled = transpile(math_frexp)
    for x in [3.0, -0.0, 0.0, math.inf, 5e-324, -1e-310, 1.7976931348623157e308]:
        result, expected = compiled(x), math_frexp(x)
        assert type(result[1]) is int and result == expected and math.copysign(1, result[0]) == math.copysign(1, x)
    assert math.isnan(compiled(math.nan)[0]) and compiled(math.nan)[1] == 0
    compiled = transpile(math_ldexp)
    for x, i in [(3.0, 4), (1.0, 1023), (1.0, -1074), (1.0, -1075), (-1.0, -2 ** 40), (0.0, 10 ** 30), (math.inf, 3),
                 (1.5, True), (-1.0, -2 ** 63)]:
        result = compiled(x, i)
        assert type(result) is float and result == math_ldexp(x, i)
        assert math.copysign(1, result) == math.copysign(1, math_ldexp(x, i))
    for x, i in [(1.0, 1024), (-1.0, 5000), (1.0, 2 ** 40)]:
        with pytest.raises(OverflowError, match="math range error"):
            compiled(x, i)
    for i in (np.int64(3), 3.0):
        with pytest.raises(TypeError, match="Expected an int"):
            transpile(math_ldexp)(1.0, i)


# ---- indices, diag_indices, tril_indices, triu_indices (and _from) ----------------------------------------------
def index_arrays(m, k):
    return (np.indices(m.shape), np.indices(m.shape, sparse=True), np.indices((2, 3), dtype=np.int8),
            np.diag_indices(m.shape[0], 3), np.diag_indices_from(m[:1, :1]), np.tril_indices(m.shape[0]),
            np.triu_indices(m.shape[0], k, m.shape[1]), np.tril_indices_from(m, -1), np.triu_indices_from(m, k),
            m[np.triu_indices_from(m, 1)])


def test_index_arrays_are_numpys():
    """NumPy's index arrays, of run-time sizes and offsets: the triangles' lengths computed from their masks."""
    compiled = transpile(index_arrays)
    for m, k in [(np.arange(12.0).reshape(3, 4), 1), (np.arange(12.0).reshape(4, 3), -2), (np.ones((1, 1)), 0)]:
        assert_same(compiled(m, k), index_arrays(m, k))
    with pytest.raises(ValueError, match="equal length"):
        transpile(lambda m: np.diag_indices_from(m))(np.ones((3, 4)))
    with pytest.raises(ValueError, match="2-d"):
        transpile(lambda m: np.triu_indices_from(m))(np.ones(3))


# ---- np.linalg.matmul, outer, trace, diagonal, cross ------------------------------------------------------------
def linalg_functions(m):
    return (np.linalg.matmul(m, m[0].T), np.linalg.outer(m[0, 0], m[1, 1]), np.linalg.trace(m),
            np.linalg.trace(m, offset=1, dtype=np.float32), np.linalg.diagonal(m, offset=-1),
            np.linalg.cross(m[..., :3], m[..., 1:]))


def test_linalg_array_api_functions_are_numpys():
    """NumPy's functions over the last two axes (trace, a read-only diagonal view), outer of vectors only, cross of
    3-vectors only (NumPy's ValueError, after the call for run-time sizes)."""
    m = np.arange(24.0).reshape(2, 3, 4)
    result = transpile(linalg_functions)(m)
    assert_same(result, linalg_functions(m))
    assert not result[4].flags.writeable and np.shares_memory(result[4], m)
    with pytest.raises(ValueError, match="one-dimensional"):
        transpile(lambda m: np.linalg.outer(m[0], m[1, 1]))(m)
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        transpile(lambda m: np.linalg.cross(m, m))(m)
