"""Results whose size depends on the data, sized by the kernel at run time: x[mask], np.nonzero / x.nonzero(),
np.where(cond), np.argwhere, np.flatnonzero, np.compress, np.extract, several integer-array indices (y[np.nonzero(m)]),
and their composition with reductions, loops and outlined functions. NumPy is the oracle."""
import numpy as np
import pytest

from helpers import PARTS, assert_same, check, in_part, some_slow
from transpiler import CompileError, transpile

RNG = np.random.default_rng(7)
SHAPES = [(0,), (1,), (7,), (3, 4), (0, 3), (2, 1, 3), (1, 1)]
DTYPES = [np.bool_, np.int8, np.int32, np.uint16, np.float32, np.float64]


def data(shape, dtype):
    values = RNG.integers(-3, 4, size=shape)
    return values.astype(dtype)


def masks(shape):
    """A random mask, all False and all True."""
    return [RNG.random(shape) < 0.5, np.zeros(shape, bool), np.ones(shape, bool)]


def select(x, m):
    return x[m]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_mask_of_the_same_shape(shape, dtype):
    x = data(shape, dtype)
    for m in masks(shape):
        check(select, x, m)


@pytest.mark.parametrize("shape", SHAPES)
def test_mask_from_a_comparison(shape):
    x = RNG.standard_normal(shape)
    check(lambda x: x[x > 0], x)
    check(lambda x: x[x > 10], x)             # all False
    check(lambda x: x[~np.isnan(x)], x)       # all True


@pytest.mark.parametrize("x_shape, m_shape", [((4, 3), (4,)), ((2, 3, 4), (2, 3)), ((2, 3, 4), (2,)),
                                              ((0, 3), (0,)), ((1, 5), (1,)), ((3, 0), (3,))])
def test_mask_of_leading_dims_selects_rows(x_shape, m_shape):
    x = data(x_shape, np.float64)
    for m in masks(m_shape):
        check(select, x, m)


def test_zero_d_masks():
    x = data((2, 3), np.int64)
    check(lambda x: x[np.array(True)], x)
    check(lambda x: x[np.array(False)], x)
    check(lambda x: x[x[0, 0] > -10], x)           # a run-time 0-d mask: all of x as one row
    check(lambda x: x[x[0, 0] > 10], x)
    check(lambda x: x[0, 1][x[0, 0] > -10], x)     # a 0-d array selected
    check(lambda x: x[0, 1][x[0, 0] > 10], x)


def test_masks_among_other_indices():
    x = data((2, 3, 4), np.float32)
    m3, m4 = np.array([True, False, True]), np.array([False, True, True, True])
    check(lambda x, m: x[:, m], x, m3)
    check(lambda x, m: x[1, m], x, m3)
    check(lambda x, m: x[..., m], x, m4)
    check(lambda x, m: x[:, m, 1:], x, m3)
    check(lambda x, m: x[m, 2], x, np.array([True, False]))
    check(lambda x, m: x[m, :, 3], x, np.array([False, True]))     # separated: the selection's dim first
    check(lambda x, m: x[:, m], x, np.ones((3, 4), bool))
    check(lambda x: x[:, [True, False, True]], x)                   # a list of bools is a mask too


def test_wrong_mask_shape_is_numpys_index_error():
    x = data((3, 4), np.float64)
    for m in (np.ones(4, bool), np.ones((3, 3), bool), np.ones(2, bool)):
        with pytest.raises(IndexError, match="boolean index did not match indexed array along axis"):
            x[m]        # NumPy's error
        with pytest.raises(IndexError, match="boolean index did not match indexed array along axis"):
            transpile(select)(x, m)
    with pytest.raises(IndexError, match="boolean index did not match"):
        transpile(lambda x, m: x[:, m])(x, np.ones(3, bool))
    with pytest.raises(IndexError, match="too many indices"):
        transpile(select)(x, np.ones((3, 4, 1), bool))
    # known while compiling: a CompileError that is NumPy's IndexError, with NumPy's message
    with pytest.raises(CompileError, match="size of axis is 3 but size of corresponding boolean axis is 2"):
        transpile(lambda x: x[np.ones(2, bool)], static_shapes=True)(x)
    with pytest.raises(IndexError):
        transpile(lambda x: x[np.ones(2, bool)], static_shapes=True)(x)


