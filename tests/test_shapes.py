"""Shape operations, slicing and gathers against NumPy, with run-time and static dims."""
import numpy as np
import pytest

from helpers import PARTS, check, in_part, some_slow
from transpiler import CompileError, transpile

RNG_SEED = 11
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def arr(shape, dtype=np.float32):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (RNG.standard_normal(shape) * 3).astype(dt)
    if dt.kind == "b":
        return RNG.random(shape) < 0.5
    return RNG.integers(-50, 50, size=shape).astype(dt)


TRANSPOSES_AND_RESHAPES = [
    lambda x: x.T, lambda x: np.transpose(x, (1, 0, 2)), lambda x: x.transpose(2, 0, 1),
    lambda x: np.swapaxes(x, 0, -1), lambda x: x.swapaxes(1, 2), lambda x: x.reshape(-1),
    lambda x: x.reshape(6, 4), lambda x: x.reshape((4, -1)), lambda x: np.reshape(x, (2, 2, 6)),
    lambda x: x.reshape(x.shape[0], -1), lambda x: np.expand_dims(x, 1), lambda x: np.expand_dims(x, -1),
    lambda x: np.expand_dims(x, (0, 2)), lambda x: x[:, None], lambda x: x[None, ..., None],
    lambda x: x[:, None].squeeze(1), lambda x: np.squeeze(x[None]), lambda x: x.ravel(),
    lambda x: x.T @ np.ones(2, x.dtype) if x.dtype != bool else x.T]


# A view or reshape moves elements whatever their dtype: the default suite runs every function on float32 and on one
# of int64 and bool in turn (the k-th function on int64 if k is even: the last one, a product, too), the slow suite
# on the other
@pytest.mark.parametrize("static", [False, True])
@pytest.mark.parametrize("dtype, part", [(np.float32, "default"), (np.int64, "default"), (bool, "default"),
                                         pytest.param(np.int64, "slow", marks=pytest.mark.slow),
                                         pytest.param(bool, "slow", marks=pytest.mark.slow)])
def test_transposes_and_reshapes(dtype, static, part):
    x = arr((2, 3, 4), dtype)
    for k, fn in enumerate(TRANSPOSES_AND_RESHAPES):
        if dtype is np.float32 or (k % 2 == (0 if dtype is np.int64 else 1)) == (part == "default"):
            check(fn, x) if not static else _check_static(fn, x)


def _check_static(fn, *args):
    expected = fn(*args)
    actual = transpile(fn, static_shapes=True)(*args)
    np.testing.assert_array_equal(actual, expected)
    assert actual.dtype == expected.dtype


def test_reshape_errors():
    with pytest.raises(ValueError):
        transpile(lambda x: x.reshape(5, -1), static_shapes=True)(arr((2, 3)))
    with pytest.raises(ValueError):   # run-time sizes: a guard before the call
        transpile(lambda x: x.reshape(4, -1))(arr((2, 3)))
    with pytest.raises(ValueError):
        transpile(lambda x: x.squeeze(0))(arr((2, 3)))


@pytest.mark.parametrize("shape", [(-2,), (3, -4), (-7, 2, 1), (-1, -2), (-3, -3)])
def test_any_negative_reshape_size_is_the_unknown_one(shape):
    """NumPy takes any negative size as the one to infer (`x.reshape(-2)` flattens), and two of them as its
    ValueError; ours refused every negative but -1."""
    reshape = lambda x: x.reshape(shape)  # noqa: E731
    x = arr((2, 3, 2))
    if sum(s < 0 for s in shape) > 1:
        with pytest.raises(ValueError, match="can only specify one unknown dimension"):
            reshape(x)
        with pytest.raises(ValueError, match="can only specify one unknown dimension"):
            transpile(reshape)(x)
    else:
        check(reshape, x)


@pytest.mark.parametrize("index", [
    np.s_[1], np.s_[-1], np.s_[1:3], np.s_[::2], np.s_[::-1], np.s_[-3:], np.s_[:-1, 2], np.s_[..., 1],
    np.s_[1, ..., ::-2], np.s_[2:0:-1], np.s_[:, None, 1:], np.s_[-1, -1], np.s_[5:], np.s_[:100],
    np.s_[-100:2], np.s_[1:1], np.s_[::3, ::-1], np.s_[None], np.s_[..., None],
], ids=repr)
@pytest.mark.parametrize("static", [False, True])
def test_basic_indexing(index, static):
    x = arr((4, 5, 3))
    fn = lambda x: x[index]  # noqa: E731
    check(fn, x) if not static else _check_static(fn, x)


