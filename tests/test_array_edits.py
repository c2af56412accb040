"""np.append, np.delete, np.insert (stdlib/functions.py, after numpy/lib's own) and NumPy's type queries
(np.result_type, np.can_cast, np.iscomplexobj, np.isrealobj, np.isscalar, np.size) on run-time arrays, compared with
NumPy's own run: values, dtypes, shapes and exceptions. A moving window kept with np.append/np.delete is the program
people write with them."""
import numpy as np
import pytest

from helpers import check, raises_like_numpy
from transpiler import CompileError, transpile


def rng(seed=0):
    return np.random.default_rng(seed)


ARRAYS = {"vector": np.arange(7.0), "matrix_f32": np.arange(12, dtype=np.float32).reshape(3, 4),
          "int8_cube": np.arange(24, dtype=np.int8).reshape(2, 3, 4), "one": np.array([5], dtype=np.int64)}


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("values", [2.5, [1, 2], "same"], ids=["scalar", "list", "same"])
def test_append_flattens_without_axis(name, values):
    x = ARRAYS[name]
    check(lambda a: np.append(a, a if values == "same" else values), x)


@pytest.mark.parametrize("axis", [0, -1])
def test_append_along_an_axis(axis):
    x = ARRAYS["matrix_f32"]
    check(lambda a, b: np.append(a, b, axis=axis), x, x[:, :2] if axis else x[:1])
    raises_like_numpy(lambda a: np.append(a, a[0], axis=axis), x)     # ranks differ: ValueError


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("index", [0, 1, -1, -2])
def test_delete_one_index_known_while_compiling_or_not(name, index):
    x = ARRAYS[name]
    if x.size + index < 0 or index >= x.size:
        return
    check(lambda a: np.delete(a, index), x)
    check(lambda a, k: np.delete(a, k), x, np.int64(index))
    check(lambda a, k: np.delete(a, k, axis=0), x, index) if x.shape[0] > abs(index) else None


@pytest.mark.parametrize("obj", [slice(1, None, 2), slice(None, None, -3), [0, 2, 2], np.array([True, False] * 3 + [True]),
                                 np.array([], dtype=np.int64)], ids=["slice", "neg_slice", "list", "mask", "empty"])
def test_delete_several(obj):
    check(lambda a: np.delete(a, obj), ARRAYS["vector"])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_delete_along_an_axis(axis):
    check(lambda a: np.delete(a, 1, axis=axis), ARRAYS["int8_cube"])
    check(lambda a: np.delete(a, slice(0, 2), axis=axis), ARRAYS["int8_cube"])


@pytest.mark.parametrize("index", [7, -8, 100])
def test_delete_out_of_range_is_numpys_index_error(index):
    raises_like_numpy(lambda a: np.delete(a, index), ARRAYS["vector"])
    raises_like_numpy(lambda a, k: np.delete(a, k), ARRAYS["vector"], np.int64(index))


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("index", [0, 1, -1])
@pytest.mark.parametrize("value", [9.75, -3])
def test_insert_one_value(name, index, value):
    x = ARRAYS[name]
    check(lambda a: np.insert(a, index, value), x)      # cast as setitem casts: 9.75 into int8 is 9
    check(lambda a, k: np.insert(a, k, value), x, np.int64(index))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_insert_rows_along_an_axis(axis):
    x = ARRAYS["int8_cube"]
    check(lambda a: np.insert(a, 1, 7, axis=axis), x)
    for v in (np.arange(4.0), np.arange(3) + 100, np.ones((2, 1, 1))):
        # NumPy moves the values' first axis (after ndmin) to `axis`, then broadcasts: some of these raise
        try:
            np.insert(x, 0, v, axis=axis)
        except ValueError:
            raises_like_numpy(lambda a, v: np.insert(a, 0, v, axis=axis), x, v)
        else:
            check(lambda a, v: np.insert(a, 0, v, axis=axis), x, v)


def test_insert_of_a_python_int_the_dtype_cannot_hold_is_overflow_error():
    raises_like_numpy(lambda a: np.insert(a, 0, 300), ARRAYS["int8_cube"])


def test_insert_at_the_end_and_beyond():
    x = ARRAYS["vector"]
    check(lambda a: np.insert(a, 7, 1.0), x)
    raises_like_numpy(lambda a: np.insert(a, 8, 1.0), x)
    raises_like_numpy(lambda a, k: np.insert(a, k, 1.0), x, np.int64(-8))


def test_insert_at_several_positions_is_refused_with_what_to_write():
    with pytest.raises(CompileError, match="np.insert.. at several positions"):
        transpile(lambda a: np.insert(a, [1, 2], 0.0))(ARRAYS["vector"])


def moving_window(x, width):
    """A window kept with np.append / np.delete, as scripts write it."""
    window = x[:width].copy()
    out = np.empty(x.shape[0] - width + 1)
    out[0] = window.mean()
    for i in range(width, x.shape[0]):
        window = np.append(np.delete(window, 0), x[i])
        out[i - width + 1] = window.mean()
    return out


@pytest.mark.parametrize("n, width", [(30, 4), (5, 5), (12, 1)])
def test_moving_window_by_append_and_delete(n, width):
    check(moving_window, rng(n).random(n), width)


# ---- type queries: answered while compiling, from dtypes (NumPy 2 has no value-based casting) ----------------
def type_queries(x, y, s, z):
    return (np.result_type(x, y), np.result_type(x, s), np.result_type(x, 1.0), np.result_type(y, z, 1j),
            np.can_cast(x, np.float16), np.can_cast(y, np.float64, "same_kind"), np.iscomplexobj(z),
            np.isrealobj(x), np.isscalar(s), np.isscalar(z), np.isscalar(x[0]), np.isscalar(x[:1]), np.size(x),
            np.size(x, -1), x.astype(np.result_type(x, z)))


@pytest.mark.parametrize("dtypes", [(np.float32, np.int64), (np.int8, np.uint8), (np.float16, np.bool_)])
def test_type_queries_on_run_time_values(dtypes):
    x = np.arange(6).astype(dtypes[0]).reshape(2, 3)
    y = np.arange(3).astype(dtypes[1])
    check(type_queries, x, y, 2.5, np.complex64(1 + 2j))
    check(type_queries, x, y, np.float32(2.5), 3)


def test_can_cast_of_a_python_number_is_numpys_type_error():
    raises_like_numpy(lambda x, s: np.can_cast(s, x.dtype), np.arange(3.0), 2.5)
