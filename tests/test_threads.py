"""Threaded kernels (OpenMP worksharing loops, loops.outer_parallelism) and promoted reduction accumulators
(loops.promote_accumulators) give NumPy's answer: odd sizes, every dtype, reductions over every axis, strided
inputs; and the same answer as the sequential kernel, bit for bit (parallel dims never split a reduction)."""
import functools
import os
import subprocess
import sys

import numpy as np
import pytest

from transpiler import emit, transpile
from transpiler.runtime.jit import openmp_library

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64"]


def data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 5
    if np.dtype(dtype).kind == "b":
        return x > 0
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    return x.astype(dtype)


def elementwise_and_reductions(x):
    y = x * 2 + x
    return y, y.sum(axis=0), y.max(axis=-1), x.min(), (x > 1).sum(axis=-1)


def bool_ops(x):
    return x & ~x.T.T, x.any(axis=0), x.all(axis=-1)


MAIN_SHAPES = [(1, 1), (7, 1), (1, 1000), (7, 1000), (1000, 7), (3, 5, 7)]
# The default suite's corner of the dtype x shape grid (the slow suite runs all 72): every dtype on the shapes without
# a dim of size one (rows, columns, three dims), the shapes with one on a bool, a small int, float16 and float64
SIZE_ONE_SHAPES = [(1, 1), (7, 1), (1, 1000)]
SIZE_ONE_DTYPES = ["bool", "int8", "float16", "float64"]
MAIN_GRID = [(dtype, shape) if shape not in SIZE_ONE_SHAPES or dtype in SIZE_ONE_DTYPES
             else pytest.param(dtype, shape, marks=pytest.mark.slow)
             for shape in MAIN_SHAPES for dtype in DTYPES]
NON_CONTIGUOUS = {"plain": lambda x: x, "T": lambda x: x.T, "strided": lambda x: x[::3, ::2],
                  "fortran": lambda x: np.asfortranarray(x)}
SUM_DTYPES = ["float16", "float32", "float64", "int32", "uint8"]


def threaded_cases(whole_grid=True):
    """Every (function, arguments) whose threaded result the tests below compare, by name. The shapes are far below
    THREAD_MIN_WORK: the threaded kernels are compiled in a child process with the threshold lowered to 1, so that
    every parallel loop really runs on OpenMP's threads (see `threaded`). `whole_grid=False`: the main grid's
    default corner only (MAIN_GRID's cases not marked slow)."""
    cases = {}
    for dtype in DTYPES:
        for shape in MAIN_SHAPES:
            if whole_grid or shape not in SIZE_ONE_SHAPES or dtype in SIZE_ONE_DTYPES:
                cases[f"main-{dtype}-{shape}"] = (bool_ops if dtype == "bool" else elementwise_and_reductions,
                                                  (data(dtype, shape),))
    for name, make in NON_CONTIGUOUS.items():
        cases[f"noncontig-{name}"] = (softmax, (make(data("float32", (1000, 21), seed=3)),))
    for dtype in SUM_DTYPES:
        cases[f"sums-{dtype}"] = (sums, (data(dtype, (9, 130, 7), seed=5),))
    for fn in FUSED:
        for n in (1, 7, 300):
            cases[f"fused-{fn.__name__}-{n}"] = (fn, (data("float64", (n, n), seed=n) / 5,))
    cases["attention"] = (scaled_softmax, (data("float64", (64, 64), seed=3), data("float32", (64, 64), seed=4)))
    return cases


THREADED_SCRIPT = """
import sys
import numpy as np
from transpiler import transpile
from transpiler.backend import pipeline
from tests.test_threads import elementwise_and_reductions, threaded_cases, threads_now

# a kernel below the default threshold initializes the OpenMP runtime without waking its workers
transpile(lambda x: x * 2, disk_cache=False)(np.ones(10))
start = threads_now()
pipeline.THREAD_MIN_WORK = 1            # read when compiling: every parallel loop of the kernels below is threaded
transpile(elementwise_and_reductions, disk_cache=False)(np.ones((8, 8)))   # 64 elements: threads only if lowered
probe = threads_now()
out = {}
compiled = {}       # one compiled function per function: cases of the same signature share its kernel
with np.errstate(all="ignore"):
    for name, (fn, args) in threaded_cases(whole_grid=sys.argv[2] == "whole").items():
        if fn not in compiled:
            compiled[fn] = transpile(fn, disk_cache=False)     # disk_cache=False: never a kernel compiled elsewhere
        result = compiled[fn](*args)
        for i, value in enumerate(result if isinstance(result, tuple) else (result,)):
            out[f"{name}|{i}"] = value
np.savez(sys.argv[1], **out)
print(start, probe)
"""