def test_indexing_with_runtime_sizes_and_ints():
    x = arr((6, 4))
    check(lambda x: x[: x.shape[0] // 2], x)
    check(lambda x: x[x.shape[0] - 1], x)
    check(lambda x: x[1:, : x.shape[1] - 1], x)
    check(lambda x, i: x[i], x, np.int64(-2))
    with pytest.raises(IndexError):
        transpile(lambda x: x[7])(x)             # run-time size: checked in the kernel
    with pytest.raises(IndexError):
        transpile(lambda x: x[7], static_shapes=True)(x)
    with pytest.raises(IndexError):
        transpile(lambda x, i: x[i])(x, np.int64(6))


@pytest.mark.parametrize("ids", [[0, 2, 1], [-1, 0], [3], []], ids=str)
def test_gathers(ids):
    wte = arr((5, 4))
    check(lambda w, i: w[i], wte, np.array(ids, dtype=np.int64))
    check(lambda w: w[ids], wte)
    check(lambda w, i: w[:, i], wte, np.array([j % 4 for j in ids], dtype=np.int32))
    check(lambda w, i: w[i] + w[range(len(i))], wte, np.array(ids, dtype=np.int64)) if ids else None


def test_gather_from_python_list_argument_is_data():
    wte, wpe = arr((50, 8)), arr((16, 8))

    def embed(ids, wte, wpe):
        return wte[ids] + wpe[range(len(ids))]
    f = transpile(embed)
    for n in (1, 2, 3, 9):
        ids = list(RNG.integers(0, 50, size=n))
        ids = [int(i) for i in ids]
        np.testing.assert_array_equal(f(ids, wte, wpe), embed(ids, wte, wpe))
    assert f.compilations == 2    # n == 1 (a size-1 dim broadcasts) and n > 1; never per length


def test_gather_out_of_range_raises_index_error():
    w = arr((5, 3))
    f = transpile(lambda w, i: w[i])
    for bad in ([5], [-6], [0, 1, 99]):
        with pytest.raises(IndexError):
            w[np.array(bad)]
        with pytest.raises(IndexError):
            f(w, np.array(bad))
    with pytest.raises(IndexError):
        transpile(lambda w, ids: w[range(len(ids))])(w, list(range(9)))


def test_mixed_advanced_and_int_index_order():
    x = arr((3, 4, 5))
    check(lambda x: x[0, :, [1, 2]], x)      # separated: the advanced dims go first
    check(lambda x: x[:, 0, [1, 2]], x)      # adjacent: they stay in place


# several integer arrays (NumPy's advanced indexing): broadcast together, with ints and slices between them
MANY_INDEX_READS = [
    lambda x, r, c: x[r, c],
    lambda x, r, c: x[r[:, None], c[None, :]],       # an outer product of indices
    lambda x, r, c: x[r, :, c],                      # separated by a slice: the broadcast dims go first
    lambda x, r, c: x[:, r, c],                      # adjacent: they stay in place
    lambda x, r, c: x[r, c, 1:],
    lambda x, r, c: x[r, 0, c],                      # an int between them counts as advanced: adjacent
    lambda x, r, c: x[0, r, ::-1][c],
    lambda x, r, c: x[..., r[:, None], c],
    lambda x, r, c: x[r, -1, [0]],                   # a list broadcast against an array
    lambda x, r, c: x[-1, :, c] + x[r, 1, c],
]


# Gathers move elements whatever their dtype: int64 runs in the default suite on the (3, 4, 5) shape with non-empty
# index arrays, the other int64 cases in the slow suite (float32 runs every case but the size-one shapes)
SEVERAL_INDEX_SHAPES = [(3, 4, 5), (1, 3, 4), (4, 1, 4), (2, 3, 0)]
SEVERAL_INDEX_ARRAYS = [([0, 2, -1], [1, 0, 3]), ([0], [2, -3, 1]), ([], [])]
SEVERAL_INDEX_CASES = [
    pytest.param(shape, r, c, dtype, id=f"{shape}-{r}-{c}-{dtype.__name__}",
                 marks=[pytest.mark.slow] if shape in ((1, 3, 4), (4, 1, 4))
                 or (dtype is np.int64 and (shape != (3, 4, 5) or not r)) else [])
    for dtype in (np.float32, np.int64) for r, c in SEVERAL_INDEX_ARRAYS for shape in SEVERAL_INDEX_SHAPES]


@pytest.mark.parametrize("shape, r, c, dtype", SEVERAL_INDEX_CASES)
def test_several_index_arrays(shape, r, c, dtype):
    x = arr(shape).astype(dtype)
    r = np.array([i % shape[0] for i in r], np.int64)
    c = np.array([i % max(shape[2], 1) for i in c], np.int32) if shape[2] else np.zeros((0,), np.int32)
    for fn in MANY_INDEX_READS:
        try:
            fn(x, r, c)
        except (IndexError, ValueError) as e:       # out of range, or shapes that do not broadcast, for this x
            with pytest.raises(type(e)):
                transpile(fn)(x, r, c)
            continue
        check(fn, x, r, c)


NONE_AMONG_ADVANCED = ["r, None", "None, r", "r, None, c", ":, None, r", "r, :, None", "None, :, r, c", "r, c, None",
                       "0, None, r", "r, None, 0", ":, r, None, c", ":, 0, None, c", "None, 0, :, c", "..., None, c",
                       "r, ..., None", "r[:, None], None, c"]


# the default suite's corner: a None before, between and after advanced indices, with slices, ints and an ellipsis
@pytest.mark.parametrize("index", some_slow(NONE_AMONG_ADVANCED, (
    "r, None", "None, r", "r, None, c", ":, None, r", "None, :, r, c", "0, None, r", ":, 0, None, c", "..., None, c",
    "r[:, None], None, c")))
def test_none_among_advanced_indices(index, tmp_path):
    """np.newaxis with integer arrays: NumPy's layout (a None between advanced indices separates them)."""
    path = tmp_path / "none_index.py"
    path.write_text(f"def read(x, r, c):\n    return x[{index}]\n\n\ndef write(x, r, c):\n    x[{index}] = "
                    f"-x[{index}][..., ::-1]\n    x[{index}] *= 2\n    return x\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    x = arr((3, 4, 5))
    r, c = np.array([0, -1]), np.array([2, 0])
    check(namespace["read"], x, r, c)
    check(namespace["write"], x, r, c)


def test_several_index_arrays_out_of_range_and_mismatched():
    x = arr((3, 4))
    f = transpile(lambda x, r, c: x[r, c])
    for r, c in (([0, 3], [0, 1]), ([0, 1], [0, -5]), ([-4], [1])):
        with pytest.raises(IndexError):
            f(x, np.array(r), np.array(c))
    with pytest.raises(CompileError, match="could not be broadcast") as e:
        transpile(lambda x: x[[0, 1], [0, 1, 2]])(x)
    assert isinstance(e.value, IndexError)
    check(lambda x, m: x[m, 0], x, np.array([True, False, True]))   # a mask among other indices: its positions


@pytest.mark.parametrize("static", [False, True])
def test_split_and_join(static):
    x = arr((4, 12))
    fns = [lambda x: np.split(x, 3, axis=-1), lambda x: np.split(x, [2, 5, 20], axis=1),
           lambda x: np.array_split(x, 5, axis=1), lambda x: np.split(x, 2), lambda x: np.array_split(x, 3),
           lambda x: np.hstack(np.split(x, 4, axis=1)[::-1]), lambda x: np.vstack(np.split(x, 2, axis=1)),
           lambda x: np.concatenate([x, x * 2], axis=0), lambda x: np.concatenate([x[:, :3], x], axis=-1),
           lambda x: np.stack([x, x + 1, x - 1]), lambda x: np.stack([x[0], x[1]], axis=1),
           lambda x: np.hstack([x[0], x[1], x[2, :2]]), lambda x: np.concatenate([x.astype(np.float64), x])]
    for fn in fns:
        if static:
            expected = fn(x)
            actual = transpile(fn, static_shapes=True)(x)
            assert type(actual) is type(expected)
            for a, e in zip(actual if isinstance(actual, list) else [actual],
                            expected if isinstance(expected, list) else [expected], strict=True):
                np.testing.assert_array_equal(a, e)
                assert a.dtype == e.dtype
        else:
            check(fn, x)


def test_split_unequal_division_raises():
    with pytest.raises(ValueError):
        transpile(lambda x: np.split(x, 5, axis=1))(arr((2, 12)))
    with pytest.raises(ValueError):
        transpile(lambda x: np.split(x, 5, axis=1), static_shapes=True)(arr((2, 12)))


CONSTRUCTOR_DTYPES = [np.float32, np.float64, np.int32, None]


# each constructor on half of the dtypes in the default suite (in turn; the reduced fill on every dtype), on every
# dtype in the slow suite
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", CONSTRUCTOR_DTYPES)
def test_constructors(dtype, part):
    x = arr((3, 5))
    kw = {} if dtype is None else {"dtype": dtype}
    forms = [lambda x: np.zeros((x.shape[0], 2), **kw) + 1, lambda x: np.ones(x.shape[1], **kw),
             lambda x: np.full((x.shape[0], x.shape[1]), 7, **kw), lambda x: np.zeros_like(x, **kw),
             lambda x: np.ones_like(x, **kw), lambda x: np.full_like(x, 2.5, **kw),
             lambda x: np.arange(x.shape[1], **kw), lambda x: np.arange(2, x.shape[1] * 3, 2, **kw),
             lambda x: np.eye(x.shape[0], **kw), lambda x: np.eye(x.shape[0], x.shape[1], k=1, **kw),
             lambda x: np.tri(x.shape[0], **kw), lambda x: np.tri(x.shape[0], x.shape[1], -1, **kw),
             lambda x: np.zeros(4, **kw),            # all static: folded at compile time
             lambda x: np.tri(x.shape[0], dtype=x.dtype),
             # a run-time fill value, reduced: the fill fused into the sum as a scalar operand (an internal error)
             lambda x: np.full((x.shape[0], x.shape[1]), x[0, 0], **kw).sum()]
    for k, fn in enumerate(forms):
        if (part == "default") if fn is forms[-1] else in_part(part, k + CONSTRUCTOR_DTYPES.index(dtype)):
            check(fn, x)      # (the last, a reduction of each dtype: float64's is a compensated sum, on every dtype)


ARANGE_BOUNDS = [(0.5, 3.0, 0.25), (0.0, 1.0, 0.1), (1.0, 0.0, -0.1), (10, 1, -3), (3, 14, 2), (0.1, 1e4, 0.3),
                 (-5.5, 5.5, 1.1), (0.0, 0.0, 1.0), (5, 1, 1), (1, 1e-320, 1e308), (0, -1e-320, 1e308),
                 (2.0, 7.0, float("inf")), (1e16, 1e16 + 64, 8.0), (0.0, 100.0, 1 / 3), (0.1, 3e3, 0.1),
                 (np.float32(0.1), 1.0, 0.1), (np.float32(0.1), np.float32(3), np.float32(0.3)), (np.int8(3), 100, 7),
                 (np.uint8(3), 200, np.int64(7)), (np.float64(0), 5, np.float64(0.5)), (True, 5, 1)]


@pytest.mark.parametrize("start, stop, step", ARANGE_BOUNDS)
def test_arange_with_run_time_bounds(start, stop, step):
    """NumPy's length (ceil of the quotient as its scalars compute it, underflow included) and fill (start,
    start + step, then start + i * delta in the dtype): bit for bit, one kernel for all values of these types."""
    exact = dict(rtol=0, atol=0)
    check(lambda a, b, c: np.arange(a, b, c), start, stop, step, **exact)
    check(lambda a, b, c: np.arange(a, b, c, dtype=np.float32), start, stop, step, **exact)
    check(lambda a, b, c: np.arange(a, b, c, dtype=np.float16) * 2, start, stop, step, **exact)
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        check(lambda a, b, c: np.arange(a, b, c, dtype=np.uint8), start, stop, step, **exact)
    if abs(stop) < 1e7:
        check(lambda a: np.arange(a), stop, **exact)
    check(lambda x: np.arange(x[0], x[1], x[2]), np.array([start, stop, step]), **exact)     # read from an array


def test_arange_with_run_time_bounds_compiles_once_and_raises_as_numpy():
    f = transpile(lambda a, b, c: np.arange(a, b, c))
    for bounds in [(0.5, 3.0, 0.25), (2.0, 9.0, 0.7), (1.0, 0.0, -0.1)]:
        np.testing.assert_array_equal(f(*bounds), np.arange(*bounds))
    assert f.compilations == 1
    # past 2**24 elements float32's i * delta rounds i first (C converts the index to float), as NumPy's fill does
    f32 = transpile(lambda a, b, c: np.arange(a, b, c, dtype=np.float32))
    assert np.array_equal(f32(0.1, 1.8e6, 0.1), np.arange(0.1, 1.8e6, 0.1, dtype=np.float32))
    for bounds, error, message in [((0.0, 5.0, 0.0), ZeroDivisionError, "float division by zero"),
                                   ((0.0, np.nan, 1.0), ValueError, "cannot compute length"),
                                   ((0.0, np.inf, 1.0), ValueError, "Maximum allowed size exceeded"),
                                   ((0.0, 1e30, 1e-30), ValueError, "Maximum allowed size exceeded")]:
        with pytest.raises(error, match=message):
            np.arange(*bounds)
        with pytest.raises(error, match=message):
            f(*bounds)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        transpile(lambda a: np.arange(0, 5, a))(0)
    with pytest.raises(CompileError, match="integer dtype"):
        transpile(lambda a: np.arange(0, a, dtype=np.int32))(2.5)
    with pytest.raises(CompileError, match="complex"):
        transpile(lambda a: np.arange(0, a))(2.5 + 1j)


def test_arange_numpy_int_bounds_outside_an_integer_dtype_raise_as_numpy():
    """NumPy sets arange's first two values as Python ints: a NumPy integer scalar outside the dtype's range is an
    OverflowError (they were wrapped: np.arange(np.int64(-1), 5, 1, dtype=np.uint8) gave [255, 0, ...]); a value
    the length does not reach is not set, so it raises nothing."""
    u8 = transpile(lambda a, b, c: np.arange(a, b, c, dtype=np.uint8))
    i32 = transpile(lambda a, b, c: np.arange(a, b, c, dtype=np.int32))
    i64 = transpile(lambda a, b, c: np.arange(a, b, c, dtype=np.int64))
    for f, bounds in [(u8, (np.int64(-1), np.int64(5), np.int64(1))), (u8, (np.int32(-1), np.int32(3), np.int32(1))),
                      (u8, (np.int8(-5), np.int8(3), np.int8(1))), (u8, (np.int64(5), np.int64(600), np.int64(300))),
                      (i32, (np.int64(2**40), np.int64(2**40 + 3), np.int64(1))),
                      (i32, (np.uint64(2**63), np.uint64(2**63 + 3), np.uint64(1))),
                      (i64, (np.uint64(2**63), np.uint64(2**63 + 2), np.uint64(1)))]:
        with pytest.raises(OverflowError):
            f.py_func(*bounds)
        with pytest.raises(OverflowError):
            f(*bounds)
    for f, bounds in [(u8, (np.int64(5), np.int64(300), np.int64(300))),
                      (u8, (np.int64(-1), np.int64(-5), np.int64(1))), (u8, (np.int64(3), np.int64(9), np.int64(2))),
                      (i32, (np.int64(-7), np.int64(7), np.int64(3))),
                      (i64, (np.uint64(2), np.uint64(9), np.uint64(2)))]:
        expected = f.py_func(*bounds)
        got = f(*bounds)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_a_slice_of_at_most_one_element_broadcasts():
    """x[:1] and x[-1:] of a run-time length are 0 or 1 long: they broadcast as a 1 against a longer dim (this
    raised ValueError for every x longer than 1); for an empty x the kernel's guard (a 1) fails and the call runs as
    NumPy, which gives an empty result."""
    f = transpile(lambda x, y: (x - x[:1], x[-1:] * y + y[:1], np.full(4, x[0]) - x[-1:]))
    for n in (1, 2, 5):
        x, y = arr((n,)), arr((3, n))
        for got, want in zip(f(x, y), (x - x[:1], x[-1:] * y + y[:1], np.full(4, x[0]) - x[-1:])):
            np.testing.assert_array_equal(got, want)
    assert (arr((0,)) - arr((0,))[:1]).shape == (0,)
    np.testing.assert_array_equal(transpile(lambda x: x - x[:1])(arr((0,))), arr((0,)) - arr((0,))[:1], strict=True)


def test_triu_tril():
    x = arr((2, 4, 5))
    for k in (-2, 0, 1, 3):
        check(lambda x: (np.triu(x, k), np.tril(x, k)), x)


def test_shape_attributes():
    def f(x):
        return x.shape, x.ndim, x.size, len(x), x.dtype
    x = arr((3, 4))
    assert transpile(f, static_shapes=True)(x) == f(x)
    n, ndim, size, length, dt = transpile(f)(x)
    assert tuple(n) == x.shape and ndim == 2 and size == 12 and length == 3 and dt == x.dtype


def test_mismatched_concat_raises():
    with pytest.raises(ValueError):
        transpile(lambda a, b: np.concatenate([a, b], axis=0))(arr((2, 3)), arr((2, 4)))
    with pytest.raises(CompileError):
        transpile(lambda a, b: np.concatenate([a, b]), static_shapes=True)(arr((2, 3)), arr((2, 4)))


def test_concatenate_lists_holding_run_time_numbers():
    """A list among the arrays that holds run-time numbers is the array NumPy makes of it (was refused)."""
    x, i = np.arange(4.0), np.arange(4, dtype=np.int32)
    check(lambda x: np.concatenate((x, [len(x)])), x)
    check(lambda x: np.concatenate((x, [len(x), x[0]])), x)
    check(lambda i: np.concatenate(([len(i)], i)), i)
    check(lambda i: np.concatenate(([i[0] * 2], i)), i)


def test_slice_bounds_steps_and_indices_past_int64_follow_numpy():
    """Run-time slice bounds and steps of any int64 or uint64 value clamp as Python's slices do, and a uint64 index
    past int64 is NumPy's OverflowError. A uint64 bound past 2**63 - 1 read as negative (y[:2**64 - 1] had 9
    elements), a step near +-2**63 overflowed the length computation (y[1:9:2**63 - 1] was empty), and y[2**64 - 1]
    read y[-1] (found in review)."""
    y = np.arange(10.0)
    values = [(np.int64, v) for v in (2**63 - 1, -2**63, -2**63 + 1, 2**62, 3, -3)] + \
        [(np.uint64, v) for v in (2**64 - 1, 2**63, 2**63 - 1, 3)]
    for dtype, v in values:
        x = np.array([v], dtype)
        check(lambda y, x: y[:x[0]], y, x)
        check(lambda y, x: y[x[0]:], y, x)
        check(lambda y, x: y[-3:x[0]], y, x)
        check(lambda y, x: y[1:9:x[0]], y, x)
        check(lambda y, x: y[8:1:x[0]], y, x)
    f = transpile(lambda y, x: y[x[0]])
    for v in (2**64 - 1, 2**63):
        with pytest.raises(OverflowError, match="too large to convert"):
            f(y, np.array([v], np.uint64))
    assert f(y, np.array([3], np.uint64)) == 3.0


@pytest.mark.slow
def test_unsigned_run_time_sizes_are_not_sign_extended():
    """A size read from an unsigned int (a uint8 255, a uint16 40000) zero-extends to an index: it was sign-extended,
    so np.zeros(x[0]) of a uint8 200 was empty and y[:x[0]] cut at -56 (244 elements of 300)."""
    y = np.arange(300.0)
    for dtype in (np.uint8, np.uint16, np.uint32):
        x = np.array([200, 1], dtype)
        check(lambda x: np.zeros(x[0]), x)
        check(lambda x: np.ones((x[0], 2)), x)
        check(lambda x: np.eye(x[0]), x)
        check(lambda x: np.arange(x[0]), x)
        check(lambda x, y: y[:x[0]], x, y)
        check(lambda x, y: y[x[0]:], x, y)
    for n in (np.uint8(255), np.uint16(40000)):
        check(lambda n: np.arange(n), n)
        check(lambda n: np.zeros(n), n)
    # a uint64 past int64 read from an array: NumPy's ValueError (it was a negative size: an empty array)
    f = transpile(lambda x: np.zeros(x[0]))
    for n in (2**63, 2**64 - 1):
        with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
            np.zeros(np.array([n], np.uint64)[0])
        with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
            f(np.array([n], np.uint64))
    assert f(np.array([5], np.uint64)).shape == (5,)