def test_masked_assignment_with_a_wrong_mask_is_an_index_error():
    def assign(x, m):
        x[m] = 0
        return x
    with pytest.raises(IndexError):
        assign(np.ones(3), np.ones(4, bool))
    with pytest.raises(IndexError, match="boolean index did not match"):
        transpile(assign)(np.ones(3), np.ones(4, bool))


# the default suite: three of the six dtypes, each function on half of their dtype x shape grid (a diagonal: every
# dtype and every shape); the slow suite: the rest
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", some_slow(DTYPES, (np.bool_, np.int8, np.float64)))
@pytest.mark.parametrize("shape", SHAPES)
def test_nonzero_family(shape, dtype, part):
    x = data(shape, dtype)
    forms = [lambda x: np.nonzero(x), lambda x: x.nonzero(), lambda x: np.where(x), lambda x: np.argwhere(x),
             lambda x: np.flatnonzero(x)]
    for k, fn in enumerate(forms):
        if in_part(part, k + DTYPES.index(dtype) + SHAPES.index(shape)):
            check(fn, x)


def test_nonzero_of_floats_counts_nan_and_not_negative_zero():
    x = np.array([1.0, np.nan, 0.0, -0.0, -2.0, np.inf])
    check(lambda x: np.nonzero(x), x)
    check(lambda x: np.argwhere(x.reshape(2, 3)), x)


def test_zero_d_operands():
    x = np.array([0.0, 2.0])
    check(lambda x: np.argwhere(x[1]), x)          # shape (1, 0)
    check(lambda x: np.argwhere(x[0]), x)          # shape (0, 0)
    check(lambda x: np.flatnonzero(x[1]), x)
    for fn in (lambda x: np.nonzero(x[0]), lambda x: np.where(x[0]), lambda x: x[0].nonzero()):
        with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
            transpile(fn)(x)
    with pytest.raises(ValueError, match="either both or neither"):
        transpile(lambda x: np.where(x > 0, x))(x)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, -2])
def test_compress(axis):
    x = data((3, 4), np.float64)
    n = x.size if axis is None else x.shape[axis]
    for c in [RNG.random(n) < 0.5, np.zeros(n, bool), np.ones(n, bool)]:
        check(lambda x, c: np.compress(c, x, axis=axis), x, c)
        check(lambda x, c: x.compress(c, axis=axis), x, c)
        check(lambda x, c: np.compress(c[:2], x, axis=axis), x, c)          # shorter: the first ones chosen
        check(lambda x, c: np.compress(c.astype(np.int8) * 3, x, axis=axis), x, c)   # any dtype: nonzero


def test_compress_edge_cases():
    check(lambda x, c: np.compress(c, x, axis=1), np.zeros((3, 0)), np.zeros(0, bool))
    check(lambda x, c: np.compress(c, x), np.array(5.0), np.array([True]))
    check(lambda x: np.compress([True, False, True], x, axis=0), data((3, 2), np.int16))
    check(lambda x: np.compress(x[:, 0] > 0, x, axis=0), data((5, 2), np.int16))


def test_compress_errors():
    x = np.arange(5.0)
    long = np.array([0, 0, 0, 0, 0, 0, 1], bool)
    with pytest.raises(IndexError):
        np.compress(long, x)
    with pytest.raises(IndexError):
        transpile(lambda x, c: np.compress(c, x))(x, long)
    check(lambda x, c: np.compress(c, x), x, np.array([1, 0, 0, 0, 0, 0, 0], bool))   # longer, all inside
    with pytest.raises(ValueError, match="condition must be a 1-d array"):
        transpile(lambda x, c: np.compress(c, x, axis=0))(x, np.ones((1, 5), bool))
    with pytest.raises(np.exceptions.AxisError):
        transpile(lambda x, c: np.compress(c, x, axis=1))(x, np.ones(5, bool))


def test_extract():
    x = data((3, 4), np.int32)
    check(lambda x: np.extract(x > 0, x), x)
    check(lambda x, c: np.extract(c, x), x, np.array([True, False, True]))        # shorter condition
    check(lambda x: np.extract(x % 2, x), x)                                      # nonzero ints
    check(lambda x: np.extract(x[0, 0] > -10, x[0, 0]), x)                        # 0-d