def threads_now():
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("Threads:")).split()[1])


@pytest.fixture(scope="module")
def threaded(request, tmp_path_factory):
    """The threaded results of `threaded_cases`, computed in a child process with OMP_NUM_THREADS=2 and
    OMP_DYNAMIC=false (the runtime's default load balancing may give one thread on a busy machine), the threshold
    lowered to 1; asserts that OpenMP's worker threads really started. The main grid's slow cases only when a slow
    test of this module runs in this session (the child compiles every case it computes)."""
    if (os.cpu_count() or 1) < 2 or not os.path.exists("/proc/self/status"):
        pytest.fail("the thread tests need two cores and Linux /proc")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tmp = tmp_path_factory.mktemp("threaded")
    script = tmp / "threaded.py"
    script.write_text(THREADED_SCRIPT)
    whole = any(item.module is request.module and item.get_closest_marker("slow") for item in request.session.items)
    r = subprocess.run([sys.executable, str(script), str(tmp / "out.npz"), "whole" if whole else "corner"],
                       capture_output=True, text=True, cwd=root,
                       env={**os.environ, "PYTHONPATH": root, "OMP_NUM_THREADS": "2", "OMP_DYNAMIC": "false"},
                       timeout=600)
    assert r.returncode == 0, r.stderr
    start, probe = map(int, r.stdout.split())
    assert probe > start, f"a tiny kernel did not start OpenMP's worker threads ({start} -> {probe} threads)"
    data = np.load(tmp / "out.npz")
    results = {}
    for key in data.files:
        name, i = key.split("|")
        results.setdefault(name, {})[int(i)] = data[key]
    return {name: tuple(v[i] for i in range(len(v))) if len(v) > 1 else v[0] for name, v in results.items()}


def both_ways(threaded, name):
    """The threaded result of case `name` (from the child process) and the sequential one, computed here."""
    fn, args = threaded_cases()[name]
    with np.errstate(all="ignore"):
        sequential = transpile(fn, threads=False)(*args)
    return threaded[name], sequential


def assert_identical(a, b):
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            assert_identical(x, y)
        return
    assert np.asarray(a).dtype == np.asarray(b).dtype
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype, shape", MAIN_GRID)
def test_threaded_equals_sequential_and_numpy(threaded, dtype, shape):
    x = data(dtype, shape)
    fn = bool_ops if dtype == "bool" else elementwise_and_reductions
    threaded, sequential = both_ways(threaded, f"main-{dtype}-{shape}")
    with np.errstate(all="ignore"):
        expected = fn(x)
    assert_identical(threaded, sequential)
    for got, want in zip(threaded, expected):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        if np.asarray(want).dtype == np.float16:
            # NumPy adds float16 rows in float16 (axis-0 sums drift by ulps per row); ours accumulate in float32
            np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * np.abs(want).max() * 4)
        elif np.asarray(want).dtype.kind == "f":
            # NumPy sums strided float32 data sequentially (error ~ n eps); ours accumulate in float64
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())
        else:
            np.testing.assert_array_equal(got, want)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("make", NON_CONTIGUOUS)
def test_non_contiguous_inputs(threaded, make):
    x = NON_CONTIGUOUS[make](data("float32", (1000, 21), seed=3))
    threaded, sequential = both_ways(threaded, f"noncontig-{make}")
    assert_identical(threaded, sequential)
    np.testing.assert_allclose(threaded, softmax(x), rtol=1e-5, atol=1e-9)   # strided rows: NumPy sums in order


