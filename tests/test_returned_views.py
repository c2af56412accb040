"""Arrays returned from run-time loops and branches (issue #13): NumPy returns a view of the argument (`return x[j]`
in a loop's body), or the argument itself on one path and a new array on another (`return x` / `return -x`). The
compiled function returns the same: a view of the caller's array at the position the kernel found
(frontend/control._position_unset, codegen/strided.py), or the caller's own object where the kernel's path says so
(frontend/control._choice, runtime/signature.Choice). Where it cannot, a CompileError, never a copy in silence."""
import numpy as np
import pytest

from helpers import argument_in_layout
from transpiler import CompileError, transpile


def argument(layout: str) -> np.ndarray:
    return argument_in_layout(layout, 6, 4)


def row_found(x, t):
    for j in range(x.shape[0]):
        if x[j, 0] > t:
            return x[j]
    return x[-1]


def reversed_row_in_a_while(x, t):
    j = 0
    while j < x.shape[0]:
        if x[j].sum() > t:
            return x[j, ::-1]
        j += 1
    return x[0, ::-1]


def index_and_column(x, t):
    for j in range(x.shape[1]):
        if x[0, j] > t:
            return j, x[:, j]
    return -1, x[:, 0]


def in_nested_loops(x, t):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] > t:
                return x[i, j:]
    return x[0, :0]


def written_then_returned(x, t):
    for j in range(x.shape[0]):
        x[j] += 1.0
        if x[j, 0] > t:
            return x[j:]
    return x


def transposed(x, t):
    for j in range(x.shape[0]):
        if x[j, 0] > t:
            return x.T[1:]
    return x.T


def row_or_new_array(x, t):
    for j in range(x.shape[0]):
        if x[j].sum() > t:
            return x[j]
    return x[0] * 0


def itself_or_new_array(x, t):
    for j in range(x.shape[0]):
        if x[j, 0] > t:
            return x
    return -x


def returns_in_branches(x, t):
    if x[0, 0] > t:
        return x
    elif x[1, 0] > t:
        return x[1:, ::2]
    return x * 2.0


def conditional_expression(x, t):
    return x if x.sum() > t else np.zeros_like(x)


def if_statement(x, t):
    if x.max() > t:
        v = x[::-1]
    else:
        v = x + 1.0
    return v


def written_after_the_choice(x, t):
    v = x if x.sum() > t else x + 1.0
    x[0, 0] = -5.0          # seen through v where v is x, as in NumPy
    return v


CASES = [row_found, reversed_row_in_a_while, index_and_column, in_nested_loops, written_then_returned, transposed,
         row_or_new_array, itself_or_new_array, returns_in_branches, conditional_expression, if_statement,
         written_after_the_choice]
THRESHOLDS = (-100.0, 0.5, 9.5, 14.0, 30.0, 1e9)


def _check(expected, got, x, y):
    expected, got = (expected, got) if isinstance(expected, tuple) else ((expected,), (got,))
    assert len(got) == len(expected)
    np.testing.assert_array_equal(y, x)         # the argument's final contents
    for e, g in zip(expected, got):
        if not isinstance(e, np.ndarray):
            assert g == e and type(g) is type(e)
            continue
        np.testing.assert_array_equal(g, e)
        assert g.shape == e.shape and g.dtype == e.dtype
        # (the argument itself where NumPy returns it, except where another path returns a view of it: then a view
        # of all of it at the position the kernel returns, which shares its memory as the argument would)
        assert (g is y) <= (e is x)
        assert np.shares_memory(g, y) == np.shares_memory(e, x)
        if e.size:          # a write through the result reaches the argument where it does in NumPy
            e[...] = -7.0
            g[...] = -7.0
            np.testing.assert_array_equal(y, x)
            x[...] = np.arange(x.size).reshape(x.shape)     # and a write into the argument shows through it
            y[...] = np.arange(y.size).reshape(y.shape)
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_a_returned_view_is_numpys(fn):
    compiled = transpile(fn)
    for t in THRESHOLDS:
        x, y = argument("contiguous"), argument("contiguous")
        _check(fn(x, t), compiled(y, t), x, y)


