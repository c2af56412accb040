"""Resources: memory stays flat over many calls (results are freed, failed calls leak nothing), and concurrent calls
from several threads, with mixed signatures and a cold cache, give the right answers.

(A kernel cache shared between processes does not exist yet, so nothing here tests one.)
"""
import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import numpy as np

from helpers import assert_same
from transpiler import transpile

ROOT = pathlib.Path(__file__).resolve().parent.parent

MEMORY_SCRIPT = textwrap.dedent(r'''
    import os, sys, gc
    import numpy as np
    sys.path.insert(0, ".")
    from transpiler import transpile

    PAGE = os.sysconf("SC_PAGE_SIZE")

    def rss():
        gc.collect()
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * PAGE

    def several(x, y):
        return np.tanh(x) * y, x.sum(axis=0), (x @ x.T)[0], x.max()

    def gather(w, ids):
        return w[ids] * 2

    def scalar(x):
        return float(x.sum()) + 1.0

    def returns_argument(x, y):
        return x, y + 1

    def python_list(ids, w):
        return w[ids] + w[range(len(ids))]

    def overflow(x):
        return x + 300

    x = np.random.default_rng(0).standard_normal((32, 32))
    w = np.ones((64, 32))
    f_several, f_gather, f_scalar, f_arg, f_list, f_overflow = map(transpile, (
        several, gather, scalar, returns_argument, python_list, overflow))
    calls = {
        "several outputs": lambda: f_several(x, 2.0),
        "strided input (copied)": lambda: f_several(x[::2, ::2], np.float32(3)),
        "gather": lambda: f_gather(w, np.arange(40)),
        "gather out of range (IndexError)": lambda: f_gather(w, np.array([0, 99])),
        "size mismatch (ValueError)": lambda: f_several(x, np.ones(5)),
        "python scalar result": lambda: f_scalar(x),
        "argument returned": lambda: f_arg(x, x),
        "list argument": lambda: f_list([1, 2, 3, 4, 5, 6, 7, 8], w),
        "compile error (OverflowError)": lambda: f_overflow(np.ones(4, np.uint8)),
    }
    N = int(sys.argv[1])
    report = []
    for name, call in calls.items():
        for _ in range(300):          # compile and warm up: allocator pools, caches
            try:
                call()
            except (IndexError, ValueError, OverflowError):
                pass
        before = rss()
        for _ in range(N):
            try:
                call()
            except (IndexError, ValueError, OverflowError):
                pass
        after = rss()
        report.append((name, before, after))
    for name, before, after in report:
        print(f"{name}|{before}|{after}")
''')


def test_memory_stays_flat_over_10000_calls(tmp_path):
    """Each of 9 kinds of call 10,000 times in a fresh process: RSS may not grow by more than a small slack (a leaked
    result of the `several outputs` call alone would be ~17 MB; a leaked 8 KB buffer per call 80 MB)."""
    script = tmp_path / "memory_calls.py"
    script.write_text(MEMORY_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), "10000"], capture_output=True, text=True, timeout=600,
                          cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-3000:]
    growth = {}
    for line in proc.stdout.strip().splitlines():
        name, before, after = line.split("|")
        growth[name] = (int(after) - int(before)) / 2**20
    assert len(growth) == 9, proc.stdout
    slack_mb = 4.0
    leaks = {name: round(mb, 2) for name, mb in growth.items() if mb > slack_mb}
    assert not leaks, f"RSS grew (MiB) over 10,000 calls: {leaks}; all: {growth}"


# ---- threads ------------------------------------------------------------------------------------------------------
def poly(x, y):
    return x * x - 3 * y + 1


def reduce_rows(x):
    return x.sum(axis=-1), x.max(axis=0)


def mixed(a, b):
    return np.where(a > b, a - b, np.abs(b) * 2), a @ b.T


def run_threads(work, count=8):
    """Run work(t) for t in range(count) on that many threads at once; fail if one hangs."""
    threads = [threading.Thread(target=work, args=(t,)) for t in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=600)
    assert not any(th.is_alive() for th in threads), "a thread hung"


def test_concurrent_calls_with_mixed_signatures_are_correct():
    """8 threads, started together on cold compiled functions, each cycling through its own mix of dtypes, ranks
    and size-1 patterns (so several specializations compile concurrently, some of them for the same key)."""
    functions = [transpile(poly), transpile(reduce_rows), transpile(mixed)]
    dtypes = [np.float32, np.float64, np.int32, np.int64, np.float16, np.uint8]
    errors = []
    barrier = threading.Barrier(8)

    def inputs(rng, dtype, shape):
        if np.dtype(dtype).kind == "f":
            return rng.standard_normal(shape).astype(dtype)
        return rng.integers(0, 50, size=shape).astype(dtype)

    def work(t):
        rng = np.random.default_rng(t)
        try:
            barrier.wait()
            for i in range(40):
                dtype = dtypes[(t + i) % len(dtypes)]
                shape = [(5, 4), (1, 4), (3, 1), (7,)][(t * 3 + i) % 4]
                fn = functions[i % 3]
                if fn.py_func is poly:
                    args = (inputs(rng, dtype, shape), inputs(rng, dtypes[t % len(dtypes)], shape[-1:]))
                elif fn.py_func is reduce_rows:
                    args = (inputs(rng, dtype, shape),)
                else:
                    a = inputs(rng, dtype, (3, 4))
                    args = (a, inputs(rng, dtype, ((3, 4), (1, 4))[i % 2]))
                with np.errstate(all="ignore"):
                    expected = fn.py_func(*args)
                    actual = fn(*args)
                assert_same(actual, expected)    # the documented tolerance of the result's dtype
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append((t, repr(e)))

    run_threads(work)
    assert not errors, errors[:5]
    for fn in functions:
        assert fn.compilations == len(fn._cache)   # each key compiled once, however many threads raced for it


def test_concurrent_calls_on_one_specialization_do_not_share_results():
    """Many threads calling the same kernel at once each get their own, correct, result buffers."""
    f = transpile(poly)
    f(np.ones(3), np.ones(3))
    errors = []
    barrier = threading.Barrier(8)

    def work(t):
        try:
            barrier.wait()
            for i in range(300):
                x = np.full(64, float(t * 1000 + i))
                y = np.full(64, float(t))
                out = f(x, y)
                expected = poly(x, y)
                if not np.array_equal(out, expected):
                    errors.append((t, i))
                    return
        except Exception as e:  # noqa: BLE001
            errors.append((t, repr(e)))

    run_threads(work)
    assert not errors, errors[:5]


def large_temporaries(x):
    y = np.exp(x.astype(np.float64) / 4)            # > 4 MiB: allocated on huge pages (transpiler/huge_pages.py)
    return y / y.sum(axis=-1, keepdims=True), y.T[::3]


def test_large_buffers_on_huge_pages_are_correct_and_freed():
    from transpiler import emit

    assert "@transpiler_malloc" in emit(large_temporaries, np.ones((4, 4), np.float32), stage="llvm")
    x = np.random.default_rng(0).standard_normal((1100, 700)).astype(np.float32)   # 6 MB as float64
    compiled = transpile(large_temporaries)
    for got, want in zip(compiled(x), large_temporaries(x)):
        np.testing.assert_allclose(got, want, rtol=1e-13)
    def rss_mib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    for _ in range(20):
        compiled(x)
    before = rss_mib()
    for _ in range(200):
        compiled(x)
    assert rss_mib() - before < 64
