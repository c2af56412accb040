"""np.linalg.inv and np.linalg.solve of real arrays: the kernel calls LAPACK's dgesv itself, in the scipy-openblas
NumPy calls it in (codegen/lapack_call.py), doing what NumPy's _umath_linalg does, so the results are NumPy's bit
for bit; a singular matrix is NumPy's LinAlgError("Singular matrix") at the call, shapes NumPy refuses its own
error (the kernel calls NumPy there)."""
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.runtime import blas, errstate

from test_disk_cache import compiled_then_loaded, kernel_of

pytestmark = pytest.mark.skipif(not blas.lapack_available(), reason="NumPy's scipy-openblas is not at hand")

RNG = np.random.default_rng(3317)
SIZES = list(range(1, 17)) + [23, 31, 32, 47, 64]


def _inv(a):
    return np.linalg.inv(a)


def _solve(a, b):
    return np.linalg.solve(a, b)


def _matrices(n):
    """Random, ill-conditioned (Hilbert, a nearly dependent column, wide range of scales) and exactly representable
    matrices of size n."""
    yield RNG.standard_normal((n, n))
    yield 1.0 / (np.arange(n)[:, None] + np.arange(n) + 1.0)          # Hilbert: cond ~ 1e18 at n = 12
    a = RNG.standard_normal((n, n))
    if n > 1:
        a[:, -1] = a[:, 0] + 1e-13 * a[:, -1]
    yield a
    yield RNG.standard_normal((n, n)) * np.logspace(-150, 150, n)
    yield RNG.integers(-3, 4, (n, n)) + 8.0 * np.eye(n)


def _direct(compiled, *args) -> bool:
    return "transpiler_lapack_dgesv" in kernel_of(compiled, *args).library_functions


def _same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(f"u{got.dtype.itemsize}"), want.view(f"u{want.dtype.itemsize}"))


def _same_outcome(compiled, fn, *args):
    """The same bits, or the same exception (its message's first line: ours adds a note on hidden frames)."""
    try:
        with np.errstate(all="ignore"):
            want = fn(*args)
    except Exception as error:      # noqa: BLE001 - compared below
        with pytest.raises(type(error)) as ours:
            compiled(*args)
        assert str(ours.value).splitlines()[0] == str(error)
        return
    _same_bits(compiled(*args), want)


def test_inv_and_solve_bit_for_bit_on_many_matrices():
    inv, solve = transpile(_inv), transpile(_solve)
    for n in SIZES:
        for a in _matrices(n):
            for dtype in (np.float64, np.float32):
                x = a.astype(dtype)      # (float32 scales past its range: singular, LinAlgError as NumPy's)
                _same_outcome(inv, _inv, x)
                for b in (RNG.standard_normal(n).astype(dtype), RNG.standard_normal((n, 3)).astype(dtype)):
                    _same_outcome(solve, _solve, x, b)
    assert _direct(inv, a) and _direct(solve, a, a)


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("float32", "float64"), ("int8", "float32"),
                                    ("bool", "float32"), ("uint16", "int32")])
def test_mixed_and_integer_dtypes_as_numpy_converts_them(dtypes):
    a = (RNG.integers(-3, 4, (5, 5)) + 6 * np.eye(5, dtype=int)).astype(dtypes[0])
    if a.dtype == bool:
        a = np.eye(5, dtype=bool) | np.triu(np.ones((5, 5), bool), 2)
    b = RNG.integers(-9, 10, (5, 2)).astype(dtypes[1])
    for got, want in ((transpile(_inv)(a), np.linalg.inv(a)), (transpile(_solve)(a, b), np.linalg.solve(a, b)),
                      (transpile(_solve)(a, b[:, 0]), np.linalg.solve(a, b[:, 0]))):
        _same_bits(got, want)


@pytest.mark.parametrize("shape", [(3, 4, 4), (2, 3, 5, 5), (0, 3, 3), (2, 0, 0), (1, 1, 1)])
def test_stacks_of_matrices(shape):
    a = RNG.standard_normal(shape)
    for dtype in (np.float64, np.float32):
        _same_bits(transpile(_inv)(a.astype(dtype)), np.linalg.inv(a.astype(dtype)))