def test_several_integer_array_indices():
    x = data((2, 3, 4), np.float64)
    i, j = np.array([[0], [1]]), np.array([0, 2, -3])
    check(lambda x: x[[0, 1], [2, -1]], x)
    check(lambda x, i, j: x[i, j], x, i, j)                  # broadcast together: (2, 3, 4)
    check(lambda x, i, j: x[0, i, j], x, i, j)
    check(lambda x, i, j: x[:, i, j], x, i, j)
    check(lambda x, i, j: x[i, 1, j], x, i, j)               # separated by an int: still adjacent
    check(lambda x, i, j: x[i, 1:, j], x, i, np.array([0, 1]))   # separated by a slice: their dims first
    with pytest.raises(IndexError):
        transpile(lambda x: x[[0, 1], [2, 4]])(x)            # out of range, at run time
    with pytest.raises(IndexError, match="shape mismatch: indexing arrays could not be broadcast"):
        transpile(lambda x: x[[0, 1], [2, 1, 0]])(x)


def test_indexing_with_nonzero_results():
    y = data((3, 4), np.int64)
    check(lambda y, m: y[np.nonzero(m)], y, y % 3 == 0)
    check(lambda y, m: y[np.where(m)], y, np.zeros((3, 4), bool))
    check(lambda y, m: y[np.nonzero(m)], y, np.ones((2, 2), bool))    # a smaller mask's positions
    check(lambda y, m: y[:, np.nonzero(m)[0]], y, np.array([True, False, False, True]))
    check(lambda x, m: x[np.nonzero(m)], data((3, 4, 2), np.float32), y > 0)


def test_composition_with_reductions_and_arithmetic():
    x = RNG.standard_normal((4, 5))
    check(lambda x: x[x > 0].sum(), x)
    check(lambda x: x[x > 0].max(), x)
    check(lambda x, m: np.mean(x[m]), x, x < 0)
    check(lambda x, m: np.std(x[m], ddof=1), x, x < 0.5)
    check(lambda x, m: x[m] * 2 + x[m].min(), x, x > -0.5)
    check(lambda x, y, m: x[m] + y[m], x, x * 3, x > 0)            # one mask: one size
    check(lambda x, m: (x[m], np.nonzero(m), np.argwhere(m)), x, x > 1)


def test_empty_selections_follow_numpy():
    x = np.arange(6.0)
    with np.errstate(all="ignore"):
        check(lambda x: np.mean(x[x > 10]), x)                      # nan
    check(lambda x: x[x > 10].sum(), x)
    with pytest.raises(ValueError, match="zero-size array"):
        transpile(lambda x: x[x > 10].max())(x)


def test_selections_of_two_masks_are_compared_in_the_kernel():
    """Two masks give two sizes the kernel computes: combined elementwise, they are compared there (NumPy's
    ValueError after the call when they differ); each operand is cut to the common size, so nothing is read past
    either."""
    x = np.arange(-3.0, 4.0)
    check(lambda x: x[x > 0] + x[x > -1][1:], x)
    check(lambda x: x[x > 0] * x[x < 0][::-1], x)
    check(lambda x, y: np.where(x[x > 0] > 1, x[x > 0], y[y > 1]), x, x + 0.5)
    check(lambda x: x[x > 10] + x[x > 11], x)                       # both empty
    check(lambda x: x[x[:, 0] > 0] + x[x[:, 1] > 2], np.arange(12.0).reshape(3, 4))   # rows
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        transpile(lambda x: x[x > 0] + x[x > 1])(x)


def per_threshold(x, n):
    total = 0.0
    counts = np.zeros(n, np.int64)
    for t in range(n):
        picked = x[x > t]
        total += picked.sum()
        counts[t] = np.flatnonzero(x > t).shape[0]
    return total, counts


def test_inside_run_time_loops():
    check(per_threshold, data((3, 4), np.float64), 4)
    check(per_threshold, np.zeros((0,)), 3)


def _spread(v):
    w = v * 2.0 + 1.0
    w = w - v / 3.0
    w = np.tanh(w) + np.exp(-w) * 0.5
    return w.sum() + w.max() + w.min() * w.mean()


def passes_selections(a, b):
    return _spread(a[a > 0]) + _spread(b[b > 0]) + _spread(a[a > -1])


