"""A Python number meeting a run-time value at a join (the two paths of a run-time `if`, a loop's start and body).

NumPy keeps each path's own type; the typed program gives the joined value the run-time value's dtype. That is
NumPy's value only where the number keeps its value in that dtype: a float meeting an int (`v = 0.5` on one path,
`v = x[0]` of an int32 x on the other) was 0 on the path that kept 0.5, a silent wrong answer; such joins are now
refused. A number of the same kind takes the dtype inside the function (the documented known difference,
semantics.md); returned, it is the Python number itself where NumPy's is (the join yields which path it took)."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError


def float_returned_beside_an_int(x):
    if x.sum() > 0:
        return x[0]
    return 0.5


def float_assigned_in_a_branch(x):
    v = x[0]
    if x.sum() > 0:
        v = 0.1
    return v * 2


def float_in_a_conditional_expression(x):
    v = 0.5 if x.sum() > 0 else x[0]
    return v


def float_assigned_in_a_loop(x):
    v = x[0]
    for i in range(len(x)):
        v = 0.5
    return v


def float_assigned_in_a_loops_branch(x):
    v = x[0]
    for i in range(len(x)):
        if x[i] > 2:
            v = 0.5
    return v


def float_before_a_while(x):
    t = 0.1
    i = 0
    while i < len(x) and x[i] > 0:
        t = x[i]
        i += 1
    return t


def float_beside_a_run_time_python_int(x):
    v = 0.5
    if x.sum() > 0:
        v = len(x)
    return v


def huge_float_beside_a_float16(x):
    v = 1e10
    if x.sum() > 0:
        v = x[0]
    return v


def tiny_float_beside_a_float32(x):
    v = 1e-50
    if x.sum() > 0:
        v = x[0]
    return v


def big_int_beside_a_float64(x):
    v = 2**62 + 1
    if x.sum() > 0:
        v = x[0]
    return v


def float_argument_before_a_loop(x, t):
    v = t
    for i in range(len(x)):
        v = x[i]
    return v


INT32 = np.array([1, 2, -3, 4, 9, 6, 7], np.int32)
REFUSED = [
    (float_returned_beside_an_int, (-INT32,)),         # returned np.int32(0) where NumPy returns 0.5
    (float_assigned_in_a_branch, (-INT32,)),           # np.int32(0), NumPy 0.2
    (float_in_a_conditional_expression, (INT32,)),     # np.int32(0), NumPy 0.5
    (float_assigned_in_a_loop, (INT32,)),              # np.int32(0) after the loop ran, NumPy 0.5
    (float_assigned_in_a_loops_branch, (INT32,)),      # np.int32(0), NumPy 0.5
    (float_before_a_while, (-INT32,)),                 # np.int32(0) for a loop that never ran, NumPy 0.1
    (float_beside_a_run_time_python_int, (-INT32,)),   # 0 (a Python int), NumPy 0.5
    (huge_float_beside_a_float16, (-INT32.astype(np.float16),)),   # np.float16(inf), NumPy 1e10
    (tiny_float_beside_a_float32, (-INT32.astype(np.float32),)),   # np.float32(0.0), NumPy 1e-50
    (big_int_beside_a_float64, (-INT32.astype(np.float64),)),      # 4.611686018427388e+18, NumPy 2**62 + 1
    (float_argument_before_a_loop, (INT32[:0], 0.5)),  # a 0-d int32 array 0, NumPy 0.5
]


@pytest.mark.parametrize("fn, args", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_a_python_number_the_joined_dtype_cannot_hold_is_refused(fn, args):
    with np.errstate(all="ignore"):
        fn(*args)                     # NumPy runs it
    with pytest.raises(CompileError, match="Python (number|float)") as info:
        transpile(fn)(*args)
    assert isinstance(info.value, TypeError)


def running_max(x):
    best = -np.inf
    for i in range(len(x)):
        if x[i] > best:
            best = x[i]
    return best


def first_or_zero(x):
    if x.sum() > 0:
        return x[0]
    return 0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_python_number_the_dtype_holds_still_joins(dtype):
    """-inf and 0 keep their values in every float dtype: compiled as before, NumPy's values and types (where the
    loop never assigns it, the Python number itself: semantics.md). The running maximum from -inf of a float32 or
    float16 array was refused: the loop's first round joined the Python float with the array's dtype."""
    x = INT32.astype(dtype)
    f, g = transpile(running_max), transpile(first_or_zero)
    for a in (x, -x, x[:0], np.full(3, -np.inf, dtype), np.array([np.nan, 2, np.nan], dtype)):
        assert f(a) == running_max(a) and type(f(a)) is type(running_max(a))
    for a in (x, -x):
        assert g(a) == first_or_zero(a) and type(g(a)) is type(first_or_zero(a))


def running_min_with_index(x, n):
    low, at = np.inf, -1
    for i in range(n[0]):
        if x[i] < low:
            low = x[i]
            at = i
    return low, at


def best_from_zero(x):
    best = 0
    k = 0
    while k < x.shape[0]:
        if x[k] > best:
            best = x[k]
        k += 1
    return best


def sum_from_a_python_float(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s += x[i]
    return s


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint8, np.int64, np.float64])
def test_a_loop_carried_python_number_the_dtype_holds_exactly_joins(dtype):
    """A name that starts as a Python number the loop's dtype holds exactly (inf, 0, 0.0) and that a branch in the
    body sets to an element: joined in the loop's first round (it was refused), the values NumPy gives."""
    rng = np.random.default_rng(0)
    for n in (0, 1, 5, 9):
        x = (rng.standard_normal(9) * 50).astype(dtype)
        for fn, args in ((best_from_zero, (x[:n],)), (sum_from_a_python_float, (x[:n],)),
                         (running_min_with_index, (x, np.array([n])))):
            if fn is running_min_with_index and dtype not in (np.float32, np.float16, np.float64):
                continue           # (inf: no int holds it, refused below)
            ours, numpys = transpile(fn)(*args), fn(*args)
            assert np.array_equal(ours, numpys, equal_nan=True), (fn.__name__, ours, numpys)
            for o, e in zip(ours if isinstance(ours, tuple) else (ours,), numpys if isinstance(numpys, tuple)
                            else (numpys,)):
                assert type(o) is type(e)     # (where no round assigned it: the Python number, as NumPy's)


