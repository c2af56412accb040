"""Whole-function compilation of ordinary Python around NumPy: calls, compile-time values, control flow."""
import functools

import numpy as np
import pytest

import programs_subset as P
from helpers import assert_same, check, tolerance
from transpiler import CompileError, emit, transpile

RNG_SEED = 21
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def layers(sizes, dtype=np.float32):
    return [{"w": (RNG.standard_normal((i, o)) * 0.5).astype(dtype), "b": RNG.standard_normal(o).astype(dtype)}
            for i, o in zip(sizes[:-1], sizes[1:])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_with_list_of_dicts(dtype):
    ls = layers([5, 8, 8, 8, 3], dtype)
    x = RNG.standard_normal((4, 5)).astype(dtype)
    check(P.mlp, x, ls)             # the documented tolerance of the dtype (float64: 1e-12)
    check(P.mlp, x, ls, np.tanh)


def test_repeated_calls_are_one_function():
    blocks = layers([6] * 6)
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    text = emit(P.deep, x, blocks, stage="mlir")
    # residual_block is called five times with the same types: one func.func (its source is long enough to be
    # outlined from the first call), called five times
    assert text.count("func.func private @residual_block") == 1
    assert text.count("call @residual_block") == 5
    typed = emit(P.deep, x, blocks, stage="typed")
    assert typed.count("= call callee='residual_block") == 5
    check(P.deep, x, blocks)
    # a one-line helper stays inline, where it fuses with its neighbours
    assert "func.func private" not in emit(P.mlp, x, layers([6, 6, 6, 6, 2]), stage="mlir")


def _pair_score(a, b):
    return 1 if a + b == 3 else 0


def paired_scores(n, seq):
    table = np.zeros((n, n), np.int32)
    for i in range(n - 1):
        for j in range(i + 2, n):
            table[i, j] = table[i + 1, j - 1] + _pair_score(seq[i], seq[j])   # (nussinov's `match`)
    return table


def test_small_helpers_in_loops_stay_inline():
    """A helper of scalars whose call makes fewer than outline._MIN_OUTLINED_SCALAR_SIZE primitives is inlined at
    every call, not called: an outlined call passes each scalar in a buffer of its own, allocated and freed at every
    iteration of a loop (nussinov's `match` took half of its j-loop's time)."""
    seq = np.array([0, 3, 1, 2, 2, 1, 0], np.int32)
    assert "call" not in emit(paired_scores, 7, seq, stage="typed")
    check(paired_scores, 7, seq)


def _spread(v):
    w = v * 2.0 + 1.0
    w = w - v / 3.0
    w = np.tanh(w) + np.exp(-w) * 0.5
    return w.sum() + w.max() + w.max() * w.mean()


def _spread_three_times(a, b):
    return _spread(a) + _spread(b) + _spread(a[1:])


def test_outlined_function_with_two_alike_checks():
    """Regression: an outlined function's two emptiness checks of one size (w.max() twice) became one value after
    CSE, materialized into two destinations, which did not bufferize (an internal compiler error)."""
    a, b = np.linspace(-2, 2, 11), np.linspace(-1, 3, 7)
    assert "= call callee='_spread" in emit(_spread_three_times, a, b, stage="typed")
    check(_spread_three_times, a, b)
    with pytest.raises(ValueError, match="zero-size array"):
        transpile(_spread_three_times)(a, b[:0])


def test_zip_map_sorted_and_dict_comprehension():
    ws = [RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(3)]
    bs = [RNG.standard_normal(3).astype(np.float32) for _ in range(3)]
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    check(P.ensemble, x, ws, bs)


def test_star_args_kwargs_and_higher_order():
    x = RNG.standard_normal((3, 3))
    check(P.pipeline, x, np.tanh, np.exp, normalize=True)
    check(P.pipeline, x, P.relu, lambda v: v * 3)
    check(P.with_helpers, x)


def test_iterative_solver_with_runtime_while():
    n = 6
    a = RNG.standard_normal((n, n)) + np.eye(n) * 10
    b = RNG.standard_normal(n)
    x, it = transpile(P.jacobi)(a, b)
    x_ref, it_ref = P.jacobi(a, b)
    np.testing.assert_allclose(x, x_ref, rtol=tolerance(x_ref.dtype), atol=tolerance(x_ref.dtype))
    assert it == it_ref and type(it) is type(it_ref)
    check(P.newton_sqrt, np.array([2.0, 9.0, 0.25, 1e4]))


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("threshold", [-1.0, 3.0, 1e9])
def test_runtime_trip_count_with_if_inside(n, threshold):
    x = RNG.standard_normal(7).astype(np.float32)
    f = transpile(P.running)
    acc, count = f(x, np.int64(n), threshold)
    acc_ref, count_ref = P.running(x, n, threshold)
    np.testing.assert_allclose(acc, acc_ref, rtol=tolerance(acc_ref.dtype), atol=tolerance(acc_ref.dtype))
    assert acc.dtype == acc_ref.dtype and int(count) == count_ref


def test_early_return_and_conditional_expression():
    x = RNG.standard_normal(6)
    for limit in (0.5, 10.0):
        y, clipped = transpile(P.early_exit)(x, limit)
        y_ref, clipped_ref = P.early_exit(x, limit)
        assert_same(y, y_ref)
        assert bool(clipped) == clipped_ref
    for t in (-10.0, 10.0):
        check(P.piecewise, x, t)


def test_loop_over_runtime_length():
    x = RNG.standard_normal((5, 3))
    check(P.sum_rows, x)
    f = transpile(P.sum_rows)
    for n in (2, 9):
        y = RNG.standard_normal((n, 3))
        assert_same(f(y), P.sum_rows(y))
    assert f.compilations == 1


def test_mismatched_branch_types_name_both():
    def f(x):
        if x.sum() > 0:
            y = x.astype(np.float32)
        else:
            y = x.astype(np.int32)
        return y
    with pytest.raises(CompileError) as e:
        transpile(f)(np.ones(3))
    assert "float32" in str(e.value) and "int32" in str(e.value)


def test_variable_defined_on_one_branch_only():
    def f(x):
        if x.sum() > 0:
            y = x * 2
        return y
    with pytest.raises(CompileError) as e:
        transpile(f)(np.ones(3))
    assert isinstance(e.value, NameError) and "one path" in str(e.value)


def test_loop_carried_dtype_widening_reaches_a_fixpoint():
    def f(x, n):
        total = 0
        for i in range(n):
            total = total + x[i]
        return total
    x = RNG.standard_normal(4)
    assert_same(transpile(f)(x, np.int64(4)), f(x, 4))


@pytest.mark.parametrize("source, kind", [
    ("    try:\n        pass\n    finally:\n        pass", SyntaxError),
    ("    def g():\n        yield 1", None),
    ("    class K:\n        pass", SyntaxError),
    ("    exec('1')", TypeError),
    ("    global Q", SyntaxError),
    ("    import os\n    os.system('true')", TypeError),
])
def test_unsupported_constructs_raise_compile_error(tmp_path, source, kind):
    path = tmp_path / "m.py"
    path.write_text(f"import numpy as np\n\ndef f(x):\n{source}\n    return x + 1\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"m_{abs(hash(source))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if kind is None:   # a nested generator that is never called: legal, nothing to compile
        assert_same(transpile(mod.f)(np.ones(2)), mod.f(np.ones(2)))
        return
    with pytest.raises(CompileError) as e:
        transpile(mod.f)(np.ones(2))
    assert isinstance(e.value, kind) and e.value.lineno >= 4


def row_mean(x):
    """Long enough (more than 8 primitives) that its second call with the same types becomes a func.call."""
    total = np.sum(x, axis=1)
    r = total / x.shape[1]
    r = r * 1.0
    r = r + 0.0
    r = r * 1.0
    r = r + 0.0
    r = r * 1.0
    return r + 0.0


def normalized_gram(x):
    """The shape of np.cov + np.corrcoef that found it: the call's destination and a linalg op's init were one
    tensor.empty (CSE), so one buffer held two live values."""
    a = x - row_mean(x)[:, None]
    b = x - row_mean(x)[:, None]   # a call
    c = np.dot(b, b.T)
    n = c.shape[0]
    return a, c / np.take(c.reshape(-1), np.arange(n) * (n + 1))[None, :]


def test_a_calls_destination_is_its_own_buffer():
    x = RNG.standard_normal((3, 5))
    assert emit(normalized_gram, x, stage="mlir").count("= call @row_mean") >= 1
    check(normalized_gram, x)


STEPS = 5000


def scalar_loop_over_a_long_constant_range(x):
    s = 0.0
    for i in range(STEPS):
        s += x[i % 3] * 0.5
    return s


def rebinding_loop_over_a_long_constant_range(x):
    for _ in range(1000):
        x = x * 0.999 + 0.001
    return x


def loop_that_needs_its_index_at_compile_time(x):
    weights = [float(k) for k in range(100)]
    total = x[0] * 0
    for i in range(100):
        total = total + weights[i] * x[i % 2]    # a list indexed by the loop variable: unrolled
    return total


@pytest.mark.parametrize("fn", [scalar_loop_over_a_long_constant_range, rebinding_loop_over_a_long_constant_range,
                                loop_that_needs_its_index_at_compile_time])
def test_long_constant_range_loops_are_run_time_loops(fn):
    """A loop over a long compile-time range is one run-time loop, not its body unrolled once per iteration (1000
    iterations of a scalar body took 10 s to compile, 3000 took 104 s); a body that needs the loop variable at
    compile time is still unrolled. Results are NumPy's, bit for bit (the same operations in the same order)."""
    x = np.array([0.25, -1.5, 2.0])
    expected = fn(x)
    got = transpile(fn)(x)
    assert type(got) is type(expected) and np.array_equal(got, expected)
    text = emit(fn, x, stage="mlir")
    assert ("scf.for" in text) == (fn is not loop_that_needs_its_index_at_compile_time)
    assert len(text) < 20_000 or fn is loop_that_needs_its_index_at_compile_time


DIAGONAL = np.diagonal        # a NumPy function held by a module-level name, a closure, a default, a class, a partial


class _Ops:
    diagonal = np.diagonal
    trace = staticmethod(np.trace)


def _with_numpy_functions_in_a_closure():
    diagonal, trace, tanh, total = np.diagonal, np.trace, np.tanh, np.add.reduce

    def f(x, offset):
        return diagonal(x, offset), trace(x), tanh(total(x)), np.sort(x, axis=0)
    return f


def _numpy_functions_held_elsewhere(x, diag=np.diagonal):
    shifted = functools.partial(np.diagonal, offset=1)
    table = {"trace": np.trace, "sorts": [np.sort]}
    return (DIAGONAL(x), diag(x, -1), _Ops.diagonal(x), _Ops.trace(x), shifted(x), table["trace"](x, 1),
            table["sorts"][0](x, axis=1))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_numpy_functions_held_by_variables(shape):
    """A NumPy function (stdlib's np.diagonal, np.trace; a ufunc method; a NumPy call) called through a name that
    holds it, as the same name of the module would be."""
    x = RNG.standard_normal(shape)
    check(_with_numpy_functions_in_a_closure(), x, 0)
    check(_with_numpy_functions_in_a_closure(), x, 1)
    check(_numpy_functions_held_elsewhere, x)


def sum_along_the_loops_axis(x):
    s = x[0, 0]
    for i in range(1000):
        s = s + x.sum(axis=i % 2)[0]      # an axis must be known while compiling: unrolled
    return s


def counting_while(x):
    i = 0
    while i < 1000:                       # a condition known while compiling: unrolled
        x = x + i
        i += 1
    return x


def over_a_list(x):
    for v in [float(k) for k in range(1000)]:
        x = x * v + 1
    return x


def table_of_squares(x):
    squares = []
    for i in range(3000):
        squares.append(i * i)             # Python values only
    return x + squares[-1]


@pytest.mark.parametrize("fn, why", [
    (sum_along_the_loops_axis, "it cannot be a run-time loop: axis must be known at compile time (line "),
    (counting_while, "its condition is known while compiling; past 400 iterations that compute run-time values"),
    (over_a_list, "it iterates over a Python list, whose items are known while compiling; past 400 iterations"),
    (table_of_squares, "list.append() inside a loop tried as a run-time loop (line ")])
def test_a_long_loop_that_cannot_be_a_run_time_loop_is_refused(fn, why, monkeypatch):
    """A loop unrolled while compiling (it cannot be a run-time loop) is refused past 400 iterations that compute
    run-time values (each compiled anew: 600 took 6.6 s, and the limit was 100,000) or 20,000 in all, with a
    CompileError at the loop that says why it is not a run-time loop and what to do instead."""
    from transpiler.frontend import infer
    monkeypatch.setattr(infer, "_MAX_UNROLL", 2000)     # (20,000 Python-only iterations take 2 s)
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(CompileError, match="runs while compiling, since it cannot be a run-time loop") as e:
        transpile(fn)(x)
    assert why in e.value.message and e.value.lineno == fn.__code__.co_firstlineno + 2 - (fn is over_a_list)
    assert "Make it a run-time loop" in e.value.message or "Stack the items" in e.value.message \
        or "as a `for` loop over a range" in e.value.message