def sums(x):
    return x.sum(axis=0), x.sum(axis=1), x.sum(axis=(0, 2)), x.sum(), x.mean(axis=-1)


@pytest.mark.parametrize("dtype", SUM_DTYPES)
def test_reductions_over_every_axis(threaded, dtype):
    """Reductions over leading, middle, trailing and all axes: promoted accumulators through nested loops."""
    x = data(dtype, (9, 130, 7), seed=5)
    threaded, sequential = both_ways(threaded, f"sums-{dtype}")
    assert_identical(threaded, sequential)
    exact = sums(x.astype(np.float64)) if x.dtype.kind == "f" else sums(x)   # float16: NumPy sums rows in float16
    for got, want, exact_value in zip(threaded, sums(x), exact):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        tol = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}.get(dtype, 0)
        np.testing.assert_allclose(got, exact_value, rtol=tol, atol=tol * np.abs(exact_value).max())


def test_threads_are_openmp_loops():
    """The llvm stage shows the worksharing loop (when the OpenMP runtime is installed, as the lock file pins)."""
    assert openmp_library() is not None
    text = emit(softmax, np.ones((64, 64), np.float32), stage="llvm")
    assert "omp.wsloop" in text or "omp.parallel" in text


def test_threaded_loops_are_handed_out_in_chunks():
    """Every worksharing loop has a dynamic schedule in chunks of about 1/THREAD_CHUNKS of its iterations: right
    after NumPy a sleeping worker takes 0.1-0.3 ms to wake, and the calling thread takes the chunks it has not
    started instead of waiting for a static half (loops._schedule_in_chunks)."""
    from transpiler.stdlib import nn
    assert openmp_library() is not None
    for fn, args in [(softmax, (np.ones((64, 64), np.float32),)),
                     (nn.layer_norm, (np.ones((256, 768)), np.ones(768), np.zeros(768))),
                     (nn.gelu, (np.ones((7, 3)),))]:
        text = emit(fn, *args, stage="llvm")
        loops_ = [line.strip() for line in text.splitlines() if line.strip().startswith("omp.wsloop")]
        assert loops_ and all(line.startswith("omp.wsloop schedule(dynamic = ") for line in loops_), (fn, loops_)


def loop_stage(fn, *args):
    """The module of `fn` right after linalg became loops (pipeline.LOOPS), for the rewrites in loops.py."""
    from mlir import ir
    from transpiler import driver
    from transpiler.backend import pipeline

    compiled = transpile(fn)
    bound = compiled._bind(args, {})
    key, _, _ = compiled._flatten(bound)
    typed = driver.trace_free_typing(fn, list(key), list(bound.arguments))
    with ir.Context() as ctx:   # the module keeps its context alive
        module = driver.to_mlir(typed, ctx)
        pipeline.optimize(module)
        pipeline.run(module, pipeline.pipeline_text(pipeline.BUFFERIZE))
        pipeline.run(module, pipeline.pipeline_text(pipeline.LOOPS))
    return module


def rowsum(x):
    return x.sum(axis=-1)


def test_reduction_accumulator_lives_in_a_register():
    """A row sum loads its accumulator once per row, not once per element (loops.promote_accumulators)."""
    from mlir import ir
    from transpiler.backend import loops

    module = loop_stage(rowsum, np.ones((4, 8), np.float32))
    with module.context, ir.Location.unknown():
        assert loops.promote_accumulators(module) >= 1
    assert "iter_args" in str(module)


