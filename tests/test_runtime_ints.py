"""Python int arguments are run-time values unless the program needs them while compiling (DESIGN.md, "Types"): a
step count or a scale factor compiles once; a split count or an axis specializes by value; int64 overflow of
run-time Python ints raises OverflowError instead of wrapping."""
import numpy as np
import pytest

from transpiler import transpile

from helpers import assert_same


def scale(x, k):
    return x * k


def halve_steps(x, n):
    for _ in range(n):
        x = x * 0.5
    return x


def pick(x, i, shape):
    return x[i] + np.zeros(shape).sum() + len(shape)


def split_heads(x, n_head):
    return np.split(x, n_head, axis=-1)


def mixed(x, n_head, steps):
    parts = np.split(x, n_head, axis=0)
    total = parts[0]
    for _ in range(steps):
        total = total + 1
    return total


def test_a_scale_factor_and_a_step_count_compile_once():
    x = np.arange(4.0)
    f, g = transpile(scale), transpile(halve_steps)
    for k in range(-3, 20):
        assert_same(f(x, k), scale(x, k))
        assert_same(g(x, k), halve_steps(x, k))
    assert f.compilations == 1 and g.compilations == 1


def test_ints_inside_containers_are_run_time_values_too():
    f = transpile(pick)
    x = np.arange(10.0)
    for i, shape in [(2, (3, 4)), (-1, (1, 5)), (7, (0, 2))]:
        assert_same(f(x, i, shape), pick(x, i, shape))
    assert f.compilations == 1      # the shape is run-time data too: np.zeros sizes its array in the kernel
    with pytest.raises(IndexError):
        f(x, 10, (2, 2))
    with pytest.raises(ValueError, match="negative dimensions"):
        f(x, 0, (-2, 2))


def test_an_int_the_program_needs_while_compiling_specializes():
    f = transpile(split_heads)
    x = np.ones((2, 12))
    for n in (2, 3, 4, 3):
        assert_same(f(x, n), split_heads(x, n))
    assert f.compilations == 3
    g = transpile(mixed)            # one int needed at compile time: all of this signature's ints specialize
    assert_same(g(np.ones((4, 2)), 2, 3), mixed(np.ones((4, 2)), 2, 3))


def test_int64_overflow_raises_instead_of_wrapping():
    def square_plus(x, n):
        return x + n * n
    f = transpile(square_plus)
    assert_same(f(np.zeros(1), 3_000_000_000), square_plus(np.zeros(1), 3_000_000_000))
    with pytest.raises(OverflowError, match="int64"):
        f(np.zeros(1), 10**10)

    def shifted(n, k):
        return (n << k) - (-n) // -1
    g = transpile(shifted)
    assert g(3, 4) == shifted(3, 4)
    with pytest.raises(OverflowError):
        g(3, 62)
    big = 2**70              # beyond int64: specializes by value, computed as Python does
    assert transpile(square_plus)(np.zeros(1), big) == square_plus(np.zeros(1), big)


def test_loop_indices_and_dims_are_not_checked():
    def triangle(x):
        total = 0
        for i in range(len(x)):
            for j in range(i):
                total += i * j + len(x)
        return total
    mlir = transpile(triangle).emit(np.ones(5), stage="typed")
    # i * j is not checked (loop indices); the sum with that product is, and so is `total +=`
    assert mlir.count("int_overflows") == 2
    assert transpile(triangle)(np.ones(30)) == triangle(np.ones(30))


def test_a_loop_index_between_large_bounds_is_checked():
    """Loop indices were exempt from the overflow check whatever their bounds; with int arguments as run-time values
    `range(n, m)` can start at 2**40, and i * i wrapped silently (found in review)."""
    def squares(x, n, m):
        s = 0
        for i in range(n, m):
            s = s + i * i
        return s
    f = transpile(squares)
    assert f(np.zeros(1), 0, 5) == squares(None, 0, 5)
    with pytest.raises(OverflowError, match="int64"):
        f(np.zeros(1), 2**40, 2**40 + 3)


def diagonals(x, k):
    return np.triu(x, k), np.tril(x[None], -k), np.tri(3, x.shape[1], k), np.eye(x.shape[0], 6, k, dtype=np.int8)