def _positives(v):
    w = v * 2.0 + 1.0
    w = w - v / 3.0
    w = np.tanh(w) + np.exp(-w) * 0.5
    return w[w > 0.5] * 1.5 + w.sum()


def returns_selections(a, b):
    return _positives(a).sum() + _positives(b).sum(), _positives(a)


def test_selections_passed_to_outlined_functions():
    a, b = np.linspace(-2, 2, 11), np.linspace(-1, 3, 7)
    check(passes_selections, a, b)
    assert "call callee=" in transpile(passes_selections).emit(a, b, stage="typed")


def test_outlined_function_returning_a_selection():
    """Regression: a function called again (outlined) whose result's size it computes from data was an internal
    error ('size ... (result) used before the value that defines it'): the caller cannot allocate that result
    before the call, so such a function is inlined."""
    a, b = np.linspace(-2, 2, 11), np.linspace(-1, 3, 7)
    check(returns_selections, a, b)
    check(returns_selections, a[:0], b)


def shrink_in_a_loop(x, t):
    while x.shape[0] > 3:
        x = x[x > t]
        t = t + 1.0
    return x


def shrink_in_a_for_loop(x, n):
    for i in range(n):
        x = x[x > i]
    return x, x.sum()


def select_in_branches(x, c):
    if c > 0:
        r = x[x > 0]
    else:
        r = x[x < 0]
    return r, r.mean()


def select_again_in_a_branch(x, c):
    r = x[x > 0]
    if c > 0:
        r = r[r > 1]
    return r * 2


def test_sizes_from_data_that_change_in_loops_and_branches():
    """A value whose length is a selection's can be reassigned in a run-time loop or branch: the loop carries it,
    the if joins it, with a size of its own that the kernel reads off the value."""
    x = np.linspace(-3, 3, 13)
    check(shrink_in_a_loop, x, -2.0)
    check(shrink_in_a_loop, x, 5.0)          # down to nothing
    check(shrink_in_a_loop, x[:2], 0.0)      # the loop runs zero times
    check(shrink_in_a_for_loop, x, 3)
    check(shrink_in_a_for_loop, x, 0)
    for c in (1.0, -1.0):
        with np.errstate(all="ignore"):
            check(select_in_branches, x, c)
            check(select_in_branches, np.zeros(0), c)
        check(select_again_in_a_branch, x, c)


def test_masks_known_at_compile_time_give_static_lengths():
    x = np.arange(12.0).reshape(3, 4)
    select_rows = transpile(lambda x: x[np.array([True, False, True])])
    assert "float64[2,x.shape[1]]" in select_rows.emit(x, stage="typed")    # no count in the kernel
    check(lambda x: x[np.array([True, False, True])], x)
    check(lambda x: x[[True, False, True]], x)                              # a list of bools
    check(lambda x: x[:, np.array([True, False, True, True])] + x[:, [1, 0, 1]], x)
    check(lambda x: np.compress([0, 1], x, axis=1), x)
    check(lambda x: np.extract(np.arange(12).reshape(3, 4) % 2, x), x)

    def assign(x):
        x[[True, False, True]] = 0
        return x
    check(assign, x)


def test_mask_against_a_selection_is_checked_in_the_kernel():
    """A mask whose length is static or another selection's, indexing a selection: the sizes are compared when the
    kernel runs (NumPy's IndexError after the call), never read out of bounds."""
    x = np.arange(12.0)
    check(lambda x: x[x > 3][np.array([True, False] * 4)], x)
    with pytest.raises(IndexError, match="boolean index did not match"):
        transpile(lambda x: x[x > 3][np.array([True, False] * 3)])(x)
    check(lambda x, m: x[x > 3][m[x > 3]], x, x % 3 == 0)                   # the same mask: its own length


def assign_among_other_indices(x, m):
    x[:, m] = -1.0
    return x


def add_at_a_mask_and_an_int(x, m):
    x[m, 0] += 5
    return x


def multiply_selection_by_itself(x, m):
    x[m] *= x[m]
    return x


def add_a_row_to_selected_rows(x, m):
    x[m] += np.arange(4.0)
    return x