@pytest.mark.parametrize("layout", ["strided", "fortran", "reversed"])
@pytest.mark.parametrize("fn", [row_found, index_and_column, row_or_new_array, returns_in_branches],
                         ids=lambda f: f.__name__)
def test_a_returned_view_of_a_non_contiguous_argument(fn, layout):
    compiled = transpile(fn)
    for t in (-100.0, 9.5, 1e9):
        x, y = argument(layout), argument(layout)
        _check(fn(x, t), compiled(y, t), x, y)


def test_returned_views_of_other_dtypes():
    compiled = transpile(row_found)
    for dtype in (np.int32, np.float32, np.complex128, np.bool_):
        for t in (0, 9, 100):
            x, y = argument("contiguous").astype(dtype), argument("contiguous").astype(dtype)
            e, g = row_found(x, t), compiled(y, t)
            np.testing.assert_array_equal(g, e)
            assert g.dtype == e.dtype and np.shares_memory(g, y) == np.shares_memory(e, x)


def test_one_of_two_arguments_is_returned_as_that_argument():
    def either(a, b, k):
        if k > 0:
            return a
        return b[1:]

    compiled = transpile(either)
    for k in (0, 1):
        a, b = np.zeros(3), np.ones(4)
        got = compiled(a, b, np.int64(k))
        if k:
            assert got is a
        else:
            assert got.base is not None and np.shares_memory(got, b) and not np.shares_memory(got, a)
            got[0] = 5.0
            assert b[1] == 5.0


def test_a_chosen_array_written_through_reaches_the_chosen_argument():
    """Writing through an array that is one of two (`v = a if k > 0 else b; v[0] = 1`), also one returned from a
    called function that chose it inside a tuple, writes exactly the chosen argument (it was a CompileError:
    test_chosen_writes.py)."""
    def helper(a, b, k):
        if k > 0:
            return a, 1
        return b, 2

    def through_helper(a, b, k):
        v, _ = helper(a, b, k)
        v[0] = 9.0
        return v, b

    compiled = transpile(through_helper)
    for k in (0, 1):
        a, b, ref_a, ref_b = np.zeros(3), np.ones(3), np.zeros(3), np.ones(3)
        (v, got_b), (ref_v, ref_b_out) = compiled(a, b, np.int64(k)), through_helper(ref_a, ref_b, np.int64(k))
        for got, want in ((a, ref_a), (b, ref_b), (v, ref_v)):
            np.testing.assert_array_equal(got, want, strict=True)
        assert (v is a, v is b, got_b is b) == (ref_v is ref_a, ref_v is ref_b, ref_b_out is ref_b)


def test_a_returned_array_the_call_cannot_make_is_refused():
    """A reshape (whose position is not per axis) returned from a loop is one the call cannot make from the
    caller's array: a CompileError that says what to do, never a copy in silence."""
    def reshaped(x, t):
        for j in range(x.shape[0]):
            if x[j, 0] > t:
                return x[j].reshape(2, -1)
        return x[0].reshape(2, -1)

    def reshaped_copy(x, t):
        for j in range(x.shape[0]):
            if x[j, 0] > t:
                return x[j].reshape(2, -1).copy()
        return x[0].reshape(2, -1).copy()

    with pytest.raises(CompileError, match=r"returning an array that is one of several arrays.*\.copy\(\)") as info:
        transpile(reshaped)(argument("contiguous"), 3.0)
    # at the function's last `return` (it pointed at its `def` line)
    assert "return x[0].reshape(2, -1)\n" in str(info.value) and "def reshaped" not in str(info.value)
    x = argument("contiguous")
    np.testing.assert_array_equal(transpile(reshaped_copy)(x, 3.0), reshaped_copy(x, 3.0))