def test_a_diagonal_offset_compiles_once():
    """k of np.triu / tril / tri / eye shapes nothing: a run-time value (it specialized by value before)."""
    f = transpile(diagonals)
    x = np.arange(20.0).reshape(4, 5)
    for k in (-9, -2, 0, 1, 4, 12):
        assert_same(f(x, k), diagonals(x, k))
    assert f.compilations == 1


def test_a_float_diagonal_offset_is_refused():
    """NumPy's tri builds its mask from np.arange(-k, M - k, dtype=int): for a float k a mask of no meaning (np.triu
    of a 4x4 array with k=1.5 is all zeros); the compiler refuses it rather than guess (it truncated k before)."""
    from transpiler import CompileError
    with pytest.raises(CompileError, match="k must be an integer"):
        transpile(lambda x: np.triu(x, 1.5))(np.ones((4, 4)))
    with pytest.raises(CompileError, match="k must be an integer"):
        transpile(lambda x, k: np.tril(x, k))(np.ones((4, 4)), -1.5)


def test_a_diagonal_offset_of_a_narrow_numpy_dtype_is_refused():
    """NumPy computes k - 1, -k and M - k in k's own dtype, where they wrap or raise: np.triu(x, np.uint8(200)) is x
    itself, np.tri(3, k=np.uint64(3)) an OverflowError, np.eye(3, k=np.uint64(2**64 - 1)) all zeros. The compiler
    took k's value as an exact int (its triangles differed from NumPy's): such a k is refused; a Python int or an
    np.int64 is compiled."""
    from transpiler import CompileError
    x = np.arange(12.0).reshape(3, 4)
    for k in (np.uint8(200), np.int8(-128), np.uint64(3), np.int32(2), np.bool_(True)):
        with pytest.raises(CompileError, match="dtype"):
            transpile(lambda x, k: np.triu(x, k))(x, k)
        with pytest.raises(CompileError, match="dtype"):
            transpile(lambda k: np.tri(3, 4, k))(k)
        with pytest.raises(CompileError, match="dtype"):
            transpile(lambda k: np.eye(3, k=k))(k)
    with pytest.raises(CompileError, match="dtype"):
        transpile(lambda x: np.tril(x, np.uint8(200)))(x)
    f = transpile(diagonals)
    for k in (np.int64(-2), np.int64(3), 2):
        assert_same(f(x, k), diagonals(x, k))


_NEAR_INT64_LIMITS = [-2**64, -2**63 - 1, -2**63, -2**63 + 1, -2**63 + 2, -2**63 + 3, -2**63 + 6, -2**63 + 9,
                      2**62, 2**63 - 1, 2**63, 2**63 + 1, 2**63 + 2, 2**64]


def _numpy_mask_is_exact(k, columns):
    """Whether NumPy's np.tri(N, columns, k) mask, np.arange(-k, columns - k) in int64, neither raises nor wraps."""
    return columns == 0 or -2**63 <= -k and -k + columns - 1 <= 2**63 - 1


def _outcome(fn, *args):
    with np.errstate(all="ignore"):
        try:
            return fn(*args)
        except OverflowError as e:
            return e


def _same_or_refused(fn, compiled, *args, columns, k):
    """The compiled call gives NumPy's result or NumPy's OverflowError; where NumPy's mask wraps around int64 (a mask
    of no meaning), an OverflowError that says it is not supported."""
    expected = _outcome(fn, *args)
    try:
        got = compiled(*args)
    except OverflowError as e:
        if isinstance(expected, OverflowError):
            assert str(expected) in str(e), (str(e), str(expected))
        else:
            assert not _numpy_mask_is_exact(k, columns) and "not supported" in str(e), (k, columns, str(e))
        return
    assert not isinstance(expected, OverflowError), (k, columns, "NumPy raised", expected)
    assert_same(got, expected)


