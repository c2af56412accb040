"""What happens when things go wrong: a compilation that fails is not tried again for the same arguments, and a
Ctrl-C while the kernel is in a NumPy callback raises KeyboardInterrupt after a correct finish, never a wrong
result (issue #14)."""
import math

import numpy as np
import pytest

from transpiler import CompileError, driver, transpile
from transpiler.runtime import blas


def fails_to_compile(x):
    return x + "a string"


def test_a_failed_compilation_is_not_repeated(monkeypatch):
    calls = []
    real = driver.trace_free_typing
    monkeypatch.setattr(driver, "trace_free_typing", lambda *a: calls.append(1) or real(*a))
    f = transpile(fails_to_compile)
    for _ in range(3):
        with pytest.raises(CompileError):
            f(np.ones(3))
    assert len(calls) == 1


def half_product(a, b):
    return a @ b      # a float16 product: computed by NumPy's matmul, called from the kernel


def test_ctrl_c_in_a_numpy_callback_finishes_then_raises(monkeypatch):
    """The first product the callback computes is interrupted (as a Ctrl-C would interrupt it); the kernel still
    computes every product whole, then the call raises KeyboardInterrupt; the next call is normal."""
    a = np.random.default_rng(0).random((3, 4)).astype(np.float16)
    b = np.random.default_rng(1).random((4, 5)).astype(np.float16)
    f = transpile(half_product)
    f(a, b)                                   # compiled, callbacks bound
    real_matmul = np.matmul
    interrupts = [1]

    retried = []

    def interrupted(x, y, out=None):
        if interrupts:
            interrupts.pop()
            out[...] = np.nan                 # half-done work left behind
            raise KeyboardInterrupt
        result = real_matmul(x, y, out=out)
        retried.append(out.copy())   # (a copy: `out` is the kernel's buffer, freed when the interrupted call ends)
        return result
    monkeypatch.setattr(blas.np, "matmul", interrupted)
    with pytest.raises(KeyboardInterrupt):
        f(a, b)
    assert not interrupts and not blas.INTERRUPTED.is_set()
    assert retried and not np.isnan(retried[0]).any()       # the interrupted product was done again, whole
    monkeypatch.setattr(blas.np, "matmul", real_matmul)
    np.testing.assert_array_equal(f(a, b), a @ b, strict=True)   # NumPy's own matmul, called back



def double(x):
    return x * 2


def test_ndarray_subclasses_with_other_semantics_are_refused(tmp_path):
    with pytest.raises(TypeError, match="matrix"):
        transpile(double)(np.matrix([[1.0, 2.0]]))
    with pytest.raises(TypeError, match="MaskedArray"):
        transpile(double)(np.ma.masked_array([1.0, 2.0], mask=[True, False]))
    m = np.memmap(tmp_path / "data", dtype=np.float64, mode="w+", shape=(3,))
    m[:] = [1, 2, 3]
    np.testing.assert_array_equal(transpile(double)(m), [2.0, 4.0, 6.0])


def test_a_ragged_list_argument_is_a_type_error():
    with pytest.raises(TypeError, match="numeric array"):
        transpile(double)([[1.0, 2.0], [3.0]])


def outer(x):
    return x[:, None] * x[None, :]


def cube(x):
    n = len(x)
    return np.zeros((n, n, n), np.int8)


def test_an_allocation_too_large_is_numpys_error_not_a_crash():
    """3,000,000 int8 values: an outer product of 8 TiB (more than memory and swap) is NumPy's MemoryError at the
    call; n**3 bytes does not fit 64 bits: NumPy's ValueError. Both before the kernel runs (issue #14: SIGSEGV)."""
    message = r"Unable to allocate 8\.19 TiB for an array with shape \(3000000, 3000000\) and data type int8"
    with pytest.raises(MemoryError, match=message):
        transpile(outer)(np.ones(3_000_000, np.int8))
    with pytest.raises(ValueError, match="array is too big"):
        transpile(cube)(np.ones(3_000_000, np.int8))
    np.testing.assert_array_equal(transpile(outer)(np.arange(3)), outer(np.arange(3)))


def zeros_of(k, dtype):
    return np.zeros(k[0], dtype).sum()