@pytest.mark.parametrize("a_shape, b_shape", [((3, 4, 4), (3, 4, 2)), ((2, 3, 5, 5), (2, 3, 5, 1)),
                                              ((0, 3, 3), (0, 3, 2)), ((2, 0, 0), (2, 0, 3)), ((3, 4, 4), (4,))])
def test_stacks_of_systems(a_shape, b_shape):
    a, b = RNG.standard_normal(a_shape), RNG.standard_normal(b_shape)
    for dtype in (np.float64, np.float32):
        _same_bits(transpile(_solve)(a.astype(dtype), b.astype(dtype)), np.linalg.solve(a.astype(dtype),
                                                                                       b.astype(dtype)))
    singular = a.copy()
    if a.shape[0] and a.shape[-1]:
        singular[-1] = 0.0
        with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix"):
            transpile(_solve)(singular, b)


def test_stacked_systems_of_the_same_batch_dims_call_dgesv():
    def both(a, b):
        return np.linalg.solve(a, b), np.linalg.solve(a, a)

    a, b = RNG.standard_normal((3, 4, 4)), RNG.standard_normal((3, 4, 2))
    for got, want in zip(transpile(both)(a, b), both(a, b)):
        _same_bits(got, want)
    assert _direct(transpile(both), a, b)


def test_strided_views_and_empty_matrices():
    a = RNG.standard_normal((9, 8))
    f = transpile(lambda a, b: (np.linalg.inv(a[1::2, ::2]), np.linalg.inv(a[:4, :4].T),
                                np.linalg.solve(a[1:5, :4], b[::-2]), np.linalg.solve(a[:4, 4:].T, a[:4, ::3])))
    b = RNG.standard_normal(8)
    want = (np.linalg.inv(a[1::2, ::2]), np.linalg.inv(a[:4, :4].T), np.linalg.solve(a[1:5, :4], b[::-2]),
            np.linalg.solve(a[:4, 4:].T, a[:4, ::3]))
    for got, w in zip(f(a, b), want):
        _same_bits(got, w)
    _same_bits(transpile(_inv)(np.zeros((0, 0))), np.linalg.inv(np.zeros((0, 0))))
    _same_bits(transpile(_solve)(np.zeros((0, 0)), np.zeros((0, 2))), np.linalg.solve(np.zeros((0, 0)),
                                                                                       np.zeros((0, 2))))


@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_give_numpys_values_and_no_warning(special, monkeypatch):
    """LAPACK's results on such input, as NumPy gives them, and no RuntimeWarning with the warnings on (NumPy clears
    the flags its LAPACK call raised; the kernel restores the flags it had before the call)."""
    monkeypatch.setattr(errstate, "WARNINGS", True)
    with np.errstate(all="warn"):      # (the other tests run under errstate(all="ignore"))
        _nan_and_inf(special)