def test_writes_through_masks():
    x = np.arange(24.0).reshape(2, 3, 4)
    check(assign_among_other_indices, x, np.array([True, False, True]))
    check(assign_among_other_indices, x, np.zeros(3, bool))
    check(add_at_a_mask_and_an_int, x, np.array([False, True]))
    check(multiply_selection_by_itself, x, x > 10)          # values, one per selected element
    check(add_a_row_to_selected_rows, x, x[:, :, 0] > 10)   # a row added to each selected row
    with pytest.raises(IndexError, match="boolean index did not match"):
        transpile(assign_among_other_indices)(x, np.array([True, False]))


def test_positions_of_one_mask_are_new_arrays_each_time():
    """np.flatnonzero(m) twice shared the first call's arrays, so writing into one changed the other (found in
    review: [1, -1, 4] where NumPy gives [1, 2, 4]); a write before the second call was refused. They share only
    their length now."""
    def twice(x):
        m = x > 0
        a = np.flatnonzero(m)
        c = np.flatnonzero(m)
        c[1] = -1
        a[0] += 100
        rows, = np.nonzero(m)
        return a, c, rows, x[m] + x[m]
    check(twice, np.array([-1.0, 2.0, 3.0, -4.0, 5.0]))


def rows_flattened(x, c):
    selected = x[x[..., 0] > c]
    return selected.reshape(selected.shape[0], -1)


def rows_kept(x, c):
    selected = x[x[..., 0] > c]
    return selected.reshape(-1, selected.shape[1])


@pytest.mark.parametrize("shape", [(2, 2), (5, 3), (4, 1), (6, 2, 3)])
@pytest.mark.parametrize("c", [-np.inf, 0.0, np.inf])
def test_reshape_with_minus_one_of_a_data_sized_array(shape, c):
    """`x[mask].reshape(x[mask].shape[0], -1)` (found by the fuzzer: refused with 'cannot check that the run-time
    sizes are equal'): the count of selected rows is known only in the kernel, and so is NumPy's ValueError when it
    is 0 (-1 cannot be inferred next to a zero dim), a check in the kernel."""
    x = np.random.default_rng(9).standard_normal(shape)
    for fn in (rows_flattened, rows_kept):
        try:
            expected = fn(x, c)
        except ValueError:
            with pytest.raises(ValueError, match="cannot reshape"):
                transpile(fn)(x, c)
            continue
        got = transpile(fn)(x, c)
        assert got.dtype == expected.dtype and got.shape == expected.shape and np.array_equal(got, expected)


def _zeros_after_a_check(k):
    if k < 0:
        raise ValueError("k must not be negative")
    out = np.zeros((k + 1, k + 2))     # sized by the data, made in a statement guarded by the check
    if k == 0:
        return out
    out[1:, :] = 3.0
    return out


def arrays_sized_in_guarded_statements(x, idx):
    k = int(idx[0])
    return _zeros_after_a_check(k) + _zeros_after_a_check(k + 1)[1:, 1:]


def arrays_sized_in_a_conditional_expression(x, idx):
    k = int(idx[0])      # (a check: idx may be empty)
    out = np.zeros((k + 1, k + 2)) if k > 0 else np.ones((k + 1, k + 2))
    return out[1:].sum() + out.shape[0]


def arrays_sized_in_branches_after_a_check(x, idx):
    k = int(idx[0])
    if k > 5:
        k = k - 1
        out = np.zeros((k + 1, k + 2))
    else:
        out = np.ones((k + 1, k + 2))
    return out[1:, 1:] + 1


def test_arrays_sized_by_the_data_inside_a_branch_are_sized_after_it():
    """An array whose size and memory limit are computed inside a branch or a guarded statement (a run-time `if` or
    early `return` after np.zeros of a size read from the data, as np.pad with such widths has) keeps a size after
    the join that the code there can compute (it named values of the branch: an internal KeyError in codegen)."""
    x = np.ones((3, 2))
    for v in (0, 1, 2, 7):
        idx = np.array([v, 3])
        check(arrays_sized_in_guarded_statements, x, idx)
        check(arrays_sized_in_a_conditional_expression, x, idx)
        check(arrays_sized_in_branches_after_a_check, x, idx)
    with pytest.raises(ValueError, match="k must not be negative"):
        transpile(arrays_sized_in_guarded_statements)(x, np.array([-1]))
    with pytest.raises(IndexError):
        transpile(arrays_sized_in_a_conditional_expression)(x, np.array([], dtype=np.int64))


