"""Where a compiled function's result type or error differs from NumPy's by design, pinned with the reason
(docs/semantics.md); and error fidelity on the edges of the library functions (empty and size-1 axes, extreme
Python ints), against NumPy."""
import numpy as np
import pytest

from helpers import assert_same
from transpiler import transpile


def running_sum(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


def running_sum_from(x, n):
    s = 0.1
    for i in range(n):
        s = s + x[i]
    return s


def running_sum_typed(x, n):
    s = x.dtype.type(0)
    for i in range(n):
        s += x[i]
    return s


def running_max_from_minus_inf(x, n):
    m = -np.inf
    for i in range(n):
        if x[i] > m:
            m = x[i]
    return m, m


def running_max_from_three(x, n):
    m = 3
    for i in range(n):
        if x[i] > m:
            m = x[i]
    return m


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
def test_a_zero_trip_loop_returns_its_initial_python_scalar(dtype):
    """A run-time loop carries one dtype: `s = 0.0` then `s += x[i]` carries x's (float32 for a float32 x), as
    NumPy's first iteration makes it. Where no round assigned it (zero trips, or a branch never taken), NumPy's is
    still the Python number itself: the loop carries a flag saying so, and the call returns that number (it returned
    np.float32(0.0), and 0.1 rounded to float32: Control._carry_kept). With the initial value typed, both agree."""
    x = np.arange(1, 6).astype(dtype)
    f, g, h = transpile(running_sum), transpile(running_sum_from), transpile(running_sum_typed)
    for n in (0, 1, 4):
        assert_same(f(x, n), running_sum(x, n))
        assert_same(g(x, n), running_sum_from(x, n))
    assert type(f(x, 0)) is float and f(x, 0) == 0.0 and type(g(x, 0)) is float and g(x, 0) == 0.1
    for n in (0, 3):
        assert_same(h(x, n), running_sum_typed(x, n))
    for fn in (running_max_from_minus_inf, running_max_from_three) if dtype != "int32" else \
            (running_max_from_three,):
        for n in (0, 2, 5):         # (from 3: assigned only from the fourth element on)
            assert_same(transpile(fn)(x, n), fn(x, n))


@pytest.mark.parametrize("fn", [
    lambda x: np.zeros((2**62, 4)),                 # MLIR's strided layout overflowed: the process aborted
    lambda x: np.empty((2**31, 2**31, 4)),
    lambda x: np.ones((2**61, 2), dtype=np.float32) + 1,
    lambda x: np.zeros(2**63),                      # an internal compiler error (the MLIR type)
    lambda x: np.full((2, 2**64), 1.0),
    lambda x: x.reshape(2**63, -1),
    lambda x: np.tile(x, 2**63),                    # an internal compiler error (a slice past ssize_t)
    lambda x: np.repeat(x, 2**63),
    lambda x: np.tile(x, -2**63 - 1),
])
def test_static_sizes_past_intp_are_numpys_errors(fn):
    """A shape known while compiling that no address space holds is NumPy's error (ValueError "Maximum allowed
    dimension exceeded" or "array is too big ...", OverflowError for a count past int64), raised while compiling;
    it aborted the whole process (an MLIR assertion) or was an internal compiler error."""
    x = np.ones(3)
    with pytest.raises(Exception) as expected:
        fn(x)
    with pytest.raises(type(expected.value), match=str(expected.value)[:30].replace("(", r"\(").replace("*", r"\*")):
        transpile(fn)(x)


def test_diag_of_a_vector_with_a_run_time_offset():
    """np.diag(v, k) of a 1-D v with k an int argument: an internal compiler error (its reading by row or by column
    was one value of shape (n, 1) or (1, n) chosen by k's sign at run time, a shape the compiler cannot join)."""
    f = transpile(lambda v, k: np.diag(v, k))
    for v in (np.arange(1.0, 4.0), np.arange(5, dtype=np.int8), np.zeros(0), np.ones(1, dtype=bool)):
        for k in (-4, -1, 0, 2, 5):
            assert_same(f(v, k), np.diag(v, k))
    assert f.compilations <= 4


def test_a_negative_run_time_linspace_count_is_numpys_value_error():
    """np.linspace(a, b, num) with a negative run-time num is NumPy's ValueError; it returned an empty array."""
    f = transpile(lambda x, num: np.linspace(0.0, x[0], num))
    x = np.array([2.0])
    for num in (0, 1, 4):
        assert_same(f(x, num), np.linspace(0.0, x[0], num))
    with pytest.raises(ValueError, match="must be non-negative"):
        np.linspace(0.0, x[0], -1)
    with pytest.raises(ValueError, match="must be non-negative"):
        f(x, -1)


def _offset_calls(name):
    """(the call with a run-time offset, a maker of the call with a constant one)."""
    def constant(k):
        def call(x):
            return np.diagonal(x, k) if name == "diagonal" else np.trace(x, k) if name == "trace" else np.diag(x, k)
        return call

    def fn(x, k):
        return np.diagonal(x, k) if name == "diagonal" else np.trace(x, k) if name == "trace" else np.diag(x, k)
    return fn, constant


_OFFSET_CALLS = {name: _offset_calls(name) for name in ("diagonal", "trace", "diag")}


@pytest.mark.parametrize("name", list(_OFFSET_CALLS))
def test_a_diagonal_offset_past_a_c_int_is_numpys_overflow_error(name):
    """NumPy takes np.diagonal's (and np.trace's, np.diag's of a matrix) offset as a C int: past it an
    OverflowError; the compiled function returned an empty diagonal (or failed inside the compiler past int64). At
    -2**31 NumPy's negation wraps and its diagonal means nothing: refused with an OverflowError too."""
    x = np.arange(6.0).reshape(2, 3)
    fn, constant = _OFFSET_CALLS[name]
    compiled = transpile(fn)
    for k in (2**31 - 1, -2**31 + 1, 3, -1, 0):
        assert_same(compiled(x, k), fn(x, k))
        assert_same(transpile(constant(k))(x), fn(x, k))
    for k in (2**31, -2**31 - 1, 2**40, -2**63, 2**63 - 1, 2**63, -2**63 - 1):
        with pytest.raises(OverflowError):
            fn(x, k)
        with pytest.raises(OverflowError):
            transpile(constant(k))(x)
        if -2**63 <= k < 2**63:
            with pytest.raises(OverflowError):
                compiled(x, k)
    for call in (lambda: transpile(constant(-2**31))(x), lambda: compiled(x, -2**31)):
        with pytest.raises(OverflowError, match="not supported"):
            call()


def test_an_average_without_weights_to_an_empty_result_is_numpys_zero_division():
    """np.average without weights scales by a.size / avg.size, a Python division: an empty result (np.average of
    a (3, 0) array along axis 0) is NumPy's ZeroDivisionError; it returned the empty array."""
    f = transpile(lambda x: np.average(x, axis=0))
    g = transpile(lambda x: np.average(x, axis=-1, keepdims=True, returned=True))
    for shape in [(3, 0), (0, 0), (0, 3), (2, 3), (1, 1)]:
        x = np.ones(shape)
        for fn, compiled in ((lambda x: np.average(x, axis=0), f),
                             (lambda x: np.average(x, axis=-1, keepdims=True, returned=True), g)):
            with np.errstate(all="ignore"):
                try:
                    expected = fn(x)
                except ZeroDivisionError:
                    with pytest.raises(ZeroDivisionError, match="division by zero"):
                        compiled(x)
                    continue
            assert_same(compiled(x), expected)


def test_tensordot_of_run_time_sizes_that_differ_is_numpys_value_error():
    """np.tensordot checks that the summed axes have one length; with run-time sizes the compiled function skipped
    the check, and a (3, 0) array with itself along axes=1 (0 against 3) returned an empty array. (Where the
    reshape that follows does not fit either, its size check comes first: a ValueError that says so.)"""
    f = transpile(lambda a, b: np.tensordot(a, b, axes=1))
    g = transpile(lambda a: np.tensordot(a, a, axes=1))
    for sa, sb in [((3, 0), (3, 0)), ((2, 3), (4, 3)), ((2, 3), (3, 4)), ((0, 2), (2, 0))]:
        a, b = np.ones(sa), np.arange(np.prod(sb), dtype=float).reshape(sb)
        for fn, compiled, args in ((lambda a, b: np.tensordot(a, b, axes=1), f, (a, b)),
                                   (lambda a: np.tensordot(a, a, axes=1), g, (a,))):
            try:
                expected = fn(*args)
            except ValueError:
                with pytest.raises(ValueError, match="shape-mismatch for sum|cannot reshape"):
                    compiled(*args)
                continue
            assert_same(compiled(*args), expected)


def test_round_to_many_decimals_is_numpys_bit_for_bit():
    """NumPy rounds with rint(x * f) / f, f its power_of_ten: 1e9 times 10 repeatedly, each product rounded, which
    is not 10.0 ** d for 241 of the d below 320 (1e23); the compiled np.round(x, 23) differed in the last bit from
    NumPy's for about half of the values. Past the doubles f is inf (NumPy gives nan; Python's ** raised
    OverflowError while compiling); decimals past a C int is NumPy's OverflowError."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(500) * 10.0 ** rng.integers(-30, 5, 500)
    for d in (9, 23, 25, 30, 40, 300, 308, 309, 400, -23, -300, -400, 2**31 - 1, -2**31 + 1):
        with np.errstate(all="ignore"):
            expected = np.round(x, d)
            got = transpile(lambda x: np.round(x, d))(x)
        np.testing.assert_array_equal(got, expected)
    for d in (2**31, -2**31 - 1, 2**63):
        with pytest.raises(OverflowError):
            np.round(x, d)
        with pytest.raises(OverflowError):
            transpile(lambda x: np.round(x, d))(x)


def round_by(x, decimals):
    return np.round(x, decimals)


def test_round_to_run_time_decimals_is_numpys_bit_for_bit():
    """decimals known only at run time took 10.0 ** d: Python's OverflowError past 308 (NumPy's f is inf: nan), and
    another last bit than NumPy's power_of_ten from 1e23 on; past a C int NumPy's OverflowError."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(500) * 10.0 ** rng.integers(-30, 5, 500)
    compiled = transpile(round_by)
    for d in (0, 9, 23, 25, 40, 308, 309, 400, -23, -309, 2**31 - 1, -2**31 + 1):
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(compiled(x, d), np.round(x, d))
    for d in (2**31, -2**31 - 1):
        with pytest.raises(OverflowError):
            np.round(x, d)
        with pytest.raises(OverflowError):
            compiled(x, d)