def _nan_and_inf(special):
    for n in (1, 2, 4):
        a = RNG.standard_normal((n, n)) + 3 * np.eye(n)
        a[n // 2, 0] = special
        b = RNG.standard_normal(n)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for got, want in ((transpile(_inv)(a), np.linalg.inv(a)), (transpile(_solve)(a, b),
                                                                        np.linalg.solve(a, b))):
                _same_bits(got, want)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    with pytest.warns(RuntimeWarning, match="invalid value"):     # the kernel's own events are still reported
        transpile(lambda a, z: np.linalg.inv(a) + np.sqrt(z))(x, np.array([-1.0]))


def test_singular_matrix_raises_numpys_error_at_the_call():
    for a in (np.zeros((3, 3)), np.ones((4, 4)), np.array([[1.0, 2.0], [2.0, 4.0]]), np.zeros((1, 1))):
        for fn, args in ((_inv, (a,)), (_solve, (a, np.ones(a.shape[0]))), (_solve, (a, np.ones((a.shape[0], 2))))):
            with pytest.raises(np.linalg.LinAlgError) as numpys:
                fn(*args)
            with pytest.raises(np.linalg.LinAlgError) as ours:
                transpile(fn)(*args)
            assert str(ours.value).splitlines()[0] == str(numpys.value) == "Singular matrix"
    stack = RNG.standard_normal((3, 2, 2))
    stack[1] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix"):
        transpile(_inv)(stack)


def test_singular_matrix_in_a_loop_stops_it_where_numpy_stops():
    def invert_all(stack, out):
        for i in range(stack.shape[0]):
            out[i] = np.linalg.inv(stack[i])
            out[i, 0, 0] += 1.0
        return out

    stack = RNG.standard_normal((5, 3, 3))
    stack[3] = np.ones((3, 3))
    want_out, got_out = np.zeros((5, 3, 3)), np.zeros((5, 3, 3))
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix"):
        invert_all(stack, want_out)
    compiled = transpile(invert_all)
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix"):
        compiled(stack, got_out)
    _same_bits(got_out, want_out)
    assert _direct(compiled, stack[:3], got_out)


@pytest.mark.parametrize("fn, args", [
    (_inv, (np.ones((3, 4)),)), (_inv, (np.ones((2, 3, 4)),)),
    (_solve, (np.ones((3, 4)), np.ones(3))), (_solve, (np.ones((3, 3)), np.ones(4))),
    (_solve, (np.ones((3, 3)), np.ones((4, 2)))), (_solve, (np.eye(3), np.ones((2, 3))))])
def test_shapes_numpy_refuses_raise_numpys_error(fn, args):
    with pytest.raises((np.linalg.LinAlgError, ValueError)) as numpys:
        fn(*args)
    with pytest.raises(type(numpys.value)) as ours:
        transpile(fn)(*args)
    assert str(ours.value).splitlines()[0] == str(numpys.value)


def test_kalman_filter_calls_dgesv_and_survives_the_disk_cache(fresh_kernel_cache):
    def step(P, H, R, z, x):
        for t in range(z.shape[0]):
            S = H @ P @ H.T + R
            K = P @ H.T @ np.linalg.inv(S)
            x = x + K @ (z[t] - H @ x)
            P = P - K @ H @ P
        return x, P, np.linalg.solve(H @ P @ H.T + R, z[0])

    P, H, R = np.eye(4), RNG.standard_normal((2, 4)), 0.1 * np.eye(2)
    z, x = RNG.standard_normal((20, 2)), RNG.standard_normal(4)
    want = step(P, H, R, z, x)
    for got in compiled_then_loaded(step, P, H, R, z, x):
        for g, w in zip(got, want):
            _same_bits(g, w)
    assert _direct(transpile(step), P, H, R, z, x)


def test_complex_and_broadcast_solve_keep_numpys_call():
    a = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    np.testing.assert_array_equal(transpile(_inv)(a), np.linalg.inv(a))
    assert not _direct(transpile(_inv), a)
    for a_shape, b_shape in (((2, 3, 3), (1, 3, 1)), ((3, 3), (2, 3, 1)), ((2, 3, 3), (3,))):   # broadcasting
        a, b = RNG.standard_normal(a_shape), RNG.standard_normal(b_shape)
        np.testing.assert_array_equal(transpile(_solve)(a, b), np.linalg.solve(a, b))


def test_without_numpys_lapack_the_kernel_calls_numpy(monkeypatch):
    monkeypatch.setattr(blas, "lapack_available", lambda: False)
    a, b = RNG.standard_normal((4, 4)), RNG.standard_normal(4)
    inv, solve = transpile(_inv), transpile(_solve)
    _same_bits(inv(a), np.linalg.inv(a))
    _same_bits(solve(a, b), np.linalg.solve(a, b))
    assert not _direct(inv, a) and not _direct(solve, a, b)
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix"):
        inv(np.zeros((4, 4)))


def test_large_matrices_with_openblas_threads_as_numpys():
    """dgesv of 100 rows and more may run OpenBLAS's threaded LU: called with OpenBLAS's thread setting as it is, as
    NumPy's call finds it, so the bits are NumPy's."""
    a = RNG.standard_normal((120, 120))
    _same_bits(transpile(_inv)(a), np.linalg.inv(a))
    _same_bits(transpile(_solve)(a, a[:, :7]), np.linalg.solve(a, a[:, :7]))