def running_max_from_a_tenth(x, n):
    best = 0.1
    for i in range(n[0]):
        if x[i] > best:
            best = x[i]
    return best


def running_max_from_an_argument(x, t):
    best = t
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
    return best


def test_a_loop_carried_python_number_the_dtype_does_not_hold_exactly_is_refused():
    """0.1 as a float32 is another number, -inf no int8 holds, and a Python float argument (known only at run time)
    may be either: each refused, never rounded in silence."""
    x = np.array([-1.0, 0.05, -3.0], np.float32)
    for fn, args, match in ((running_max_from_a_tenth, (x, np.array([3])), "not exactly a float32"),
                            (running_max, (x.astype(np.int8),), "cannot hold it"),
                            (running_max_from_an_argument, (x, 0.5), "float32")):
        fn(*args)
        with pytest.raises(CompileError, match=match) as info:
            transpile(fn)(*args)
        assert isinstance(info.value, TypeError)


def test_a_loop_carried_python_float_argument_is_a_numpy_scalar():
    """`v = t` of a Python float argument, then `v = x[i]` of a float32 x: the carried value is NumPy's scalar, as
    x[i] is (it was a 0-d array, also where the loop ran)."""
    f = transpile(float_argument_before_a_loop)
    x = INT32.astype(np.float32)
    result = f(x, 0.5)
    assert type(result) is np.float32 and result == 7
    assert type(f(x[:0], 0.5)) is np.float32 and f(x[:0], 0.5) == 0.5