def _flattened_rows_total(a):
    r = a.reshape(a.shape[0], -1)       # NumPy: ValueError when a has no rows
    return ((r * 2 + 1) * 3 - r / 4 + np.sqrt(np.abs(r)) * 0.5 - np.exp(r)).sum()


def rows_of_an_argument_then_of_a_selection(x, c):
    return _flattened_rows_total(x) + _flattened_rows_total(x[x[:, 0] > c])   # the second call is outlined


@pytest.mark.parametrize("shape", [(3, 4), (5, 1), (1, 6)])
def test_outlined_reshape_with_minus_one_of_a_selection_checks_its_rows_in_the_kernel(shape):
    """An outlined function's requirement that a size be nonzero (reshape(n, -1)) instantiated with a caller's size
    only the kernel knows (a selection's length) is checked in the kernel; it was skipped (no ValueError where NumPy
    raises one)."""
    x = np.random.default_rng(3).standard_normal(shape)
    for c in (-np.inf, 0.0, np.inf):
        try:
            expected = rows_of_an_argument_then_of_a_selection(x, c)
        except ValueError:
            with pytest.raises(ValueError, match="cannot reshape"):
                transpile(rows_of_an_argument_then_of_a_selection)(x, c)
            continue
        assert_same(transpile(rows_of_an_argument_then_of_a_selection)(x, c), expected)


def squeeze_a_selection(x, m):
    return x[x > m].squeeze(), np.squeeze(x[:, None][x > m]), x.squeeze()


def squeeze_a_joined_length(x, k):
    r = x[1:] if k > 0 else x[2:]
    return r.squeeze()


def test_squeeze_of_a_size_only_the_kernel_knows():
    """squeeze() keeps a size known only at run time (a selection's length, a length joined after a branch); where
    it is 1 NumPy removes it, a rank the compiled function cannot have: a ValueError then (it returned shape (1,)
    where NumPy returns ()), NumPy's result otherwise."""
    x = np.array([0.5, 2.5, 1.0, 3.5])
    for m in (0.0, 2.0, 9.0):
        check(squeeze_a_selection, x, m)
    check(squeeze_a_joined_length, x, 1)
    check(squeeze_a_joined_length, x, 0)
    for fn, args in ((squeeze_a_selection, (x, 3.0)), (squeeze_a_joined_length, (x[:3], 0))):
        assert fn(*args)[0].shape == () if fn is squeeze_a_selection else fn(*args).shape == ()
        with pytest.raises(ValueError, match="squeeze\\(\\): axis 0 has a size known only at run time, here 1"):
            transpile(fn)(*args)


def select_in_a_loop_from_a_constant(k, t):
    x = np.arange(6.0)
    for i in range(k):
        x = x[x > t + i]
    return x


def shorten_in_a_loop_from_a_constant(k, t):
    x = np.arange(6.0)
    for i in range(k):
        if x[0] > t:
            x = x[1:]
        y = x[1:] if x.sum() > t * 10 else x[:]
    return x, y


def test_a_loop_that_changes_the_size_of_an_array_made_with_a_static_size():
    """A run-time loop carrying an array whose size before it is static (np.arange(6.0)) and which its body changes:
    scf.for with a static initial value had canonicalization fold the size back to the static one, and the result
    had six elements, the last uninitialized (a silently wrong answer); such loops are scf.while loops."""
    for k, t in ((0, 1.0), (2, -1.0), (2, 0.5), (3, 10.0), (5, -5.0)):
        check(select_in_a_loop_from_a_constant, k, t)
        if k:
            check(shorten_in_a_loop_from_a_constant, k, t)


def complex_grid(w, h):
    x, y = np.meshgrid(np.linspace(-2.0, 0.5, w), np.linspace(-1.25, 1.25, h))
    return x + 1j * y


def test_a_size_read_off_a_guarded_statements_array_is_computed_after_it():
    """np.meshgrid of linspaces of int arguments: each grid is made in a statement guarded by linspace's checks, its
    size read off the if that joins it; the memory check of the sum was moved before that if (an internal
    AssertionError: 'size used before the value that defines it'; mandelbrot's grid)."""
    for w, h in ((4, 3), (1, 5), (0, 2)):
        check(complex_grid, w, h)