THREAD_COUNT_SCRIPT = """
import os, sys
import numpy as np
from transpiler import transpile
from transpiler.backend.pipeline import THREAD_MIN_WORK

def threads():
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("Threads:")).split()[1])

def body(x):
    return np.tanh(x * 2 + 1)

f = transpile(body)
f(np.ones((10, 10), np.float32))                # far below THREAD_MIN_WORK: runs in the calling thread
start = threads()                               # (the first call initializes the OpenMP runtime)
f(np.ones((20, 10), np.float32))
small = threads()
# ~60 ops per element, most of them in the inner (sequential) loop over a row: above it, OpenMP starts its workers
f(np.ones((THREAD_MIN_WORK // 1024, 1024), np.float32))
print(start, small, threads())
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not os.path.exists("/proc/self/status"),
                    reason="needs two cores and Linux /proc")
def test_only_loops_with_enough_work_start_threads(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = tmp_path / "thread_count.py"
    script.write_text(THREAD_COUNT_SCRIPT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=root,
                       env={**os.environ, "PYTHONPATH": root, "OMP_NUM_THREADS": "2", "OMP_DYNAMIC": "false"})
    assert r.returncode == 0, r.stderr
    start, small, large = map(int, r.stdout.split())
    assert small == start
    assert large > small


def reversed_rows(x):
    a = x + 1
    return a[::-1] * 2


def transposed_read(x):
    a = np.exp(x)
    return a - a.T


def shifted_rows(x):
    a = x * 2
    return a[1:] - a[:-1]


def leading_axis_sum(x):
    return x / x.sum(axis=0)


def row_chain(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=-1, keepdims=True)
    return e / s, (e / s)[::-1, ::-1]


FUSED = [reversed_rows, transposed_read, shifted_rows, leading_axis_sum, row_chain]


@pytest.mark.parametrize("fn", FUSED)
@pytest.mark.parametrize("n", [1, 7, 300])
def test_fused_loops_keep_numpys_answer(threaded, fn, n):
    """loops.fuse_parallel_loops only fuses loops whose iterations touch their own rows: reads of another row of a
    buffer the first loop writes (reversed, transposed, shifted, reduced over rows) must keep them apart."""
    x = data("float64", (n, n), seed=n) / 5
    threaded, sequential = both_ways(threaded, f"fused-{fn.__name__}-{n}")
    assert_identical(threaded, sequential)
    expected = fn(x)
    for got, want in zip(threaded if isinstance(threaded, tuple) else (threaded,),
                         expected if isinstance(expected, tuple) else (expected,)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_softmax_is_one_row_loop():
    """max, exp, sum and divide of a row run in one loop nest (the row stays in cache)."""
    from mlir import ir
    from transpiler.backend import loops

    module = loop_stage(softmax, np.ones((4, 8, 16), np.float32))
    with module.context, ir.Location.unknown():
        assert loops.fuse_parallel_loops(module) >= 4
    assert str(module).count("scf.parallel") == 1


def test_softmax_s_divide_loop_reads_the_row_sum_from_a_register():
    """loops.forward_stored_values: the divide loop used the row sum through a load per element of the buffer the
    sum loop had just stored it in; LLVM could not hoist that load past the in-place stores of the quotients, and
    the loop stayed scalar. Now it uses the stored value; the exp loop likewise reads the row max once."""
    from mlir import ir
    from transpiler.backend import loops

    module = loop_stage(softmax, np.ones((4, 8, 16), np.float32))
    with module.context, ir.Location.unknown():
        loops.fuse_parallel_loops(module)
        loops.promote_accumulators(module)
        assert loops.forward_stored_values(module) == 2
    loops_found = []
    module.operation.walk(lambda op: (op.name == "scf.for" and loops_found.append(op)) or ir.WalkResult.ADVANCE)
    assert len(loops_found) == 4
    for loop in loops_found:     # each load in a row loop reads the element of this iteration
        iv = loop.regions[0].blocks[0].arguments[0]
        for op in loop.regions[0].blocks[0].operations:
            if op.name == "memref.load":
                assert any(index == iv for index in op.operands[1:]), str(op)


def reload_after_write(x):
    s = x.sum(axis=-1, keepdims=True)
    y = x / s
    s[0] = 1.0          # a write between the store and the next loop: that loop must read the new value
    return y, x * s


@pytest.mark.parametrize("fn", [softmax, reload_after_write])
def test_forwarded_values_keep_numpys_answer(fn):
    x = data("float32", (5, 7, 33), seed=6) if fn is softmax else data("float64", (6, 9), seed=7)
    x = np.abs(x) + 1 if fn is reload_after_write else x
    got, want = transpile(fn)(x), fn(x)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def scaled_softmax(s, mask):
    return softmax(s / np.sqrt(s.shape[-1]) + mask)


def test_attention_scores_and_a_float64_softmax_are_one_row_loop(threaded):
    """The scores' loop fuses with the softmax's although the max's empty-axis check flag is computed between
    them (loads and stores of fresh 0-d buffers move above the first loop), and the compensated sum's two
    accumulators start from distinct fills (no copies between the loops)."""
    from mlir import ir
    from transpiler.backend import loops

    s, mask = data("float64", (64, 64), seed=3), data("float32", (64, 64), seed=4)
    module = loop_stage(scaled_softmax, s, mask)
    with module.context, ir.Location.unknown():
        loops.fuse_parallel_loops(module)
    assert str(module).count("scf.parallel") == 1 and "memref.copy" not in str(module)
    threaded, sequential = both_ways(threaded, "attention")
    assert_identical(threaded, sequential)
    np.testing.assert_allclose(threaded, scaled_softmax(s, mask), rtol=1e-13, atol=1e-15)


def test_loops_after_a_blas_call_run_on_the_calling_thread(monkeypatch, request):
    """runtime/openmp.py: OpenBLAS's workers spin for a while after a product made by NumPy's matmul (a float16
    product), so the calling thread's OpenMP loops run single-threaded until a kernel starts BLAS_SPIN_S later;
    results are the same either way. Only on OpenBLAS's own pool (the default): on the kernels' pool
    (runtime/blas_pool.py, TRANSPILER_BLAS_POOL=1) there are no other workers to make room for."""
    from transpiler.runtime import blas, blas_pool, jit, openmp

    jit.load_runtime_libraries()
    if blas_pool.installed():
        blas_pool.uninstall()
        request.addfinalizer(lambda: blas_pool.install(blas.openblas_path()))
    library = openmp._library
    assert library is not None
    full = library.omp_get_max_threads()

    def attention_like(q, k):
        s = q @ k
        return np.exp(s - s.max(axis=-1, keepdims=True))
    q = data("float16", (300, 64), seed=1)
    k = data("float16", (64, 300), seed=2)
    compiled = transpile(attention_like)
    first = compiled(q, k)                                  # its BLAS call narrows this thread's loops
    assert library.omp_get_max_threads() == 1
    assert_identical(compiled(q, k), first)                 # single-threaded loops: the same result
    monkeypatch.setattr(openmp, "_last_blas", openmp._last_blas - 2 * openmp.BLAS_SPIN_S)
    openmp.before_kernel()                                  # what the next kernel call does first
    assert library.omp_get_max_threads() == full
    np.testing.assert_allclose(first, attention_like(q, k), rtol=1e-2, atol=1e-3)


SCHEDULE_SCRIPT = """
import sys
import numpy as np
from tests.test_threads import schedule_workloads
out = {}
for name, (fn, args) in schedule_workloads().items():
    from transpiler import transpile
    result = transpile(fn)(*args)      # the disk cache of these children only (child_kernel_cache)
    out[name] = result
