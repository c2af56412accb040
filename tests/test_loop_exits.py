"""`break`, `continue` and `return` in loops whose trip count or exit depends on run-time values: they become flags
(frontend/loop_exits.py), checked against NumPy."""
import copy

import numpy as np
import pytest

from helpers import assert_same_effects, check, load_function
from transpiler import CompileError, emit, transpile


def find(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


def first_value(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return x[i] * 2
    return x[0] * 0


def row_search(A, t):
    for i in range(A.shape[0]):
        if A[i].sum() > t:
            return A[i]
    return A[0] * 0


def unrolled_return(x):
    for k in range(3):
        if x[k] > 2:
            return k
    return 10


def while_return(x, tol):
    d = x.copy()
    n = 0
    while n < 100:
        d *= 0.5
        n += 1
        if np.max(np.abs(d)) < tol:
            return n
    return -1


def returns_a_tuple(x):
    for i in range(x.shape[0]):
        if x[i] > 2:
            return x[i], i
    return x[0], -1


X = np.array([1.0, 5.0, 3.0, 9.0])


@pytest.mark.parametrize("t", [0.0, 4.0, 6.0, 100.0])
def test_return_inside_a_run_time_loop(t):
    check(find, X, t)
    check(first_value, X, t)
    check(row_search, X.reshape(2, 2), t * 2)
    check(unrolled_return, X - t / 2)
    check(while_return, X, t / 10 + 1e-3)


def test_return_of_a_tuple_inside_a_run_time_loop():
    check(returns_a_tuple, X)                              # found: x[i] and i, both run time
    got = transpile(returns_a_tuple)(X - 10)               # not found: (x[0], -1)
    assert got == returns_a_tuple(X - 10) and type(got[1]) is int


def pair(x):
    return x[0], 0


def returns_tuples_of_two_shapes(x):
    for i in range(x.shape[0]):
        if x[i] > 2:
            return x[i], i
        if x[i] < -2:
            return pair(x)
    return x[0], -1


def test_a_loop_whose_returns_differ_in_shape_is_refused_clearly():
    with pytest.raises(CompileError, match="tuple or list display"):
        transpile(returns_tuples_of_two_shapes)(X)


# ---- returns at any depth: loops in loops, loops in run-time branches, branches in branches ----------------------
def pair_sum(x):
    for i in range(len(x)):
        for j in range(len(x)):
            if x[i] + x[j] > 3:
                return x[i] * x[j]
    return x[0] * 0


def pair_sum_weak(x):
    for i in range(len(x)):
        for j in range(len(x)):
            if x[i] + x[j] > 3:
                return x[i] * x[j]
    return 0.0


def first_negative(x):
    for i in range(len(x)):
        if x[i] < 0:
            return i, x[i]
    return -1, 0.0


def first_negative_cell(A):
    for i in range(A.shape[0]):
        j = 0
        while j < A.shape[1]:
            if A[i, j] < 0:
                return [i, j, A[i, j]]
            j += 1
    return [-1, -1, A[0, 0] * 0]


def copy_until_negative(out, A):
    """Writes before the return stay; the ones after it never happen."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] < 0:
                return i * 10 + j
            out[i, j] = A[i, j]
    return -1


def loop_in_a_branch(x, t):
    if x.sum() > t:
        for i in range(len(x)):
            if x[i] > t / 4:
                return x[i]
        x = x * 2
    return x.max()


def branch_in_a_branch(x):
    if x[0] > 0:
        if x[1] > 0:
            return x[0] + x[1]
        y = x[0] - 1.0
    else:
        y = x[1]
    return y * 2


def compile_time_branch(x, mode):
    if mode == "scan":
        if x[0] > 0:
            return x * 2
        x = x + 1
    return x


def in_an_unrolled_loop(x):
    for k in range(2):
        for i in range(len(x)):
            if x[i] > 3 + k:
                return x[i] + k
    return x[0]


VECTORS = [np.array([1.0, 2.5, 3.0]), np.array([0.5, 1.0]), np.array([4.0]), np.array([-1.0, 2.0, 0.0]),
           np.zeros(0), np.array([1.0, 2.0, 9.0], np.float32)]


@pytest.mark.parametrize("x", VECTORS, ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_return_from_nested_run_time_loops(x):
    if len(x):
        check(pair_sum, x)
        check(branch_in_a_branch, x if len(x) > 1 else np.concatenate([x, x]))
        check(in_an_unrolled_loop, x)
        for t in (0.0, 2.0, 100.0):
            check(loop_in_a_branch, x, t)
    got, expected = transpile(pair_sum_weak)(x), pair_sum_weak(x)
    assert got == expected
    # the Python float where NumPy returns it (the join yields which path returned: docs/semantics.md)
    assert type(got) is type(expected)
    for mode in ("scan", "other"):
        if len(x):
            check(compile_time_branch, x, mode)


@pytest.mark.parametrize("x", VECTORS, ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_return_of_a_tuple_from_a_loop(x):
    got, expected = transpile(first_negative)(x), first_negative(x)
    assert got == expected and type(got[0]) is int
    assert type(got[1]) is type(expected[1])    # the Python float 0.0 where no element is negative, as NumPy's


@pytest.mark.parametrize("A", [np.array([[1.0, 2.0], [3.0, -4.0]]), np.ones((3, 2)), np.array([[-1.0]]),
                               np.arange(6).reshape(2, 3) - 4, np.ones((1, 4), np.float32)],
                         ids=lambda A: f"{A.dtype}{A.shape}{A.min()}")
def test_return_from_a_while_in_a_for_and_writes_before_it(A):
    check(first_negative_cell, A)
    check(copy_until_negative, np.zeros(A.shape, A.dtype), A)


def powers_of_two(x):
    for i in range(70):
        x[i % 4] += 2 ** i          # past 2**63: Python's ints, not int64
    return x


def test_a_loop_whose_variable_grows_fast_keeps_pythons_ints():
    check(powers_of_two, np.zeros(4))


def shifted(k):
    return 1 << k


def powers_through_a_helper(x):
    for i in range(70):
        x[i % 4] += shifted(i)
    return x


def test_a_loop_whose_variable_grows_fast_through_a_helper_keeps_pythons_ints():
    check(powers_through_a_helper, np.zeros(4))


# ---- a failed check, or a `raise`, stops the program: nothing after it runs (as in NumPy) ------------------------
def check_raises(fn, *args, match_message=False):
    """Both runs raise the same exception type (and message, for the user's own `raise`), and leave every argument
    with the same contents: the writes before the failing statement happened, none after it."""
    ref_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
    with pytest.raises(Exception) as expected:
        fn(*ref_args)
    with pytest.raises(Exception) as got:
        transpile(fn)(*got_args)
    assert type(got.value) is type(expected.value), (got.value, expected.value)
    if match_message:    # (the first line: pytest adds its own explanation to the asserts of this module)
        assert str(got.value) == str(expected.value).split("\n")[0]
    for a, e in zip(got_args, ref_args):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e)


def three_checks(x, i, n, d):
    y = np.zeros(n)                  # ValueError for n < 0
    x[i] = 1.0                       # IndexError
    if d == 0:
        raise ZeroDivisionError("d is zero")
    x[0] = 5.0
    return x[0] / d + y.sum()


@pytest.mark.parametrize("i,n,d", [(0, 2, 1), (9, 2, 1), (9, -1, 1), (0, 2, 0), (9, 2, 0), (0, -1, 0)])
def test_the_first_failing_check_raises(i, n, d):
    """The kernel returns its check flags as one array (driver._packed_flags): whichever are set, the call raises
    the first one's exception, as NumPy and Python stop at the first failure."""
    if (i, n, d) == (0, 2, 1):
        check(three_checks, np.zeros(3), i, n, d)
    else:
        check_raises(three_checks, np.zeros(3), i, n, d, match_message=(n, i) == (2, 0))


def write_after_a_bad_index(x, idx):
    x[idx[0]] = 2.0     # IndexError for an index out of range: NumPy stops here
    x[0] = 1.0
    return x


def write_after_a_bad_gather(x, idx):
    x[0] = x[idx[0]]    # the value is read out of range: nothing is written
    x[1:] *= 3
    return x


def rows_from(out, x, idx):
    for k in range(len(idx)):
        out[k] = x[idx[k]] * 2      # the rows before a bad id are written, none from it on
    out[-1] += 1
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float32])
def test_a_failed_check_stops_the_writes_after_it(dtype):
    x = np.zeros(3, dtype)
    check_raises(write_after_a_bad_index, x, np.array([7]))
    check_raises(write_after_a_bad_index, x, np.array([-4]))
    check(write_after_a_bad_index, x, np.array([-1]))
    check_raises(write_after_a_bad_gather, np.arange(4, dtype=dtype), np.array([4]))
    check(write_after_a_bad_gather, np.arange(4, dtype=dtype), np.array([-2]))
    x2 = np.arange(12, dtype=dtype).reshape(4, 3)
    check_raises(rows_from, np.zeros((3, 3), dtype), x2, np.array([1, 9, 2]))
    check_raises(rows_from, np.zeros((3, 3), dtype), x2, np.array([9]))
    check(rows_from, np.zeros((3, 3), dtype), x2, np.array([3, 0, -1]))
    check(rows_from, np.zeros((1, 3), dtype), x2, np.array([2]))
    check(rows_from, np.zeros((2, 3), dtype), x2, np.zeros(0, np.int64))


def late_beats_early(x, d, idx):
    for k in range(len(idx)):
        s = 1.0 / float(d[k])       # early in the body: ZeroDivisionError when d[k] == 0
        x[idx[k]] = s               # late: IndexError when idx[k] is out of range
    return x


def test_the_first_failure_in_execution_order_is_raised():
    """A check late in the body failing in iteration 1 wins over one early in the body failing in iteration 2."""
    check_raises(late_beats_early, np.zeros(3), np.array([1.0, 2.0, 0.0]), np.array([0, 5, 1]))
    check_raises(late_beats_early, np.zeros(3), np.array([1.0, 0.0, 2.0]), np.array([0, 1, 5]))
    check(late_beats_early, np.zeros(3), np.array([1.0, 2.0, 4.0]), np.array([0, 2, -1]))


def sum_until_zero(x):
    i = 0
    s = 0.0
    while x[i] != 0.0:      # reads past the end when x has no zero: NumPy raises there
        s += x[i]
        i += 1
    return s


def mark_until_negative(x, idx):
    i = 0
    while x[idx[i]] > 0:    # a check in the condition
        x[i] = -1.0
        i += 1
    return x


def test_a_loop_whose_check_failed_stops():
    """Without stopping, the first loop would run forever (its out-of-range reads are clamped to the last
    element)."""
    check_raises(sum_until_zero, np.array([1.0, 2.0, 3.0]))
    check(sum_until_zero, np.array([1.0, 2.0, 0.0]))
    check_raises(mark_until_negative, np.ones(4), np.array([0, 1, 9]))
    check_raises(mark_until_negative, np.ones(4), np.array([0, 1, 2, 3]))
    check(mark_until_negative, np.ones(4), np.array([0, 1, 2, 3, 0]))


def raise_in_a_branch(x):
    if x[0] < 0:
        raise ValueError("negative")
    return x * 2


def raise_in_a_loop(x):
    for i in range(len(x)):
        if x[i] < 0:
            raise ValueError("a negative value")
        x[i] = x[i] * 2
    return x


def raise_in_nested_loops(A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] > 10:
                raise OverflowError("too large")
            A[i, j] += 1
    return A


def raise_and_define_on_the_other_path(x):
    if x[0] < 0:
        raise ValueError("neg")
    else:
        y = np.sqrt(x)
    x[0] = 7.0
    return y


def validate(x):
    if x[0] < 0:
        raise ValueError("validate: negative")
    return x.sum()


def raise_in_a_helper(x):
    s = validate(x)
    x[1] = s            # never written when the helper raised
    return x


def raise_on_both_paths(x):
    if x[0] > 0:
        if x[1] > 0:
            raise KeyError("both positive")
        else:
            raise IndexError("second not positive")
    x[0] = 1.0
    return x


@pytest.mark.parametrize("x", [np.array([-1.0, 2.0, 3.0]), np.array([1.0, -2.0, 3.0]), np.array([1.0, 2.0, 30.0]),
                               np.array([0.0, 0.0]), np.array([5.0, 1.0], np.float32)],
                         ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_raise_under_a_run_time_condition(x):
    for fn in (raise_in_a_branch, raise_in_a_loop, raise_and_define_on_the_other_path, raise_in_a_helper,
               raise_on_both_paths, lambda x: raise_in_nested_loops(x[None])):
        try:
            expected = fn(x.copy())
        except Exception:
            check_raises(fn, x, match_message=True)
        else:
            check(fn, x)
            assert expected is not None


def test_a_raise_reached_while_compiling_is_still_a_compile_error():
    def always(x):
        raise ValueError("always")
    with pytest.raises(CompileError, match="always"):
        transpile(always)(np.ones(2))


def add_at(x, idx):
    y = x[idx[0]]
    x += y              # after a check: in place, only when the check passed
    return x


def fill(x, v):
    x[:] = v
    return x


def fill_at(x, idx):
    y = x[idx[0]]
    return fill(x, y)


def view_then_write(x, idx):
    v = x[1:]
    y = x[idx[0]]
    x[1] = y
    v[0] += 1.0         # still a view of x after the guarded write
    return v


def test_statements_after_a_check_keep_numpys_aliasing():
    for fn in (add_at, fill_at):
        a = np.arange(3.0)
        assert transpile(fn)(a, np.array([1])) is a
        check(fn, np.arange(3.0), np.array([-1]))
        check_raises(fn, np.arange(3.0), np.array([3]))
    check(view_then_write, np.arange(3.0), np.array([2]))
    check_raises(view_then_write, np.arange(3.0), np.array([9]))


def set_then_add(x, y, idx):
    x[idx[0]] = 2.0
    x += y


def test_writes_after_a_check_stay_in_place():
    """The guarded statements update the argument's memory: no copy of it, no temporary."""
    text = emit(set_then_add, np.zeros(10), np.ones(10), np.array([1]), stage="llvm")
    assert "memrefCopy" not in text and "llvm.intr.memcpy" not in text
    assert text.count("llvm.call @transpiler_malloc") <= 2          # the check flag, and the flags' packed result


def test_programs_without_checks_are_unchanged():
    """No check, no guard: the loop body is not wrapped (`scf.if`) and no flag is carried."""
    def scale_rows(x):
        for i in range(x.shape[0]):
            x[i] *= 2.0
        return x
    assert "scf.if" not in emit(scale_rows, np.ones((3, 2)), stage="mlir")


def assert_positive(x):
    assert x[0] > 0, "first must be positive"
    x[1] = 5.0
    return x


def assert_in_a_loop(x):
    for i in range(len(x)):
        assert x[i] < 10
        x[i] += 1
    return x


def test_assert_on_a_run_time_value():
    check_raises(assert_positive, np.array([-1.0, 0.0]), match_message=True)
    check(assert_positive, np.array([1.0, 0.0]))
    check_raises(assert_in_a_loop, np.array([1.0, 20.0, 3.0]))
    check(assert_in_a_loop, np.array([1.0, 2.0, 3.0]))


def raise_showing_a_run_time_value(x):
    if x[0] < 0:
        raise ValueError(f"bad {x[0]}")
    return x


def test_a_raise_whose_message_shows_a_run_time_value_is_refused():
    with pytest.raises(CompileError, match="must be known at compile time"):
        transpile(raise_showing_a_run_time_value)(np.array([-1.0]))


def _makes_an_array_and_its_view(x):
    x[0] = 1
    arr = np.zeros(3)
    return arr, arr[1:]


def _writes_through_the_view_after_a_check(x, i):
    t = x[i]
    a, v = _makes_an_array_and_its_view(x)
    v[0] = 5
    return a, t


def _makes_them_in_a_loop(x):
    for j in range(len(x)):
        x[j] = 1
    arr = np.zeros(3)
    return arr, arr[1:]


def _writes_through_the_view_after_a_looping_statement(x, i):
    t = x[i]
    a, v = _makes_them_in_a_loop(x)
    v[0] = 5
    return a, t


def test_a_guarded_statement_keeps_arrays_that_share_memory_together():
    """A statement after a check that runs a loop runs under `if not failed`; the names it binds are joined one by
    one, so an array and its view made there became two arrays (a write through the view was lost: [0, 0, 0]
    where NumPy gives [0, 5, 0]). That is refused, never a wrong answer (found in review). A statement that only
    computes and writes runs as it is, its writes guarded one by one: its names keep sharing memory."""
    with pytest.raises(CompileError, match="shares memory with"):
        transpile(_writes_through_the_view_after_a_looping_statement)(np.zeros(4), np.int64(2))
    check(_writes_through_the_view_after_a_check, np.zeros(4), np.int64(2))
    check_raises(_writes_through_the_view_after_a_check, np.zeros(4), np.int64(7))


def test_every_path_raising_at_run_time_raises_its_own_exception():
    def f(x):
        if x[0] > 0:
            raise ValueError("positive")
        else:
            raise KeyError("negative")
    with pytest.raises(ValueError, match="positive"):
        transpile(f)(np.array([1.0]))
    with pytest.raises(KeyError, match="negative"):
        transpile(f)(np.array([-1.0]))


def test_a_long_function_guards_the_writes_after_a_failed_check(tmp_path):
    """A failed check stops NumPy's run: no write after it happens. Each of 60 statements here writes the argument
    and reads `y[i + k]`, which fails for a large i; every write after the first failure is guarded (control.py,
    MAX_GUARDS = 64: with 32, statements past the 32nd wrote `x` although NumPy had stopped)."""
    lines = ["import numpy as np", "", "def f(x, y, i):"]
    lines += [f"    x[{k % 7}] = y[i + {k % 5}] + {k}.0" for k in range(60)]
    lines += ["    return x"]
    path = tmp_path / "long_guarded.py"
    path.write_text("\n".join(lines) + "\n")
    f = load_function(path)
    compiled = transpile(f)
    y = np.arange(10.0)
    for i in (2, 6, 8):         # 2: no failure; 6: the 5th statement fails (i + 4 = 10); 8: the 3rd
        assert_same_effects(f, compiled, np.zeros(7), y, i)


def _shrinks_in_a_loop(x, k):
    for _ in range(k):
        x = x[1:]
    return x, x.sum()


def _view_of_either_length(a, t):
    v = a[1:]
    if a[0] > t:
        v = a[2:]
    return v * 2, v.sum()


def _halves_while_long(x):
    while len(x) > 2:
        x = x[::2]
    return x


def _shrinks_a_constant_sized_array(k):
    # (its own loop, not a call of _shrinks_in_a_loop: through a call the loop carries a run-time size, and a
    # static one is what this checks)
    x = np.arange(6.0)
    for _ in range(k):
        x = x[1:]
    return x


def test_a_name_whose_size_differs_between_paths_has_a_size_of_its_own():
    """A name bound to arrays of different lengths on the two paths of a run-time if, or before and after a loop's
    body, joins into a value with a size of its own (control.join_shapes). They were unified with a guard, which
    raised ValueError ("different shapes on the two paths", "changes shape inside the loop") at every such call."""
    for k in (0, 1, 3, 6, 9):
        check(_shrinks_in_a_loop, np.arange(8.0), k)
    for t in (-1.0, 0.5, 5.0):
        check(_view_of_either_length, np.array([1.0, 2.0, 3.0, 4.0, 5.0]), t)
    for n in (1, 2, 3, 8, 17):
        check(_halves_while_long, np.arange(float(n)))
    for k in (0, 2, 7):         # a static first size: the loop carries a static type (a joined size there gave
        check(_shrinks_a_constant_sized_array, k)          # [2, 3, 4, 5, 0, 0] for k = 2 while this was built)


def _column_or_row(a, k):
    return a[:, None] if k >= 0 else a[None, :]


def _column_or_row_statement(a, k):
    if k >= 0:
        r = a[:, None] * 2
    else:
        r = a[None, :] + 1
    return r, r.sum(axis=0), r.T


def _constant_lengths(a, k):
    r = np.zeros(3) if k > 0 else np.ones(5)
    s = a if k > 1 else np.full(4, 7.0)
    return r * 3, s.sum(), r.shape[0] + s.shape[0]


def test_branches_whose_sizes_differ_with_a_static_one_join_to_a_size_of_their_own():
    """`a[:, None] if k >= 0 else a[None, :]` (sizes (n, 1) and (1, n)), and branches making arrays of different
    static sizes or a static size against an argument's: the value after the if has sizes of its own, as NumPy's
    result does on each path (a static size against a run-time one was unified with a guard: ValueError at the call
    where NumPy returns; two different static sizes a CompileError)."""
    for a in (np.arange(3.0), np.arange(1.0), np.arange(4.0)):
        for k in (-2, 0, 1, 2):
            check(_column_or_row, a, k)
            check(_column_or_row_statement, a, k)
            check(_constant_lengths, a, k)


def _shrinks_after_a_check(x, n):
    first = x[n]              # a check: the loop after it runs only if it passed
    v = x
    for _ in range(n):
        v = v[1:]
    return v.sum() + first


def test_a_loop_that_changes_a_size_after_a_check():
    """The loop is a guarded statement whose path where a check failed yields a stand-in for `v`: sized by a size
    of the loop's own, which only the loop defines. It was an internal compiler error ("used before the value that
    defines it"); the stand-in is now empty along such sizes (never read)."""
    for n in (0, 1, 3):
        check(_shrinks_after_a_check, np.arange(8.0), np.int64(n))
    with pytest.raises(IndexError):
        transpile(_shrinks_after_a_check)(np.arange(2.0), np.int64(3))