def test_a_size_computed_from_the_data_is_checked_in_the_kernel():
    """np.zeros(k) for a k read from an array: a negative k is NumPy's ValueError, one beyond this machine's memory
    its MemoryError, raised at the call; the kernel allocates nothing for either (it crashed with SIGSEGV)."""
    for dtype in (np.int8, np.float64):
        f = transpile(zeros_of)
        assert f(np.array([5]), dtype) == 0
        with pytest.raises(MemoryError, match="this machine's memory"):
            f(np.array([10**14]), dtype)
        with pytest.raises(ValueError, match="negative dimensions are not allowed"):
            f(np.array([-3]), dtype)
        assert f(np.array([0]), dtype) == 0
    grid = transpile(lambda n: np.arange(n[0]).sum() + np.eye(n[1]).sum())
    assert grid(np.array([4, 3])) == 9
    with pytest.raises(MemoryError):
        grid(np.array([10**15, 2]))
    assert grid(np.array([-5, 0])) == 0          # NumPy's arange of a negative stop is empty


def square_of(k):
    return np.zeros((k[0], k[0])).sum() + np.eye(k[0], k[1]).sum()


def grid(n, m):
    a = np.zeros((n, m))
    for i in range(n):
        a[i] = i
    return a


def gram_of(x):
    k = int(x[0])
    a = np.ones((k, 2))
    g = a @ a.T
    g[0, 0] = 5
    return g.sum()


def outer_in_one_statement(x):
    return (np.ones(int(x[0]))[:, None] * np.arange(int(x[0]))[None, :]).sum()


def outer_per_row(x, out):
    for i in range(len(x)):
        k = int(x[i])
        a = np.ones(k)
        out[i] = (a[:, None] * a).sum()
    return out


def outer_then_write(x, out):
    out[0] = (np.ones(int(x[0]))[:, None] * np.ones(int(x[1]))).sum()


def gram_after_a_check(x):
    k = math.trunc(x[0])        # checked (NaN, inf): the statements after it are guarded
    a = np.ones((k, 2))
    g = a @ a.T                 # sized by `a`'s size as joined after the guard
    g[0, 0] = 5
    return g.sum()


def test_an_array_sized_after_a_guarded_statement_is_checked():
    """Regression (SIGSEGV): an array made in a statement guarded by an earlier check has a joined size after it,
    which lost its being computed from the data: `a @ a.T` of a (3e5, 2) array was allocated with no check and its
    failed malloc crashed the process. The joined size stays data-sized: NumPy's MemoryError."""
    f = transpile(gram_after_a_check)
    assert f(np.array([3.0])) == gram_after_a_check(np.array([3.0]))
    with pytest.raises(MemoryError):
        f(np.array([3e5]))
    with pytest.raises(ValueError):
        f(np.array([np.nan]))


def test_an_array_whose_sizes_from_the_data_do_not_fit_is_never_allocated():
    """A product, an outer product ... of arrays sized by the data (each size fits, their product does not):
    NumPy's MemoryError at the call, and the statement that would allocate it never runs (`a @ a.T` crashed with
    SIGSEGV). Arguments written before it keep NumPy's contents."""
    f = transpile(gram_of)
    assert f(np.array([3.0])) == gram_of(np.array([3.0]))
    with pytest.raises(MemoryError, match="more than this machine's memory"):
        f(np.array([3e5]))
    g = transpile(outer_in_one_statement)
    assert g(np.array([4])) == outer_in_one_statement(np.array([4]))
    with pytest.raises(MemoryError):
        g(np.array([10**6]))
    h = transpile(outer_per_row)
    np.testing.assert_array_equal(h(np.array([2, 3]), np.zeros(2)), [4, 9])
    out = np.full(3, -1.0)
    with pytest.raises(MemoryError):
        h(np.array([2, 10**6, 3]), out)
    np.testing.assert_array_equal(out, [4, -1, -1])     # NumPy stops at the row that does not fit
    w = transpile(outer_then_write)
    out = np.zeros(1)
    w(np.array([2, 3]), out)
    assert out[0] == 6
    with pytest.raises(MemoryError):
        w(np.array([10**6, 10**6]), out)
    assert out[0] == 6


def test_shapes_of_several_sizes_from_the_data_are_checked_before_allocating():
    """np.zeros((k, k)) for a k read from an array: each k fits, their product does not. NumPy's MemoryError at the
    call, and the kernel allocates nothing (it crashed with SIGSEGV). For Python int arguments (run-time values) the
    sizes are checked in Python before the call, as for shapes made of the arguments' dims."""
    f = transpile(square_of)
    assert f(np.array([3, 2])) == square_of(np.array([3, 2]))
    with pytest.raises(MemoryError, match="more than this machine's memory"):
        f(np.array([10**6, 2]))
    g = transpile(grid)
    np.testing.assert_array_equal(g(3, 2), grid(3, 2))
    with pytest.raises(MemoryError, match=r"Unable to allocate 7\.28 TiB"):
        g(10**6, 10**6)
    assert g.compilations == 1