def test_a_negative_run_time_pad_width_is_numpys_value_error():
    """np.pad checks its widths are not negative; a run-time width was not checked, and np.pad(x, ((k, 0), (0, 0)))
    of a (1, 1) array with k = -1 returned an empty array (constant and edge modes)."""
    for mode in ("constant", "edge"):
        f = transpile(lambda x, k: np.pad(x, ((k, 0), (0, 0)), mode=mode))
        x = np.ones((1, 1), np.int16)
        assert_same(f(x, 2), np.pad(x, ((2, 0), (0, 0)), mode=mode))
        for k in (-1, -3):
            with pytest.raises(ValueError, match="negative values"):
                np.pad(x, ((k, 0), (0, 0)), mode=mode)
            with pytest.raises(ValueError, match="negative values"):
                f(x, k)


def _diagonal_of(x):
    return np.diagonal(x)


def _roll_along(x, s):
    return np.roll(x, s, axis=5)


def _trace_on_one_axis(x):
    return np.trace(x, axis1=0, axis2=0)


def _pad_mode(x):
    return np.pad(x, 1, mode="nope")


def _mean_axis(x):
    return np.mean(x, axis=(0, 0))


def _diff_n(x):
    return np.diff(x, n=-1)


LIBRARY_MISUSES = [(_diagonal_of, (np.ones(3),)), (_roll_along, (np.ones(3), 1)),
                   (_trace_on_one_axis, (np.ones((2, 2)),)), (_pad_mode, (np.ones(3),)), (_mean_axis, (np.ones((2, 3)),)),
                   (_diff_n, (np.ones(4),))]


