"""NumPy's RuntimeWarnings from compiled functions: the kernel reports the floating-point events its threads raised
(backend/fp_status.py), and a call whose kernel raised one that the error state reports runs again as NumPy, which
issues exactly NumPy's warnings (runtime/errstate.py, api.py). Each case compares the warnings (category and text)
and the values with NumPy's own. The warnings are opt-in (TRANSPILER_FP_WARNINGS=1, errstate.WARNINGS): every test
here turns them on."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from transpiler import transpile
from transpiler.runtime import errstate


@pytest.fixture(autouse=True)
def _fp_warnings_on(monkeypatch):
    monkeypatch.setattr(errstate, "WARNINGS", True)
    monkeypatch.setenv("TRANSPILER_FP_WARNINGS", "1")        # (for child processes)


def _run(fn, *args):
    """(result, [(category, message)]) of fn(*args), every warning recorded (arguments copied: some are written)."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted({(w.category.__name__, str(w.message)) for w in caught})


def _same_as_numpy(fn, *args, compiled=None, rtol=0.0):
    """The compiled function's warnings and values are NumPy's (within `rtol`: the kernel's exp and log are
    within an ulp of NumPy's, docs/guarantees.md); returns the warnings."""
    compiled = compiled or transpile(fn)
    expected, numpy_warnings = _run(fn, *args)
    result, our_warnings = _run(compiled, *args)
    assert our_warnings == numpy_warnings
    if expected is None:
        assert result is None
    else:
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=0)
    return our_warnings


def _divide(x, y):
    return x / y


def _log(x):
    return np.log(x)


def _log1p(x):
    return np.log1p(x)


def _exp(x):
    return np.exp(x)


def _sqrt(x):
    return np.sqrt(x)


def _mean(x):
    return np.mean(x)


def _arcsin(x):
    return np.arcsin(x)


def _sinh(x):
    return np.sinh(x)


def _sin(x):
    return np.sin(x)


def _power(x, y):
    return np.power(x, y)