def test_an_array_chosen_beside_its_base_is_refused():
    """`v` is a view of `U` on one path and a new array on the other; returned beside `U`, the kernel's copy of it
    would not share U's memory as NumPy's does: refused."""
    def beside(x, k):
        U = x * 2.0
        v = U[1:] if k > 0 else np.ones(3)
        return U, v

    def alone(x, k):
        U = x * 2.0
        v = U[1:] if k > 0 else np.ones(3)
        return v

    with pytest.raises(CompileError, match="returned beside it"):
        transpile(beside)(np.arange(4.0), np.int64(1))
    compiled = transpile(alone)
    for k in (0, 1):
        np.testing.assert_array_equal(compiled(np.arange(4.0), np.int64(k)), alone(np.arange(4.0), k))


def _write_through_a_found_row(x, t):
    r = row_found(x, t)          # a view of x from a called function's loop: writes through it reach x
    r[0] = -1.0
    r[1:] *= 2.0
    return x.sum(), r


def test_a_view_returned_from_a_called_functions_loop_is_written_through():
    compiled = transpile(_write_through_a_found_row)
    for t in THRESHOLDS:
        x, y = argument("contiguous"), argument("contiguous")
        _check(_write_through_a_found_row(x, t), compiled(y, t), x, y)


# ---- random programs: a view (or a new array) returned from a loop's body or a branch, another after it ----------
_RANK_1 = {"run-time": ["x[j]", "x[j, ::-1]", "x[j, 1:]", "x[:, j % 4]", "x.T[j % 4, ::2]", "x[j, ::2]"],
           "static": ["x[0]", "x[-1, ::-1]", "x[:, 2]", "x.T[1, 1:]", "x[0] * 2.0", "x[1] + x[2]", "np.zeros(4)"]}
_RANK_2 = {"run-time": ["x[j:]", "x[j:, ::2]", "x[::-1][j:]", "x.T[:, j:]", "x[j][None]", "x[None, j]"],
           "static": ["x", "x[::-1]", "x.T", "x[1:3]", "x * 2.0", "x[2:] + 1.0", "x[:, ::-1]"]}


def _random_program(seed: int) -> str:
    import random

    rng = random.Random(seed)
    pool = rng.choice([_RANK_1, _RANK_2])
    inside = rng.choice(pool["run-time"] + pool["static"])
    after = rng.choice(pool["static"] + pool["static"][:2])
    if rng.random() < 0.7:
        test = rng.choice(["x[j, 0] > t", "x[j].sum() > t", "x[j, -1] < -t"])
        body = f"for j in range(x.shape[0]):\n    if {test}:\n        return {inside}\n"
    else:
        inside = rng.choice(pool["static"])
        body = f"j = 0\nif x.sum() > t:\n    return {inside}\n"
    return "def program(x, t):\n" + "\n".join("    " + line for line in (body + f"return {after}").splitlines()) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_random_returned_views(seed, tmp_path):
    source = _random_program(seed)
    path = tmp_path / f"program_{seed}.py"
    path.write_text("import numpy as np\n\n" + source)
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    program = namespace["program"]
    compiled = transpile(program)
    for t in (-100.0, 3.5, 9.5, 22.0, 1e9):
        for layout in ("contiguous", "reversed"):
            x, y = argument(layout), argument(layout)
            try:
                _check(program(x, t), compiled(y, t), x, y)
            except AssertionError as e:
                raise AssertionError(f"{source}\nt = {t}, {layout}") from e


def test_a_local_array_chosen_beside_an_argument():
    """`v` is an array the function made on one path, the argument on the other: returned, it is the argument or
    the kernel's value of that array; written after the choice, that value would be stale: refused."""
    def chosen(x, t):
        U = x * 2.0
        v = U if x.sum() > t else x
        return v

    def written_after(x, t):
        U = x * 2.0
        v = U if x.sum() > t else x
        U[0] = 5.0
        return v

    compiled = transpile(chosen)
    for t in (-1e9, 1e9):
        x, y = argument("contiguous"), argument("contiguous")
        _check(chosen(x, t), compiled(y, t), x, y)
    with pytest.raises(CompileError, match="returning an array that is one of several arrays"):
        transpile(written_after)(argument("contiguous"), 0.0)