@pytest.mark.parametrize("fn, args", LIBRARY_MISUSES, ids=[f.__name__ for f, _ in LIBRARY_MISUSES])
def test_a_library_functions_error_points_at_the_users_call(fn, args):
    """NumPy's error for a bad argument of a library function written in stdlib/ names the user's call (file, line,
    column, source line), with the library's line as context after it; it named the library's line (only np.repeat's
    count per element was checked before entering its source)."""
    with pytest.raises(Exception) as expected:
        fn(*args)
    with pytest.raises(type(expected.value)) as got:
        transpile(fn)(*args)
    error = got.value
    assert error.message == str(expected.value)
    assert error.filename == __file__ and error.lineno == fn.__code__.co_firstlineno + 1, (error.filename, error.lineno)
    assert "raised in the library's code at" in str(error) and "stdlib" in error.context


def _weighted(x, w):
    return np.average(x, weights=w)


def _weighted_twice(x, v, w):
    a = np.average(x, weights=v)
    return a + np.average(x, weights=w)       # the same signature again: np.average compiled once and called


def test_a_library_functions_run_time_error_names_the_users_line():
    """A check the kernel makes inside a library function (np.average's weights summing to zero) names the user's
    line that called it, not the library's, also where the library function is compiled once and called."""
    x, w = np.ones(3), np.array([1.0, -1.0, 0.0])
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero") as got:
        transpile(_weighted)(x, w)
    assert f"required by {__file__}:{_weighted.__code__.co_firstlineno + 1}:" in str(got.value)
    for v, w, line in ((w, x, 1), (x, w, 2)):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero") as got:
            transpile(_weighted_twice)(x, v, w)
        assert f"required by {__file__}:{_weighted_twice.__code__.co_firstlineno + line}:" in str(got.value)