CASES = [   # (name, function, arguments, NumPy's warning messages)
    ("divide by zero", _divide, (np.ones(5), np.array([1.0, 0.0, 2.0, -0.0, 4.0])),
     ["divide by zero encountered in divide"]),
    ("divide by zero, float32", _divide, (np.ones(5, np.float32), np.array([1, 0, 2, 3, 4], np.float32)),
     ["divide by zero encountered in divide"]),
    ("0 / 0", _divide, (np.zeros(3), np.zeros(3)), ["invalid value encountered in divide"]),
    ("log(0)", _log, (np.array([1.0, 0.0, 2.0]),), ["divide by zero encountered in log"]),
    ("log(0), float32", _log, (np.array([1.0, 0.0, 2.0], np.float32),), ["divide by zero encountered in log"]),
    ("log(-1)", _log, (np.array([1.0, -1.0, -np.inf]),), ["invalid value encountered in log"]),
    ("log1p(-1) and log1p(-2)", _log1p, (np.array([-1.0, -2.0, 1.0]),),
     ["divide by zero encountered in log1p", "invalid value encountered in log1p"]),
    ("exp overflow", _exp, (np.array([1.0, 1000.0]),), ["overflow encountered in exp"]),
    ("exp overflow, float32", _exp, (np.array([1.0, 100.0], np.float32),), ["overflow encountered in exp"]),
    ("float32 multiply overflow", lambda x: x * x, (np.array([1e30, 1.0], np.float32),),
     ["overflow encountered in multiply"]),
    ("sqrt(-1)", _sqrt, (np.array([-1.0, 4.0]),), ["invalid value encountered in sqrt"]),
    ("mean of an empty array", _mean, (np.zeros(0),),
     ["Mean of empty slice", "invalid value encountered in scalar divide"]),
    ("integer floor division by zero", lambda x, y: x // y, (np.array([3, 4, 5]), np.array([1, 0, 2])),
     ["divide by zero encountered in floor_divide"]),
    ("integer remainder by zero", lambda x, y: x % y, (np.array([3, 4], np.int32), np.array([0, 3], np.int32)),
     ["divide by zero encountered in remainder"]),
    ("uint8 floor division by zero", lambda x, y: x // y, (np.array([3, 4], np.uint8), np.array([0, 3], np.uint8)),
     ["divide by zero encountered in floor_divide"]),
    ("nan to int cast", lambda x: x.astype(np.int64), (np.array([np.nan, 2.0]),),
     ["invalid value encountered in cast"]),
    ("arcsin(2)", _arcsin, (np.array([2.0, 0.5]),), ["invalid value encountered in arcsin"]),
    ("0 ** -1", lambda x: x ** -1.0, (np.array([0.0, 0.5]),), ["divide by zero encountered in power"]),
    ("(-2) ** 0.5, arrays (vector_math.power computes its NaN)", _power, (np.array([-2.0, 2.0]), np.array([0.5, 3.0])),
     ["invalid value encountered in power"]),
    ("(-2) ** 0.5, float32 arrays", _power, (np.array([-2.0, 2.0], np.float32), np.array([0.5, 3.0], np.float32)),
     ["invalid value encountered in power"]),
    ("0 ** -1, float32 arrays", _power, (np.array([0.0, 2.0], np.float32), np.array([-1.0, 3.0], np.float32)),
     ["divide by zero encountered in power"]),
    ("float32 power overflow", _power, (np.array([1e30, 2.0], np.float32), np.array([3.0, 3.0], np.float32)),
     ["overflow encountered in power"]),
    ("sinh overflow", _sinh, (np.array([1000.0, 1.0]),), ["overflow encountered in sinh"]),
    ("sin(inf)", _sin, (np.array([np.inf, 1.0]),), ["invalid value encountered in sin"]),
    ("float16 divide", lambda x: x / 0, (np.ones(3, np.float16),), ["divide by zero encountered in divide"]),
    ("a reduction of an overflowing product", lambda x: (x * x).sum(), (np.array([1e200, 1.0, 2.0]),),
     ["overflow encountered in multiply"]),
    ("inf - inf in a sum", lambda x: x.sum() - x.sum(), (np.array([np.inf, 1.0]),),
     ["invalid value encountered in scalar subtract"]),
]


@pytest.mark.parametrize("name, fn, args, messages", CASES, ids=[c[0] for c in CASES])
def test_warnings_are_numpys(name, fn, args, messages):
    assert _same_as_numpy(fn, *args) == sorted(("RuntimeWarning", m) for m in messages)


QUIET = [   # NumPy warns nothing: the kernel's flags may be set (a NaN compared in a vector), nothing is issued
    ("maximum with nan", lambda x: np.maximum(x, 1.0), np.array([np.nan, 2.0] * 20)),
    ("minimum with nan", lambda x: np.minimum(x, 1.0), np.array([np.nan, 2.0] * 20)),
    ("comparison with nan", lambda x: x < 1.0, np.array([np.nan, 2.0] * 20)),
    ("max of an array with nan", lambda x: x.max(), np.array([np.nan, 2.0] * 20)),
    ("where over nan", lambda x: np.where(x > 0, x, 0.0), np.array([np.nan, -2.0, 3.0] * 20)),
    ("log(inf)", _log, np.array([np.inf, 2.0] * 20)),
    ("exp underflow (under is ignored by default)", _exp, np.array([-1000.0, 1.0])),
    ("inf arithmetic that raises nothing", lambda x: x + 1.0, np.array([np.inf, -np.inf, np.nan])),
]


@pytest.mark.parametrize("name, fn, x", QUIET, ids=[c[0] for c in QUIET])
def test_no_warning_where_numpy_gives_none(name, fn, x):
    assert _same_as_numpy(fn, x) == []