np.savez(sys.argv[1], **out)
"""


def schedule_workloads():
    """Kernels whose work is split over threads: row loops with reductions, a float32 product (chunks of gemm), a
    float64 product, stacks of float64 products (over the batch; one matrix in chunks), a complex product, a stencil;
    inputs fixed by seed (the same in every process)."""
    from transpiler.stdlib import nn
    x = data("float32", (96, 513), seed=3)
    w = data("float32", (513, 700), seed=4)
    grid = data("float64", (300, 300), seed=5)
    return {"softmax": (nn.softmax, (x,)),
            "layer_norm": (nn.layer_norm, (x, np.ones(513, np.float32), np.zeros(513, np.float32))),
            "matmul_f32": (lambda a, b: np.tanh(a @ b), (x, w)),
            "matmul_f64": (lambda a, b: a @ b, (grid, grid.T.copy())),
            "stack_f64": (lambda a, b: a @ b, (data("float64", (12, 64, 80), seed=6), data("float64", (80, 48), seed=7))),
            "one_matrix_stack_f64": (lambda a, b: a @ b, (grid[None], grid.T.copy())),
            "complex128": (lambda a, b: a @ b, (grid + 1j * grid.T, grid[:, :200] - 2j)),
            "stencil": (lambda g: 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:]),
                        (grid,))}


@functools.cache
def one_thread_schedule_results():
    """The one-thread kernels' results of `schedule_workloads`, computed once for every thread setting below."""
    return {name: transpile(fn, threads=False, disk_cache=False)(*args)
            for name, (fn, args) in schedule_workloads().items()}