@pytest.mark.parametrize("columns", [0, 1, 2, 5])
def test_a_diagonal_offset_near_the_int64_limits_is_numpys(columns):
    """NumPy's tri (and triu, tril through it) builds its mask from np.arange(-k, M - k) in int64: for a Python int k
    past the limits, np.triu(x, -2**63) and np.tri(3, 4, 2**63 + 1) are OverflowErrors, while np.eye takes any int
    (all zeros past the corners). The compiler emitted k as an i64 attribute (an internal error past int64) or
    compared a run-time k without NumPy's overflow (np.triu(x, -2**63) was x). Where NumPy's mask wraps around int64
    without raising (np.tril(x, -2**63 + 2) with 4 columns), the compiler refuses the call."""
    x = np.arange(3.0 * columns).reshape(3, columns) + 1
    runtime = {"triu": lambda x, k: np.triu(x, k), "tril": lambda x, k: np.tril(x, k),
               "tri": lambda x, k: np.tri(3, x.shape[1], k, dtype=np.int8)}
    compiled = {name: transpile(fn) for name, fn in runtime.items()}
    for k in _NEAR_INT64_LIMITS:
        constant = {"triu": lambda x: np.triu(x, k), "tril": lambda x: np.tril(x, k),
                    "tri": lambda x: np.tri(3, columns, k)}
        for name in runtime:
            shifted = k - 1 if name == "triu" else k
            _same_or_refused(constant[name], transpile(constant[name]), x, columns=columns, k=shifted)
            if -2**63 <= k < 2**63:
                _same_or_refused(runtime[name], compiled[name], x, k, columns=columns, k=shifted)
        assert_same(transpile(lambda: np.eye(3, columns, k))(), np.eye(3, columns, k))
        if -2**63 <= k < 2**63:
            assert_same(transpile(lambda n, k: np.eye(3, n, k))(columns, k), np.eye(3, columns, k))
    assert all(f.compilations <= 2 for f in compiled.values())


def test_an_int64_diagonal_offset_near_the_lower_limit_is_refused():
    """NumPy computes -k and M - k of an np.int64 k in int64, where they wrap (with a RuntimeWarning) and the mask
    means nothing (np.tri(3, 4, np.int64(-2**63)) is all ones): refused with an OverflowError; an np.int64 k whose
    arithmetic does not wrap gives NumPy's result."""
    x = np.arange(12.0).reshape(3, 4)
    f = transpile(lambda x, k: np.tril(x, k))
    for k in (np.int64(-2**63), np.int64(-2**63 + 4)):
        with pytest.raises(OverflowError, match="np.int64 k this close"):
            f(x, k)
    for k in (np.int64(-2**63 + 5), np.int64(-5), np.int64(2**63 - 1)):
        assert_same(f(x, k), np.tril(x, k))


def grids(w, h):
    x, y = np.meshgrid(np.linspace(-2.0, 0.5, w), np.linspace(-1.25, 1.25, h))
    return x + 1j * y, np.arange(w) + np.zeros(w), np.arange(h)[:, None] * np.ones(w)


def test_arrays_sized_by_one_int_argument_share_its_size():
    """np.arange(n), np.zeros(n) and np.linspace(a, b, n) of an int argument n have one size, n's, checked before
    the call: mandelbrot's meshgrid grids got sizes of their own (arange's size was checked in the kernel, and each
    grid made after that check had its own), so `X + 1j * Y` was a broadcast decided at run time (mandelbrot's
    masked kernel 35-46 -> 73-99 ms)."""
    typed = transpile(grids).emit(5, 3, stage="typed")
    signature = next(line for line in typed.splitlines() if line.startswith("func grids("))
    assert "-> (complex128[max(int(h), 0),max(int(w), 0)], float64[max(int(w), 0)], " \
           "float64[max(int(h), 0),max(int(w), 0)]" in signature, signature
    for w, h in ((5, 3), (1, 4), (0, 2), (3, 0)):
        for got, want in zip(transpile(grids)(w, h), grids(w, h)):
            assert_same(got, want)


def test_arange_of_an_int_argument_past_memory_is_numpys_error():
    """Checked before the call, as np.zeros(n) is: NumPy's MemoryError, and its ValueError past the largest size."""
    f = transpile(lambda n: np.arange(n) * 2.0)
    assert_same(f(-3), np.arange(-3) * 2.0)
    for call in (f, np.arange):
        with pytest.raises(MemoryError, match=r"Unable to allocate 72.8 TiB .* shape \(10000000000000,\)"):
            call(10**13)
        with pytest.raises(ValueError, match="array is too big"):
            call(2**62)
