"""The cheap call (api._quick_key, runtime/call.py, runtime/memref.Frame): calls whose arguments are plain C-contiguous
arrays, floats and ints skip binding and flattening and go straight to their specialization's per-call path. Each
test mixes calls that take it with calls that take the full path and checks every answer against NumPy."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from transpiler import transpile

SHIFT = np.array([1.0, 2.0, 3.0])


def assert_same(actual, expected):
    assert type(actual) is type(expected)
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected, strict=True):
            assert_same(a, e)
        return
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        np.testing.assert_allclose(actual, expected, rtol=1e-6)
        return
    assert actual == pytest.approx(expected)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (3, 0), (1, 4), (4, 1), (2, 3), (2, 1, 3), (2, 3, 4),
                                   (1, 2, 1, 3), (2, 0, 3, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.bool_])
def test_every_rank_and_size_one_dim_gives_numpy_s_answer(shape, dtype):
    """The frame's descriptors (sizes, strides of size-1 and empty dims) are built by generated code per rank."""
    def fn(x, y):
        return x * 2 + y, x.sum()

    f = transpile(fn)
    rng = np.random.default_rng(0)
    for _ in range(3):         # the first call takes the full path, the next ones the quick one
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        y = (rng.standard_normal(shape) * 10).astype(dtype)
        assert_same(f(x, y), fn(x, y))
    assert f.compilations == 1


def test_python_scalars_are_run_time_values_and_come_back_as_they_were_passed():
    def fn(x, a, n):
        return x * a + n, a, n

    f = transpile(fn)
    x = np.arange(4.0)
    for a, n in [(2.5, 3), (-1.0, 7), (0.5, -2**40)]:
        result = f(x, a, n)
        assert_same(result, fn(x, a, n))
        assert type(result[1]) is float and type(result[2]) is int
    assert f.compilations == 1
    assert_same(f(x, 2.5, 2**70), fn(x, 2.5, 2**70))     # an int beyond int64: the full path decides


def test_ints_that_specialize_by_value_are_never_taken_from_the_quick_path():
    def fn(x, axis):
        return x.sum(axis=axis)

    f = transpile(fn)
    x = np.arange(12.0).reshape(3, 4)
    for axis in [0, 1, 0, -1, 1, 0]:
        assert_same(f(x, axis), fn(x, axis))


def test_static_shapes_compile_each_shape_on_the_quick_path_too():
    def fn(x):
        return x.reshape(-1)[:2] + x.shape[0]

    f = transpile(fn, static_shapes=True)
    for n in [3, 4, 3, 5]:
        x = np.arange(n * 2.0).reshape(n, 2)
        assert_same(f(x), fn(x))
    assert f.compilations == 3


def test_the_same_array_twice_is_one_input():
    def fn(a, b):
        a += 1
        return b * 2

    f = transpile(fn)
    for _ in range(3):
        x, y = np.arange(3.0), np.arange(3.0)
        np.testing.assert_array_equal(f(x, x), fn(y, y))
        np.testing.assert_array_equal(x, y)
        x, y = np.arange(3.0), np.arange(3.0)
        np.testing.assert_array_equal(f(x, np.arange(3.0)), fn(y, np.arange(3.0)))
        np.testing.assert_array_equal(x, y)


def test_layouts_the_quick_path_does_not_take_still_give_numpy_s_answer():
    def fn(x):
        return x + 1

    f = transpile(fn)
    base = np.arange(24.0)
    unaligned = np.frombuffer(np.zeros(8 * 6 + 1, np.uint8).data, np.float64, 6, 1)
    unaligned[:] = np.arange(6.0)
    for x in [base[:6], base[::2], base.reshape(4, 6).T, unaligned, base[:6], np.float64(2.0), True]:
        assert_same(f(x), fn(x))
    for _ in range(2):     # an unsupported dtype is refused at every call, never taken as a known key
        with pytest.raises(TypeError, match="unsupported array dtype"):
            f(np.asarray(base[:6], np.dtype(">f8")))


def shifted(x):
    return x + SHIFT


def test_a_rebound_module_level_array_is_seen_after_quick_calls():
    global SHIFT
    saved = SHIFT
    try:
        f, x = transpile(shifted), np.ones(3)
        for _ in range(3):
            np.testing.assert_array_equal(f(x), [2.0, 3.0, 4.0])
        SHIFT = np.array([10.0, 10.0, 10.0])
        np.testing.assert_array_equal(f(x), [11.0, 11.0, 11.0])
        SHIFT[1] = 0.0
        np.testing.assert_array_equal(f(x), [11.0, 1.0, 11.0])
    finally:
        SHIFT = saved


def test_evicted_specializations_compile_again():
    f = transpile(lambda x: x * 2, max_specializations=1)
    a, b = np.arange(3.0), np.arange(3, dtype=np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(f(a), a * 2)
        np.testing.assert_array_equal(f(b), b * 2)
    assert f.compilations == 4 and len(f._cache) == 1


def test_threads_calling_one_function_each_get_their_own_frame():
    f = transpile(lambda x, y: x * y + 1.0)

    def wrong_answers(seed):
        rng = np.random.default_rng(seed)
        inputs = [(rng.standard_normal(int(rng.integers(1, 40))), rng.standard_normal(1)) for _ in range(300)]
        return sum(not np.array_equal(f(x, y), x * y + 1.0) for x, y in inputs)

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(wrong_answers, range(4))) == [0, 0, 0, 0]


def test_keyword_and_default_arguments_take_the_full_path():
    def fn(x, scale=2.0):
        return x * scale

    f = transpile(fn)
    x = np.arange(3.0)
    assert_same(f(x), fn(x))
    assert_same(f(x, scale=3.0), fn(x, scale=3.0))
    assert_same(f(x, 4.0), fn(x, 4.0))
    assert_same(f(x), fn(x))


def test_size_guards_compare_in_generated_code_and_raise_numpy_s_error():
    """Guards between argument dims (ShapeEnv.checker: generated comparisons) pass equal sizes and raise NumPy's
    ValueError, with the run-time sizes named, for unequal ones, on the quick path and the full path alike; a guard
    the generated code cannot express (a size of a reshape) still goes through ShapeEnv.check."""
    def axpy(x, y, a):
        return a * x + y

    def flat_plus(x, y):
        return x.reshape(-1) + y

    f, g = transpile(axpy), transpile(flat_plus)
    for n in (2, 3, 17):
        x, y = np.arange(float(n)), np.ones(n)
        for _ in range(2):      # full path, then quick path
            assert_same(f(x, y, 2.5), axpy(x, y, 2.5))
        with pytest.raises(ValueError, match="could not be broadcast") as error:
            f(x, np.ones(n + 1), 2.5)
        assert "at run time" in str(error.value)
        with pytest.raises(ValueError, match="could not be broadcast"):
            axpy(x, np.ones(n + 1), 2.5)
        for _ in range(2):
            assert_same(g(np.ones((n, 2)), np.ones(2 * n)), flat_plus(np.ones((n, 2)), np.ones(2 * n)))
        with pytest.raises(ValueError, match="could not be broadcast"):
            g(np.ones((n, 2)), np.ones(2 * n + 1))
    assert f.compilations == 1 and g.compilations == 1
