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


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
def test_a_zero_trip_loop_returns_its_initial_python_scalar_in_the_carried_dtype(dtype):
    """A run-time loop carries one dtype: `s = 0.0` then `s += x[i]` carries x's (float32 for a float32 x), as
    NumPy's first iteration makes it. Run zero times, NumPy returns the Python float itself; the compiled function
    returns it converted to the carried dtype (np.float32(0.0), and 0.1 rounded to float32): a typed program cannot
    make a value's type depend on the trip count (docs/semantics.md). With the initial value typed, both agree."""
    x = np.arange(1, 6).astype(dtype)
    carried = np.result_type(x.dtype, 0.0)      # the dtype of s after one iteration, NumPy's weak promotion
    f, g, h = transpile(running_sum), transpile(running_sum_from), transpile(running_sum_typed)
    for n in (1, 4):
        assert_same(f(x, n), running_sum(x, n))
        assert_same(g(x, n), running_sum_from(x, n))
    assert type(running_sum(x, 0)) is float and type(f(x, 0)) is carried.type and f(x, 0) == 0.0
    assert type(running_sum_from(x, 0)) is float
    assert type(g(x, 0)) is carried.type and g(x, 0) == carried.type(0.1)
    for n in (0, 3):
        assert_same(h(x, n), running_sum_typed(x, n))


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