REDUCTIONS_WITH_BAD_AXES = [lambda x: np.sum(x, axis=(0, 0)), lambda x: x.max(axis=(1, -1)),
                            lambda x: np.any(x, axis=(0, -2), keepdims=True), lambda x: np.mean(x, axis=(1, 1)),
                            lambda x: np.argmax(x, axis=(0, 1)), lambda x: np.argmin(x, axis=(0,)),
                            lambda x: x.argmax(axis=(1,)), lambda x: np.argmax(x, axis=1.0)]


@pytest.mark.parametrize("index", range(len(REDUCTIONS_WITH_BAD_AXES)))
def test_reductions_with_repeated_or_tuple_axes_raise_as_numpy(index):
    """A repeated axis of a reduction is NumPy's "duplicate value in 'axis'" (it was "repeated axis", the message of
    np.expand_dims); a tuple axis of argmax/argmin is NumPy's TypeError (argmin(axis=(0,)) returned a result, and
    argmax(axis=(0, 1)) was an internal error)."""
    fn = REDUCTIONS_WITH_BAD_AXES[index]
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(Exception) as expected:
        fn(x)
    with pytest.raises(type(expected.value)) as got:
        transpile(fn)(x)
    assert got.value.message == str(expected.value)


def _rolls(x, s):
    return np.roll(x, s), np.roll(x, s, axis=-1), np.roll(x, (s, 3), axis=(0, 0)), np.roll(x, (s, -s), axis=(0, 1))


@pytest.mark.parametrize("s", [2**70, -2**80, 2**63, -(10**40) - 7])
def test_roll_by_a_python_int_past_int64_is_numpys(s):
    """NumPy's roll reduces its shifts as Python ints: one past int64 (a constant, or an int argument, which then
    specializes by value) rolls by its remainder; it was an OverflowError whenever the size was a run-time one."""
    rolls, along_rows = transpile(_rolls), transpile(lambda x: np.roll(x, s, axis=0))
    for shape in [(5, 3), (0, 3), (2, 2)]:    # (one kernel for all: sizes known only at run time)
        x = np.arange(float(np.prod(shape))).reshape(shape)
        assert_same(rolls(x, s), _rolls(x, s))
        assert_same(along_rows(x), np.roll(x, s, axis=0))