# A busy process spins at the lowest priority: OpenMP's load balancing still counts it as running (what the setting
# tests), and it takes no time from the suite's other worker process.
BUSY = "import os; os.nice(19)\nwhile True: pass"


@pytest.fixture(scope="module")
def child_kernel_cache(tmp_path_factory):
    """A kernel cache directory for the children of the test below only: the first child compiles the kernels, the
    others load them (the OpenMP settings act when a kernel runs, not when it is compiled), and no kernel compiled
    by another test (under another THREAD_MIN_WORK, say) comes in."""
    return tmp_path_factory.mktemp("child-kernels")


@pytest.mark.parametrize("setting", [
    {"OMP_DYNAMIC": "false"},                                      # static teams of every thread
    pytest.param({"OMP_NUM_THREADS": "1"}, marks=pytest.mark.slow),
    pytest.param({"OMP_NUM_THREADS": "3"}, marks=pytest.mark.slow),   # more threads than cores
    {"KMP_DYNAMIC_MODE": "load_balance", "OMP_DYNAMIC": "true", "busy": "2"},   # the default, on a loaded machine
    pytest.param({"OMP_SCHEDULE": "dynamic,1", "KMP_BLOCKTIME": "0"}, marks=pytest.mark.slow),
], ids=["static", "one-thread", "three-threads", "load-balance-busy", "blocktime-0"])
def test_results_are_identical_under_every_thread_setting(tmp_path, child_kernel_cache, setting):
    """The threaded kernel's bits do not depend on how many threads run it or how busy the machine is: the same
    as the one-thread kernel's in this process."""
    if openmp_library() is None:
        pytest.fail("the OpenMP runtime (intel-openmp) is missing")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = tmp_path / "schedule.py"
    script.write_text(SCHEDULE_SCRIPT)
    setting = dict(setting)
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(int(setting.pop("busy", 0)))]
    try:
        r = subprocess.run([sys.executable, str(script), str(tmp_path / "out.npz")], capture_output=True, text=True,
                           cwd=root, timeout=300, env={**os.environ, "PYTHONPATH": root,
                                                       "TRANSPILER_CACHE_DIR": str(child_kernel_cache), **setting})
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out.npz")
    one_thread = one_thread_schedule_results()
    assert set(got.files) == set(one_thread)
    for name, expected in one_thread.items():
        np.testing.assert_array_equal(got[name], expected, err_msg=name)


BLOCK_TIME_SCRIPT = """
import ctypes
import numpy as np
from transpiler import transpile
from transpiler.runtime import jit

def scaled(x):
    return np.tanh(x) * 2.0

x = np.linspace(-3.0, 3.0, 1 << 21)
out = transpile(scaled, disk_cache=False)(x)
omp = ctypes.CDLL(jit.openmp_library())
print(omp.kmp_get_blocktime(), bool(np.allclose(out, np.tanh(x) * 2.0)))
"""


@pytest.mark.parametrize("env, expected", [({}, "5"), ({"KMP_BLOCKTIME": "1"}, "1"), ({"KMP_BLOCKTIME": "20"}, "20")],
                         ids=["ours", "the-users-1", "the-users-20"])
def test_workers_spin_5_ms_after_a_kernel_unless_the_user_set_a_block_time(tmp_path, env, expected):
    """5 ms (runtime/jit.py: the next kernel after a short NumPy call finds the workers awake); the user's
    KMP_BLOCKTIME wins."""
    if openmp_library() is None:
        pytest.fail("the OpenMP runtime (intel-openmp) is missing")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = tmp_path / "block_time.py"
    script.write_text(BLOCK_TIME_SCRIPT)
    child_env = {k: v for k, v in os.environ.items() if k != "KMP_BLOCKTIME"}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=root,
                       env={**child_env, "PYTHONPATH": root, **env}, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [expected, "True"]
