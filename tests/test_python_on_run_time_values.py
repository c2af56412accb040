"""Python's own operations on run-time values, as Python runs them or refused, never run on the compiler's
placeholders of the values.

`==`, `!=`, `in` and `not in` of tuples and lists that hold run-time values (a shape with a run-time dim, a
run-time int among constants): Python compares them item by item with `==`, so the answer is known only when the
kernel runs. Before, Python's own comparison ran while compiling and compared the compiler's placeholders by
identity: `x.shape == (n,)` was False whatever n (a silent wrong answer, found through np.delete's mask check)."""
import numpy as np
import pytest

from helpers import check
from transpiler import CompileError, transpile


def shape_equals(x, n):
    return x.shape == (n,), x.shape != (n,), (x.shape[0],) == (n,), [n, 1] == [x.shape[0], 1], (n,) == [n]


def mask_or_default(x, m):
    if m.shape != (x.shape[0],):
        return x * 0.0
    return x * 2.0


def membership(x, k):
    return k in (2, 5, x.shape[0]), k not in [0, 1], (k, 1) in [(2, 1), (3, 1)], k in (k,), x.shape in [(4,), (k,)]


def shapes_of_two(x, y):
    same = x.shape == y.shape
    return same, x.shape[:1] == y.shape[:1], x.shape == x.shape


def nan_items(x):
    a = x[0]
    return (a,) == (a,), (x[0],) == (x[0],), [x[1]] == [x[1]]    # the same object is equal without asking


@pytest.mark.parametrize("size, n", [(5, 5), (5, 4), (0, 0), (1, 0)])
def test_a_shape_compared_with_a_run_time_tuple(size, n):
    check(shape_equals, np.arange(float(size)), n)


@pytest.mark.parametrize("mask_size", [7, 6])
def test_a_run_time_shape_check_takes_the_right_branch(mask_size):
    check(mask_or_default, np.arange(7.0), np.arange(mask_size) % 2 == 0)


@pytest.mark.parametrize("size, k", [(4, 2), (4, 3), (4, 4), (3, 0), (6, 1)])
def test_membership_of_run_time_ints(size, k):
    check(membership, np.arange(float(size)), k)


@pytest.mark.parametrize("rows", [3, 4])
def test_shapes_of_two_arguments(rows):
    check(shapes_of_two, np.ones((rows, 2)), np.ones((3, 2)))


def test_nan_items_compare_as_python_compares_them():
    check(nan_items, np.array([np.nan, np.nan]))


def test_ordering_of_containers_with_run_time_items_is_refused():
    with pytest.raises(CompileError, match="ordering comparisons"):
        transpile(lambda x, n: x.shape < (n,))(np.arange(3.0), 2)


def test_containers_holding_arrays_are_refused_not_compared_by_identity():
    with pytest.raises(CompileError, match="hold run-time arrays"):
        transpile(lambda x, y: (x, 1) == (y, 1))(np.arange(3.0), np.arange(3.0))


