"""complex64 and complex128 end to end: arguments, weak Python complex scalars (NEP 50), arithmetic, functions,
casts, reductions, products, writes, and `.real`/`.imag` as views; everything else on complex values is refused with
a CompileError, never computed wrongly. Values are compared with NumPy's own run (tests/helpers.check): to rounding,
relative to the magnitude of each expected value (helpers.RTOL), with nan and inf in the same parts."""
import warnings

import numpy as np
import pytest

from helpers import PARTS, assert_same, check, in_part, some_slow_pairs
from transpiler import CompileError, transpile

COMPLEX = [np.complex64, np.complex128]
# The grids below run whole in the slow suite; the default suite runs each case on one of the two dtypes, in turn
# (some_slow_pairs: complex64 and complex128 each get half of the cases).


def _id(value):
    return value if isinstance(value, str) else getattr(value, "__name__", str(value))
INF, NAN = np.inf, np.nan
# edge values: zeros of both signs, inf and nan in either part, huge and tiny magnitudes
EDGES = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), 1 + 1j, -2.5 + 0.5j, 3e-300 + 1j, 1e300 - 1e300j,
         complex(INF, 0), complex(-INF, 1), complex(0, INF), complex(INF, NAN), complex(NAN, INF), complex(NAN, 1),
         complex(1, NAN), complex(INF, INF), complex(-INF, -INF)]