def test_ordinary_data_runs_the_kernel_only():
    """No event, no replay: the kernel's result is the call's."""
    for fn, x in [(lambda x: x + 1, np.arange(100.0)), (_log, np.linspace(0.1, 100.0, 1000)),
                  (_exp, np.linspace(-700.0, 700.0, 1000)), (lambda x: x // 3, np.arange(100)),
                  (lambda x: np.sqrt(x) / (x + 1), np.arange(1000.0))]:
        compiled = transpile(fn)
        _same_as_numpy(fn, x, compiled=compiled, rtol=1e-15)
        assert compiled.replays == 0


def _softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def _causal_attention(q, k, v):
    mask = (1 - np.tri(q.shape[0], dtype=q.dtype)) * -1e10      # picoGPT's mask: exp(-1e10 - max) is 0, no event
    return _softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_models_run_the_kernel_only_under_the_default_state(dtype, monkeypatch):
    """The kernels a model is made of raise no event on data where NumPy warns nothing: -inf and -1e10 masks into
    softmax, tanh far from 0, exp far below 0. A spurious flag here makes every call of the model run twice (the
    kernel, then NumPy), as it does in GPT-2 (below). The other test files run under errstate(all="ignore")
    (conftest) and cannot see it."""
    from transpiler.stdlib.gpt2.model import gpt2
    from transpiler.stdlib.gpt2.weights import CONFIGS, random_params
    rng = np.random.default_rng(7)
    masked = np.where(rng.random((32, 48)) < 0.3, -np.inf, rng.standard_normal((32, 48))).astype(dtype)
    q, k, v = (rng.standard_normal((24, 16)).astype(dtype) for _ in range(3))
    wide = (rng.standard_normal(5000) * 30).astype(dtype)
    for fn, args in [(_softmax, (masked,)), (_causal_attention, (q, k, v)), (_gelu, (wide,)),
                     (lambda x: np.tanh(x), (wide,)), (lambda x: np.exp(-np.abs(x) * 40), (wide,))]:
        compiled = transpile(fn)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compiled(*args)
        assert compiled.replays == 0, fn
    # The known spurious event (errstate.py): GPT-2's float64 layer_norm divides in a whole vector register, whose
    # unused lanes raise "invalid". The call is right (NumPy's values, no warning) but runs twice.
    params, config = random_params(CONFIGS["tiny"], seed=0), CONFIGS["tiny"]
    forward = transpile(gpt2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        logits = forward([5, 17, 3, 99], **params, n_head=config["n_head"])
    np.testing.assert_array_equal(logits, gpt2([5, 17, 3, 99], **params, n_head=config["n_head"]))
    assert forward.replays == 1
    monkeypatch.setattr(errstate, "WARNINGS", False)            # the default: the kernel's result, no replay
    np.testing.assert_allclose(forward([5, 17, 3, 99], **params, n_head=config["n_head"]), logits, rtol=1e-5,
                               atol=1e-5 * np.abs(logits).max())
    assert forward.replays == 1


def test_errstate_ignore_silences_and_under_warn_warns():
    compiled = transpile(_divide)
    x, y = np.ones(3), np.array([0.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(compiled(x, y), [np.inf, 1.0, np.inf])
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(compiled(np.zeros(3), y), [np.nan, 0.0, np.nan])
    with np.errstate(divide="ignore"):      # invalid still warns
        assert _same_as_numpy(_divide, np.zeros(3), y, compiled=compiled) == [
            ("RuntimeWarning", "invalid value encountered in divide")]
    assert compiled.replays == 1            # (the ignored events ran the kernel only)
    with np.errstate(under="warn"):
        assert _same_as_numpy(_exp, np.array([-1000.0, 1.0])) == [
            ("RuntimeWarning", "underflow encountered in exp")]


def test_filterwarnings_error_raises_numpys_runtime_warning():
    compiled = transpile(_divide)
    compiled(np.ones(2), np.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="divide by zero encountered in divide") as ours:
            compiled(np.ones(2), np.zeros(2))
        with pytest.raises(RuntimeWarning) as numpys:
            _divide(np.ones(2), np.zeros(2))
    assert str(ours.value) == str(numpys.value)
    assert ours.traceback[-1].path == numpys.traceback[-1].path      # raised at the user's line, as NumPy's


def test_the_quick_call_path_warns_too():
    compiled = transpile(lambda x: 1.0 / x)
    for _ in range(3):       # the first call compiles; the next ones take the cheap path (api._quick_key)
        _, caught = _run(compiled, np.array([0.0, 1.0]))
        assert caught == [("RuntimeWarning", "divide by zero encountered in divide")]
    assert compiled._quick
    _, caught = _run(compiled, np.array([2.0, 1.0]))
    assert caught == []


def test_arguments_written_in_place_are_written_once():
    """The replay starts from the arguments the caller passed: the kernel's writes are undone first."""
    def scale(a, d):
        a /= d
        a += 1.0
        return a.sum()

    def bump(counts, x):
        counts[0] += 1
        return np.log(x)

    for fn, args in [(scale, (np.arange(4.0), np.array([1.0, 0.0, 2.0, 0.0]))),
                     (bump, (np.zeros(3, np.int64), np.array([0.0, 1.0])))]:
        mine = [a.copy() for a in args]
        numpys = [a.copy() for a in args]
        compiled = transpile(fn)
        with np.errstate(all="ignore"):
            compiled(*[a.copy() for a in args])        # compiled outside the watch
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = compiled(*mine)
        with warnings.catch_warnings(record=True) as numpy_caught:
            warnings.simplefilter("always")
            expected = fn(*numpys)
        assert [str(w.message) for w in caught] == [str(w.message) for w in numpy_caught] != []
        np.testing.assert_array_equal(result, expected)
        for a, b in zip(mine, numpys):
            np.testing.assert_array_equal(a, b)


def test_a_big_argument_written_in_place_is_not_copied_and_warns_from_the_flags():
    """Above KEEP_LIMIT_BYTES of written arguments the call keeps no copy (writing one element of a big array stays
    O(1), measured here by the memory the call allocates): an event is then warned from the kernel's flags, in
    NumPy's wording with the function's name for the operation's, and the kernel's writes stand (written once)."""
    import tracemalloc

    def accumulate(x, i, v):
        x[i] += v

    compiled = transpile(accumulate)
    big = np.zeros(1_000_000)
    compiled(big, 0, 1.0)
    tracemalloc.start()
    try:
        compiled(big, 1, 2.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < big.nbytes // 10
    big[3] = 1e308
    _, caught = _run(compiled, big, 3, 1e308)    # (_run copies big: the copy is written)
    assert caught == [("RuntimeWarning", "overflow encountered in accumulate (an argument written in place was too "
                       "big to run the call again as NumPy: the kernel's floating-point flags)")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="ignore"):
            compiled(big, 3, 1e308)
    assert big[3] == np.inf and big[1] == 2.0 and compiled.replays == 0
    small = np.zeros(100)
    small[3] = 1e308
    assert _same_as_numpy(accumulate, small, 3, 1e308, compiled=compiled) == [   # small: kept, NumPy's warning
        ("RuntimeWarning", "overflow encountered in scalar add")]


def test_a_kernel_without_float_arithmetic_keeps_no_copy_of_what_it_writes():
    """Writing one element of a big argument stays O(1): a kernel that cannot raise an event (no float arithmetic,
    comparison or conversion) keeps no copy of its written arguments for a replay."""
    def put(x, i, v):
        x[i] = v

    def add(x, i, v):
        x[i] += v

    big = np.zeros(1_000_000)
    for fn, may_raise in [(put, False), (add, True)]:
        compiled = transpile(fn)
        compiled(big, 3, 2.0)
        (_, kernel), = [entry for entry in compiled._cache.values()]
        assert kernel.may_raise is may_raise
    assert big[3] == 4.0


def test_events_before_a_numpy_callback_are_kept():
    """np.sort runs as a NumPy call from the kernel, and NumPy clears the floating-point flags: the division's event
    before it still warns (runtime/errstate.numpy_inside_kernel)."""
    def f(x):
        return np.sort(1.0 / x)

    assert _same_as_numpy(f, np.array([3.0, 0.0, 1.0])) == [
        ("RuntimeWarning", "divide by zero encountered in divide")]


def test_overflow_before_a_numpy_callback_is_kept():
    """The kernel's overflow before a NumPy call from it (np.median, whose ufuncs clear the flags) is raised into the
    flags again after it, in MXCSR where the kernel reads them: glibc's feraiseexcept set overflow and underflow in
    the x87 status word only, and the warning was lost."""
    def f(x):
        return np.median(np.exp(x))

    assert _same_as_numpy(f, np.array([3.0, 1000.0, 1.0])) == [
        ("RuntimeWarning", "overflow encountered in exp")]


def test_float16_product_overflow_warns():
    """A float16 product is NumPy's matmul called from the kernel (runtime/blas.callback); its overflow reaches the
    kernel's flags (it was lost as above)."""
    a = np.ones((8, 64), np.float16)
    a[0, 0] = 60000.0
    assert _same_as_numpy(lambda x, y: x @ y, a, np.full((64, 16), 2.0, np.float16)) == [
        ("RuntimeWarning", "overflow encountered in matmul")]


def test_products_report_their_events_on_gemm_and_few_row_paths():
    """inf * 0 in a float32 product: NumPy's NaN and "invalid value encountered in matmul", from OpenBLAS's gemm
    (8 rows by 16 columns) and from our few-row loops (8 rows by a 16 MB b), whose events are the kernel threads'
    own; each call ran the kernel and then NumPy. (The NaN on NumPy's calling thread: docs/guarantees.md.)"""
    compiled = transpile(lambda x, y: x @ y)
    for m, k, n in ((8, 1024, 16), (8, 2000, 2000)):
        a = np.ones((m, k), np.float32)
        a[0, 5] = np.inf
        b = np.full((k, n), 1.5, np.float32)
        b[5, 3] = 0.0
        assert _same_as_numpy(lambda x, y: x @ y, a, b, compiled=compiled) == [
            ("RuntimeWarning", "invalid value encountered in matmul")]
    # in the last column: OpenBLAS's worker computes it in NumPy's threaded call, whose warning then depends on
    # OpenBLAS's threads (none with 2); the call's is NumPy's, whichever
    a[0, 5], b[5, 3], a[7, 1999], b[1999, 1999] = 1.0, 1.5, np.inf, 0.0
    _same_as_numpy(lambda x, y: x @ y, a, b, compiled=compiled)
    assert compiled.replays == 3


def test_few_row_products_computed_by_numpy_keep_the_kernels_events(monkeypatch):
    """Should the few-row loops fail to compile, the kernel's call computes the product with NumPy's matmul
    (runtime/few_rows_library.py), which clears the flags: the sqrt's event before it was lost (no warning)."""
    from transpiler.runtime import few_rows_library

    def fails(symbol):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(few_rows_library, "_compiled", {})
    monkeypatch.setattr(few_rows_library, "_compile", fails)
    a, b = np.ones((8, 2000), np.float32), np.full((2000, 2000), 1.5, np.float32)

    def f(x, y, z):
        return np.sqrt(x), y @ z

    expected, numpy_warnings = _run(f, np.array([-1.0]), a, b)
    result, our_warnings = _run(transpile(f, threads=False, disk_cache=False), np.array([-1.0]), a, b)
    assert our_warnings == numpy_warnings == [("RuntimeWarning", "invalid value encountered in sqrt")]
    np.testing.assert_array_equal(result[1], expected[1])


_THREADED = """
import warnings, numpy as np
from transpiler import transpile
from transpiler.backend import pipeline
f = transpile(lambda x, y: np.sqrt(x) / y + 1.0)
n = 4 * pipeline.THREAD_MIN_WORK
x, y = np.ones(n), np.ones(n)
for where in (10, n - 10):           # the first half runs on the calling thread, the second on the worker
    y[:] = 1.0
    y[where] = 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = f(x, y)
    assert [str(w.message) for w in caught] == ["divide by zero encountered in divide"], (where, caught)
    assert np.isinf(r[where]) and r[where + 1] == 2.0
y[:] = 1.0
x[n - 10] = -1.0                     # invalid in the worker's half
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    f(x, y)
assert [str(w.message) for w in caught] == ["invalid value encountered in sqrt"], caught
x[n - 10] = 1.0
with warnings.catch_warnings():
    warnings.simplefilter("error")
    f(x, y)
    f(x, np.where(np.arange(n) % 2 == 0, 1.0, np.nan))    # NaN in the workers' compares: nothing
assert f.replays == 3, f.replays
print("ok")
"""


def test_threaded_kernels_report_the_workers_events(tmp_path):
    """Each OpenMP worker clears its flags at the start of a parallel region and hands them to the calling thread
    at its end. In a child process with two static threads (the runtime's load balancing may give one thread on a
    busy machine), the faulting element is in the calling thread's half or in the worker's."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = tmp_path / "threaded.py"      # (a compiled function's source must be in a file)
    script.write_text(_THREADED)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": root, "OMP_NUM_THREADS": "2", "OMP_DYNAMIC": "false"})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_a_kernel_loaded_from_the_disk_cache_warns(fresh_kernel_cache):
    """The status word is part of the kernel's ABI: a kernel linked from the disk cache reports events too, and keeps
    the compiler's knowledge of what it can raise and of the events it folded."""
    def f(x, y):
        return x / y + np.float64(1.0) / 0.0

    args = (np.ones(3), np.array([1.0, 0.0, 2.0]))
    first = transpile(f)
    _same_as_numpy(f, *args, compiled=first)
    second = transpile(f)
    warned = _same_as_numpy(f, *args, compiled=second)
    assert warned == [("RuntimeWarning", "divide by zero encountered in divide"),
                      ("RuntimeWarning", "divide by zero encountered in scalar divide")]
    (_, first_kernel), = first._cache.values()
    (_, kernel), = second._cache.values()
    assert (first_kernel.origin, kernel.origin) == ("compiled", "disk cache")
    assert kernel.may_raise and kernel.folded_events == first_kernel.folded_events == 4


def test_known_differences_are_as_documented():
    """docs/guarantees.md's known differences, asserted so that fixing one fails here and changes the docs: INT_MIN
    // -1 raises no flag (NumPy warns overflow), and an event of a result never used is not reported (LLVM removes
    the computation)."""
    def int_min(x):
        return x // -1

    def unused(x):
        y = x / 0.0      # noqa: F841 - never used: NumPy still computes it and warns
        return x + 1.0

    x = np.array([-2**63, 4])
    result, caught = _run(transpile(int_min), x)
    expected, numpy_caught = _run(int_min, x)
    np.testing.assert_array_equal(result, expected)
    assert (caught, numpy_caught) == ([], [("RuntimeWarning", "overflow encountered in floor_divide")])
    result, caught = _run(transpile(unused), np.ones(2))
    expected, numpy_caught = _run(unused, np.ones(2))
    np.testing.assert_array_equal(result, expected)
    assert (caught, numpy_caught) == ([], [("RuntimeWarning", "divide by zero encountered in divide")])


def _hoisted_math(x, y):
    return x * np.exp(y) + np.sqrt(y)


@pytest.mark.parametrize("n", [3, 1 << 16])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_an_event_of_math_hoisted_before_a_parallel_loop_is_reported(dtype, n):
    """`np.sqrt(y)` of a 0-d y is computed once before the loop (backend/uniform_math.py); its "invalid" was lost
    for float32 and int32 x: the calling thread saved its flags before the parallel region and cleared them at its
    start, and LLVM had moved the (pure) sqrt between the two. The calling thread now keeps its flags in the region
    (only the workers clear theirs). Also with the workers running (n = 65536)."""
    x = np.arange(n, dtype=dtype)
    assert _same_as_numpy(_hoisted_math, x, np.float64(-1.0), rtol=1e-6) == [
        ("RuntimeWarning", "invalid value encountered in sqrt")]
    assert _same_as_numpy(_hoisted_math, x, np.float64(4.0), rtol=1e-6) == []