# ---- Python code that would hash, compare or print the compiler's placeholders of run-time values ----------------
# Each of these ran Python's own code on the placeholders while compiling and returned a wrong value silently:
# `[1, 2, 2].count(n)` was 0, `len({n, 2})` 2, `{2: 10.0}.get(n, -1.0)` -1.0, `len(f"{n}")` 23 (the placeholder's
# text). They are refused now, naming the construct.
REFUSED = {
    "list_count": (lambda x: [1, 2, 2].count(x.shape[0]), "list.count"),
    "list_index": (lambda x: [3, 2, 1].index(x.shape[0]), "list.index"),
    "set_display": (lambda x: len({x.shape[0], 2}), "set element"),
    "set_of_tuples": (lambda x: len(set([(x.shape[0], 1), (2, 1)])), "set()"),
    "set_comprehension": (lambda x: len({v for v in (x.shape[0], 2)}), "set element"),
    "dict_get": (lambda x: {2: 10.0, 3: 20.0}.get(x.shape[0], -1.0), "dict.get"),
    "dict_key": (lambda x: {x.shape[0]: 1.0}.get(2, -1.0), "dict key"),
    "dict_comprehension_key": (lambda x: len({v: 1 for v in (x.shape[0], 2)}), "dict key"),
    "f_string": (lambda x: len(f"{x.shape[0]}"), "formatted as text"),
    "str": (lambda x: len(str(x[0])), "formatted as text"),
    "str_format": (lambda x: "{}".format(x.shape[0]), "formatted as text"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_python_hashing_comparing_or_printing_a_run_time_value_is_refused(name):
    fn, match = REFUSED[name]
    with pytest.raises(CompileError, match=match):
        transpile(fn)(np.array([1.0, 2.0]))


def test_run_time_values_as_dict_values_are_fine():
    check(lambda x: dict(a=x[0], b=x.shape[0]), np.array([1.5, 2.0]))
    check(lambda x: {"first": x[0], "n": x.shape[0]}["n"], np.array([1.5, 2.0]))


def test_not_of_a_run_time_value_is_a_python_bool():
    check(lambda x: (not (x[0] > 5), not x[1]), np.array([1.0, 0.0]))
    check(lambda x: bool([x[0] > 5]), np.array([1.0, 0.0]))


def test_run_time_values_in_exception_messages():
    """In a message reached while compiling, a run-time value shows as a placeholder (it is a CompileError); in a
    `raise` under a run-time condition, such a message is refused (the kernel could not show the value)."""
    def compile_time(x):
        raise ValueError(f"bad size {x.shape[0]} " + str(x[0]) + " {}".format(x[1]))

    def run_time(x, n):
        if n > 100:
            raise ValueError("n too big: " + str(n))
        return x * n
    with pytest.raises(CompileError, match=r"bad size <run-time .*> <run-time .*> <run-time .*>"):
        transpile(compile_time)(np.array([1.0, 2.0]))
    with pytest.raises(CompileError, match="must be known at compile time"):
        transpile(run_time)(np.array([1.0]), np.int64(300))


@pytest.mark.parametrize("s", [2.5, 3, True, np.float32(1.5), np.int8(3)])
def test_type_of_a_run_time_value_is_its_type_at_run_time(s):
    """type(v) was the placeholder's class (`type(x).__name__` was 'Var', `type(s) is float` False)."""
    check(lambda x, s: (type(s) is float, type(s).__name__, type(x[0]) is np.float64, type(x).__name__,
                        type(x[0:1].sum()) is np.float64, type(np.asarray(x[0])).__name__, type(s)(1)),
          np.array([1.0, 2.0]), s)


@pytest.mark.parametrize("convert", [np.asarray, np.array, np.copy, np.ascontiguousarray,
                                     lambda v: np.asarray(v, dtype=np.float32), lambda v: np.array(v, dtype=np.int8)],
                         ids=["asarray", "array", "copy", "ascontiguousarray", "asarray_dtype", "array_dtype"])
def test_an_array_made_of_a_scalar_is_an_array(convert):
    """np.asarray(x[0]) is a 0-d array (np.ascontiguousarray's has one dim), not the NumPy scalar (was returned as
    np.float64); of a Python float argument too."""
    check(lambda x, s: (convert(x[0]), convert(s), convert(x[0]) + 1, type(convert(x[1])).__name__),
          np.array([1.5, 2.0]), 2.5)


def _and_or_values(x):
    n = x.shape[0]
    return (n > 1 and n < 5, n > 5 or n < 0, n > 1 and True, n > 5 or False, (x[0] > 0) and (x[1] > 0),
            (x[0] > 0) or (x[1] > 0), n > 1 and n < 9 and n != 4)


@pytest.mark.parametrize("size", [1, 2, 4, 7])
def test_and_or_of_bools_of_one_type_is_their_truth_as_python_gives_it(size):
    x = np.linspace(-1.0, 1.0, size + 1)[::-1].copy()
    got = transpile(_and_or_values)(x)
    want = _and_or_values(x)
    assert got == want and [type(v) for v in got] == [type(v) for v in want], (got, want)


def _and_or_tests(x, k):
    n = x.shape[0]
    t = 0
    if n > 1 and x[0] >= 0 or not (x[-1] > 0 and n):
        t += 1
    while t < n and x[t % n] < k:
        t += 1
    return t, (1.0 if n > 2 and x[0] else 2.0)


@pytest.mark.parametrize("size", [1, 3, 6])
def test_and_or_in_conditions_mix_any_operands(size):
    check(_and_or_tests, np.linspace(-2.0, 3.0, size), np.float64(0.5))


@pytest.mark.parametrize("fn", [lambda x: x.shape[0] > 1 and x.shape[0], lambda x: x[0] or x.shape[0],
                                lambda x: x[1] or x.shape[0], lambda x: x.shape[0] > 5 and x[1] > 0,
                                lambda x: x[0] > 0 and False],
                         ids=["int", "float_or_int", "float", "python_and_numpy_bool", "numpy_and_python_bool"])
def test_the_value_of_and_or_that_is_an_operand_is_refused(fn):
    """Python's `and`/`or` gives back an operand (`n > 1 and n` is n): was the operands' truth (True for 3, a
    silent wrong answer), or a NumPy bool where Python gives a Python one."""
    with pytest.raises(CompileError, match="one of its operands"):
        transpile(fn)(np.array([0.0, 1.0, 2.0]))