def values(dtype, n=9, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


def edges(dtype):
    with np.errstate(over="ignore"):
        return np.array(EDGES, dtype=dtype)


def check_quiet(fn, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return check(fn, *args, **kwargs)


# ---- arithmetic ---------------------------------------------------------------------------------------------------
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}


@pytest.mark.parametrize("op, dtype", some_slow_pairs(list(BINARY), COMPLEX, every=2), ids=_id)
def test_binary_operators(op, dtype):
    """Products are NumPy's formula (no C99 inf recovery), quotients Smith's algorithm, comparisons lexicographic
    with NumPy's nan rule; edge values against each other, every pair."""
    e = edges(dtype)
    a, b = np.repeat(e, len(e)), np.tile(e, len(e))
    check_quiet(BINARY[op], a, b)
    check_quiet(BINARY[op], values(dtype), values(dtype, seed=1)[::-1])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_division_by_zero_and_unary_minus(dtype):
    z = edges(dtype)
    check_quiet(lambda z: z / 0, z)
    check_quiet(lambda z: z / (0 + 0j), z)
    check_quiet(lambda z: -z, z)


@pytest.mark.parametrize("k, dtype", some_slow_pairs([-3, -2, -1, 0, 1, 2, 3, 4], COMPLEX, every=2), ids=_id)
def test_small_integer_powers(dtype, k):
    check_quiet(lambda z: z ** k, values(dtype))
    check_quiet(lambda z: np.power(z, k), values(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_powers_by_run_time_and_non_integer_exponents(dtype):
    """NumPy's nc_pow: z ** 0 is 1, 0 ** w is 0 when w's real part is positive and nan otherwise, a real integer
    exponent below 100 in magnitude is products (complex128 bit for bit), any other exponent libm's cpow."""
    z = values(dtype, 20)
    z[:2] = [0, 1j]
    e = np.array([2.5, 0, -1, 2, 3, 5, -7, 1j, 0.5 + 0.5j, 99, 100, -3.5, 1, -2, 4, 17, 0, 1e-300, NAN, INF], dtype)
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    check_quiet(lambda z, e: z ** e, z, e, rtol=rtol)
    check_quiet(lambda z, e: np.power(z, e), z, e[::-1], rtol=rtol)
    check_quiet(lambda z: z ** 2.5, z, rtol=rtol)
    check_quiet(lambda z: 2 ** z, z, rtol=rtol)
    check_quiet(lambda z, k: z ** k, z, np.int64(7), rtol=rtol)
    check_quiet(lambda x, e: x ** e, z.real, e, rtol=rtol)
    if dtype == np.complex128:
        exact = transpile(lambda z, e: z ** e)(z[:17], e[:17])
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(exact, z[:17] ** e[:17])


def test_python_complex_division_by_zero_raises_as_python():
    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        transpile(lambda c, d: c / d)(1j, 0j)


# ---- functions ----------------------------------------------------------------------------------------------------
FUNCTIONS = {
    "np.abs": np.abs, "abs": abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "conj": np.conj,
    "conjugate": np.conjugate, ".conj()": lambda z: z.conj(), ".conjugate()": lambda z: z.conjugate(),
    ".real": lambda z: z.real, ".imag": lambda z: z.imag, "np.real": np.real, "np.imag": np.imag,
    "angle": np.angle, "angle deg": lambda z: np.angle(z, deg=True), "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite, "square": np.square,
}
# complex64 exp/log/sqrt are computed in complex128 and rounded (docs/semantics.md): within a few float32 ulp of
# NumPy's cexpf/clogf/csqrtf, and subnormal results can differ more (relative to their tiny magnitude)
ROUNDED = {"exp", "log", "sqrt", "angle", "angle deg"}


@pytest.mark.parametrize("name, dtype", some_slow_pairs(list(FUNCTIONS), COMPLEX, every=2,
                                                        keep={(n, d) for n in ROUNDED for d in COMPLEX}), ids=_id)
def test_functions(name, dtype):
    fn = FUNCTIONS[name]
    rtol = {np.complex64: 1e-6, np.complex128: 1e-15}[dtype] if name in ROUNDED else None
    check_quiet(lambda z: fn(z), values(dtype, 50), rtol=rtol)
    z = edges(dtype)
    if name in ("exp",):
        z = z[np.abs(z.real) < 100]       # NumPy's cexpf overflows a part where the complex128 value fits
    check_quiet(lambda z: fn(z), z, rtol=rtol, atol=0 if rtol else None)


def test_abs_of_inf_and_nan_parts():
    """NumPy: |inf + nan j| is inf, |nan + 1j| is nan."""
    for dtype in COMPLEX:
        z = np.array([complex(INF, NAN), complex(NAN, -INF), complex(NAN, 1), complex(0, NAN)], dtype)
        got = transpile(lambda z: np.abs(z))(z)
        np.testing.assert_array_equal(got, np.array([INF, INF, NAN, NAN], got.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_complex_functions_on_real_arrays(dtype):
    """conj of a real array is itself; .real is the array, .imag zeros; angle is arctan2(0, x)."""
    x = np.array([3, -2, 0, 1], dtype=dtype)
    for fn in (lambda x: np.conj(x), lambda x: x.conj(), lambda x: x.real + 1, lambda x: x.imag,
               lambda x: np.real(x), lambda x: np.imag(x), lambda x: np.angle(x), lambda x: np.angle(x, deg=True)):
        check_quiet(fn, x)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_functions_on_empty_size_one_and_2d(dtype):
    for z in (np.zeros(0, dtype), np.ones(1, dtype) * (1 - 2j), values(dtype, 12).reshape(3, 4)):
        check_quiet(lambda z: np.exp(z) * np.abs(z) + z.conj() - z.real, z)


# ---- scalars and NEP 50 promotion ---------------------------------------------------------------------------------
def test_python_complex_is_weak():
    x32 = np.arange(4, dtype=np.float32)
    assert transpile(lambda x: 1j * x)(x32).dtype == np.complex64
    assert transpile(lambda x: x + (2 - 1j))(np.arange(3, dtype=np.int8)).dtype == np.complex128
    check(lambda x: 1j * x, x32)
    check(lambda x, c: c * x, x32, 2 + 1j)                  # a Python complex argument: weak too
    check(lambda x: x + 1j, np.arange(3))


def test_python_complex_ordered_against_a_float64_scalar_is_numpys_bool():
    """`1j * np.float64(2)` is Python's complex product (np.float64 is a float), but Python's complex has no order:
    `1j < np.float64(2)` is np.float64's reflected comparison, an np.bool (it was a Python bool; found by the
    exhaustive promotion table)."""
    for op in (lambda c, s: c < s, lambda c, s: c >= s, lambda c, s: c > s, lambda c, s: c <= s):
        check(op, 1j, np.float64(2.0))
        check(op, 2 - 0.5j, np.float64(-1.0))
    check(lambda c, s: c * s, 1j, np.float64(2.0))          # still a Python complex


def test_numpy_complex_scalars_are_strong():
    x32 = np.arange(4, dtype=np.float32)
    check(lambda x: np.complex128(1) * x, x32)
    check(lambda x, c: c * x, x32, np.complex128(2 + 1j))
    check(lambda x, c: c * x, x32, np.complex64(2 + 1j))
    check(lambda z, c: z + c, values(np.complex64), 1.5j)


def test_scalar_results_have_numpy_types():
    z = values(np.complex64)
    check(lambda z: z[1], z)                # np.complex64
    check(lambda z: z[0].real, z)           # np.float32
    check(lambda z: abs(z[0]), z)
    check(lambda c: c * 2, 2 + 1j)          # a Python complex
    check(lambda c: c.real, 2 + 1j)         # a Python float
    check(lambda c: c.imag * 2, np.complex64(2 + 1j))
    check(lambda z: z.sum(), z)


def test_complex_results_are_not_recompiled_per_value():
    f = transpile(lambda x, c: c * x)
    x = np.arange(3.0)
    for c in (1j, 2 + 3j, -1.5j):
        assert_same(f(x, c), c * x)
    assert f.compilations == 1


# ---- casts --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src, dst", some_slow_pairs([np.bool_, np.int8, np.uint64, np.int64, np.float16, np.float32,
                                                      np.float64, np.complex64, np.complex128], COMPLEX, every=2),
                         ids=_id)
def test_astype_to_complex(src, dst):
    x = np.array([0, 1, 3, 7], dtype=src)
    check_quiet(lambda x: x.astype(dst), x)


@pytest.mark.parametrize("dst", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
def test_astype_from_complex_drops_the_imaginary_part(dst):
    """NumPy's cast keeps the real part (bool: either part non-zero) and warns ComplexWarning (except to bool)."""
    z = np.array([1.7 + 2j, -3.2 - 1j, 0j, 1j, 200 + 0j])
    check_quiet(lambda z: z.astype(dst), z)
    f = transpile(lambda z: z.astype(dst))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(z)
    warned = [w for w in caught if issubclass(w.category, np.exceptions.ComplexWarning)]
    assert bool(warned) == (dst is not np.bool_)


def test_complex_warning_as_error_is_a_compile_error_of_that_class():
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        with pytest.raises(np.exceptions.ComplexWarning):
            transpile(lambda z: z.astype(np.float64))(np.array([1j]))


# ---- reductions and products --------------------------------------------------------------------------------------
COMPLEX_AXES = [None, 0, 1, -1, (0, 1)]


# the default suite: each axis on one of complex64 and complex128 (in turn), and there each reduction with or without
# keepdims (in turn: each with and without on some axis); the slow suite: the rest
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("axis, dtype", some_slow_pairs(COMPLEX_AXES, COMPLEX, every=2), ids=_id)
def test_reductions(dtype, axis, part):
    z = values(dtype, 12).reshape(3, 4)
    for k, fn in enumerate((np.sum, np.prod, np.mean, np.var, np.std)):
        if in_part(part, k + COMPLEX_AXES.index(axis)):
            check_quiet(lambda z: fn(z, axis=axis), z)
        if in_part(part, k + 1 + COMPLEX_AXES.index(axis)):
            check_quiet(lambda z: fn(z, axis=axis, keepdims=True), z)
    if part == "default":
        check_quiet(lambda z: z.sum(axis=axis) + z.mean(axis=axis), z)


def test_reductions_of_empty_and_long_arrays():
    check_quiet(lambda z: (z.sum(), z.prod()), np.zeros(0, np.complex128))
    z = values(np.complex128, 100_000)
    check_quiet(lambda z: z.sum(), z, rtol=1e-12, atol=1e-9)    # sequential sum vs NumPy's pairwise one
    check_quiet(lambda z: z.sum(), z.astype(np.complex64))      # summed in complex128, rounded once


@pytest.mark.parametrize("dtype", COMPLEX)
def test_sum_of_both_parts_in_one_pass(dtype):
    """codegen/reduce._complex_sum adds both parts in one loop: signed zeros as NumPy's (a sum of -0.0 parts is
    +0.0, either part), inf and nan in either part, strided and transposed views, every axis, lengths around the
    vector width."""
    sums = {None: transpile(lambda z: z.sum()), 0: transpile(lambda z: z.sum(axis=0)),
            1: transpile(lambda z: z.sum(axis=1))}
    means = {None: transpile(lambda z: z.mean()), 0: transpile(lambda z: z.mean(axis=0)),
             1: transpile(lambda z: z.mean(axis=1))}

    def same(fns, numpy_fn, arg, axis):
        with np.errstate(all="ignore"):
            actual, expected = fns[axis](arg), numpy_fn(arg, axis=axis)
        assert_same(actual, expected)
        numbers = ~np.isnan(expected)
        for part in (np.real, np.imag):
            assert np.array_equal(np.signbit(part(actual))[numbers], np.signbit(part(expected))[numbers])

    for parts in [(-0.0, -0.0), (0.0, -0.0), (-0.0, 0.0)]:
        for n in (1, 5, 17):
            z = np.full(n, complex(*parts), dtype)
            for axis, arg in ((None, z), (0, z.reshape(n, 1)), (1, z.reshape(1, n))):
                same(sums, np.sum, arg, axis)
    e = edges(dtype)
    for i in range(len(e)):
        same(sums, np.sum, e[i:i + 3], None)
        same(sums, np.sum, np.concatenate([values(dtype, 40), e[i:i + 1]]), None)
    z = values(dtype, 24 * 7, seed=3).reshape(24, 7)
    for arg in (z, z.T, z[::3], z[:, ::2], z[::-1]):
        for axis in (None, 0, 1):
            same(sums, np.sum, arg, axis)
            same(means, np.mean, arg, axis)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_products(dtype):
    a, b = values(dtype, 12).reshape(3, 4), values(dtype, 20, 1).reshape(4, 5)
    check(lambda a, b: a @ b, a, b)
    check(lambda a, b: np.matmul(a, b), a, b)
    check(lambda a, b: np.dot(a, b), a, b)
    check(lambda a, v: a @ v, a, values(dtype, 4))
    check(lambda v, w: np.dot(v, w), values(dtype, 4), values(dtype, 4, 3))
    check(lambda a, x: a @ x, a, np.arange(20.0).reshape(4, 5))     # complex @ float: complex


# ---- writes and views ---------------------------------------------------------------------------------------------
def test_writes():
    z = values(np.complex128)

    def element(z):
        z[1] = 1j
        z[2] += 2
        return z

    def masked(z):
        z[np.abs(z) > 1] = 0
        return z

    def update(z, w):
        z += w
        z *= 1j
        return z

    check(element, z)
    check(masked, z)
    check(update, z, values(np.complex128, seed=3))


def test_storing_complex_into_a_real_array_warns():
    def store(x, z):
        x[:] = z
        return x

    with pytest.warns(np.exceptions.ComplexWarning):
        check(store, np.zeros(3), np.array([1 + 2j, 3j, -1]))
    with pytest.raises(TypeError):      # x += z: complex does not cast to float under same_kind, as in NumPy
        transpile(lambda x, z: np.add(x, z, out=x))(np.zeros(3), np.ones(3) * 1j)


def test_real_and_imag_are_views():
    def write_real(z):
        z.real[:] = 0
        return z

    def add_imag(z):
        z.imag += 1
        return z

    def through_name(z):
        r = z.real
        r[1:] = -1
        return z, r

    def read_after_write(z):
        r = z.imag
        z[0] = 5 + 7j
        return r

    for fn in (write_real, add_imag, through_name, read_after_write):
        check(fn, values(np.complex128))
        check(fn, values(np.complex64).reshape(3, 3))


def test_returned_real_of_an_argument_is_a_view_of_it():
    z = values(np.complex128)
    r = transpile(lambda z: z.real)(z)
    assert np.shares_memory(r, z)
    r[0] = 100.0
    assert z[0].real == 100.0
    i = transpile(lambda z: z.imag[::2])(z)
    assert np.shares_memory(i, z)
    np.testing.assert_array_equal(i, z.imag[::2])


def test_imag_of_a_real_array_is_read_only():
    def write(x):
        x.imag[:] = 1
        return x
    with pytest.raises(ValueError):
        write(np.zeros(3))
    with pytest.raises(CompileError, match="read-only"):
        transpile(write)(np.zeros(3))


def test_every_admitted_primitive_has_a_complex_implementation():
    from transpiler.codegen import complex_scalar
    from transpiler.types import dtypes
    assert dtypes.COMPLEX_PRIMS <= set(complex_scalar.UNARY) | set(complex_scalar.BINARY)


# ---- NumPy's order: maximum, minimum, max, min, argmax, argmin --------------------------------------------------
def exactly(got, want):
    """The same values, part by part: NaNs where NumPy has them (with NumPy's other part), zeros of NumPy's sign."""
    assert_same(got, want, rtol=0, atol=0)
    for g, w in zip(np.ravel(got), np.ravel(want)):
        for part in (np.real, np.imag):
            assert np.array_equal(part(g), part(w), equal_nan=True) and np.signbit(part(g)) == np.signbit(part(w)), \
                (got, want)


def check_exactly(fn, *args):
    with np.errstate(all="ignore"):
        exactly(transpile(fn)(*args), fn(*args))


@pytest.mark.parametrize("ufunc, dtype", some_slow_pairs([np.maximum, np.minimum, np.fmax, np.fmin], COMPLEX, every=2),
                         ids=_id)
def test_maximum_and_minimum_in_numpys_order(ufunc, dtype):
    """Lexicographic, a NaN part wins (maximum, minimum) or loses (fmax, fmin); equal values keep the first: the
    edge values against each other, every pair, with zeros of both signs."""
    e = edges(dtype)
    check_exactly(lambda a, b: ufunc(a, b), np.repeat(e, len(e)), np.tile(e, len(e)))
    check_exactly(lambda a, b: ufunc(a[0], b), e, e[::-1].copy())             # a scalar: a scalar result
    check_exactly(lambda a: ufunc(a, 1 + 0.5j), e)                            # a Python complex
    check_exactly(lambda a, b: ufunc(a, b), e, np.linspace(-2, 2, len(e)))    # a float array


ORDERED = [np.max, np.min, np.argmax, np.argmin, np.ptp]


# the default suite: max on complex64, argmin on complex128
@pytest.mark.parametrize("fn, dtype", some_slow_pairs(ORDERED, COMPLEX, every=len(ORDERED) * 2,
                                                      keep={(np.max, np.complex64), (np.argmin, np.complex128)}),
                         ids=_id)
def test_max_min_argmax_argmin_in_numpys_order(fn, dtype):
    """NumPy's fold: the first value with a NaN part, else the first of the largest (smallest); argmax picks the
    same. Rows of edge values, along each axis, over all, with keepdims."""
    rng = np.random.default_rng(7)
    e = edges(dtype)
    with_nans = rng.choice(e, (5, 7))
    finite = rng.choice(np.array([0j, complex(-0.0, 0), complex(0, -0.0), 1 + 1j, 1 - 1j, -2 + 0j, 1 + 1j, -0.0 - 2j],
                                 dtype), (5, 7))
    for z in (with_nans, finite, finite[:1], e):
        for axis in (None, 0, -1):
            if z.ndim == 1 and axis == 0:
                continue
            check_exactly(lambda z: fn(z, axis=axis), z)
            if fn is not np.ptp:
                check_exactly(lambda z: fn(z, axis=axis, keepdims=True), z)
    check_exactly(lambda z: z.max(axis=(0, 1)) + z.min(0).sum(), finite)
    check_exactly(lambda z: np.maximum.reduce(z, axis=1), with_nans)
    check_exactly(lambda z: np.minimum.accumulate(z, axis=0), with_nans)
    check_exactly(lambda z: z[::-1].argmax(), e)


@pytest.mark.parametrize("decimals, dtype", some_slow_pairs([0, 1, 2, -1], COMPLEX, every=2), ids=_id)
def test_round_rounds_each_part(dtype, decimals):
    """NumPy's PyArray_Round on each part: halves to even, nan and inf kept, zeros' signs as NumPy's."""
    z = np.concatenate([edges(dtype), np.array([1.25 + 2.35j, -0.4 - 0.5j, 125 + 351j, 2.5 - 1.5j], dtype)])
    check_exactly(lambda z: np.round(z, decimals), z)
    check_exactly(lambda z: z.round(decimals).reshape(4, 5).sum(1), z)
    check_exactly(lambda z: np.around(z[4], decimals), z)              # a scalar: a scalar result


def test_max_of_an_empty_complex_array_raises():
    with pytest.raises(ValueError, match="zero-size array"):
        transpile(lambda z: z.max())(np.zeros(0, complex))
    with pytest.raises(ValueError, match="empty sequence"):
        transpile(lambda z: z.argmin())(np.zeros((0, 3), complex))


# ---- refused ------------------------------------------------------------------------------------------------------
REFUSED = {
    "sign": np.sign, "tanh": np.tanh, "log1p": np.log1p, "sin": np.sin,
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_unsupported_complex_functions_are_refused(name):
    fn = REFUSED[name]
    with pytest.raises(CompileError) as info:
        transpile(lambda z: fn(z))(values(np.complex128))
    assert "internal compiler error" not in str(info.value)
    assert "complex" in str(info.value)


@pytest.mark.parametrize("fn", [np.floor, np.fmod, lambda z: z // 2, lambda z: z % 2, lambda z: z & 1])
def test_functions_numpy_refuses_raise_its_type_error(fn):
    z = values(np.complex128)
    with pytest.raises(TypeError):
        fn(z) if fn is not np.fmod else np.fmod(z, z)
    with pytest.raises(TypeError):
        transpile(lambda z: fn(z) if fn is not np.fmod else np.fmod(z, z))(z)


# ---- library functions and conversions ----------------------------------------------------------------------------
def test_library_functions_on_complex():
    """stdlib functions follow NumPy on complex: cov conjugates (X @ X.T.conj()), corrcoef clips each part."""
    a = values(np.complex128, 12).reshape(3, 4)
    v = values(np.complex64, 6)
    for fn, x in [(np.cov, a), (np.corrcoef, a), (np.cumsum, v), (np.cumprod, v), (np.diff, v),
                  (lambda x: np.roll(x, 2), v), (lambda x: np.outer(x, x), v), (np.trace, a),
                  (lambda x: np.einsum("ij,kj->ik", x, x), a), (lambda x: np.average(x, weights=np.abs(x)), v),
                  (lambda x: np.isclose(x, x * (1 + 1e-7)), v), (np.count_nonzero, v), (np.sort, v), (np.unique, v),
                  (np.linalg.inv, a[:, :3]), (np.linalg.det, a[:, :3]), (lambda x: np.linalg.norm(x), a),
                  (lambda x: np.concatenate([x, x[::-1]]), v), (lambda x: x[x.real > 0], v),
                  (lambda x: np.linspace(x[0], x[2], 5), v), (lambda x: np.linspace(0, 1j * x[1].real, 5), v),
                  (lambda x: np.searchsorted(np.sort(x), 1 + 1j), v), (lambda x: isinstance(x[0] * 1j, complex), v)]:
        check_quiet(lambda x: fn(x), x)


def test_scalar_conversions():
    z = values(np.complex128)
    check(lambda z: complex(z[0]), z)
    check(lambda z: np.complex64(z[0]), z)
    check(lambda x: np.complex128(x), np.arange(3.0))
    check(lambda z: bool(z[0]), z)
    with pytest.warns(np.exceptions.ComplexWarning):
        check(lambda z: float(z[0]), z)
    with pytest.raises(TypeError):
        transpile(lambda z: float(z))(np.array(1 + 1j))     # a 0-d array, not a scalar


def test_cli_argument_types():
    """docs/cli.md: `complex` and complex literals are Python complex (weak), complex64[?] an array."""
    from transpiler import argspec
    assert argspec.parse("complex") == argspec.parse("1j") == ("Z",)
    assert argspec.parse("complex64[?]")[:2] == ("A", np.dtype(np.complex64).str)
    assert argspec.parse("complex128") == ("S", np.dtype(np.complex128).str)
