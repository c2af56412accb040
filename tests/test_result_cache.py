"""The cache of freed large result buffers (runtime/result_cache.py): a kernel's next large output reuses a freed
result's memory instead of fresh pages, results never share memory, every value is NumPy's, and the cache stays
within its bounds (blocks, bytes), so memory stays bounded over many calls."""
import ctypes
import gc
import os
import pathlib
import resource
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from transpiler import transpile
from transpiler import result_destination
from transpiler.runtime import result_cache

ROOT = pathlib.Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not result_cache.available(), reason="the cache needs glibc (Linux)")


def scaled(x):
    return x * 2.0 + 1.0


def two_results(x):
    return x - 1.0, np.sqrt(np.abs(x))


def outer(a, b):
    return a[:, None] * b[None, :]


def span(a: np.ndarray) -> tuple[int, int]:
    start = a.__array_interface__["data"][0]
    return start, start + a.nbytes


def overlapping(arrays: list) -> list:
    spans = sorted(span(a) for a in arrays)
    return [(x, y) for x, y in zip(spans, spans[1:]) if x[1] > y[0]]


LIMIT = 64 << 20


@pytest.fixture
def empty_cache(monkeypatch):
    """The cache on (kernels compiled in the test call it), with LIMIT bytes and nothing held; the kernels allocate
    their results (an elementwise result would otherwise be the caller's np.empty: result_destination.py)."""
    monkeypatch.setenv("TRANSPILER_RESULT_CACHE_MB", str(LIMIT >> 20))
    monkeypatch.setattr(result_destination, "ENABLED", False)
    gc.collect()              # results of earlier tests waiting in reference cycles: freed before, not during
    result_cache.set_limit(LIMIT)
    result_cache.clear()
    yield
    result_cache.clear()
    monkeypatch.delenv("TRANSPILER_RESULT_CACHE_MB")
    result_cache.set_limit(result_cache.configured_limit())


@pytest.mark.parametrize("shape, dtype", [((1024, 1024), np.float64), ((513, 700), np.float32),
                                          ((3, 349_525), np.int64), ((1 << 17,), np.float64),
                                          ((700, 1500), np.int16), ((300, 300), np.complex128),
                                          ((5, 7), np.float64)])
def test_results_never_share_memory_and_match_numpy(empty_cache, dtype, shape):
    """Eight live results of one kernel, with freed ones in between (so the cache hands blocks out): no two overlap,
    each is NumPy's answer, and writing into one changes no other."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    f = transpile(scaled)
    expected = scaled(x)
    live = []
    for i in range(12):
        out = f(x)
        np.testing.assert_array_equal(out, expected)
        assert out.dtype == expected.dtype and out.shape == expected.shape
        live.append(out)
        if i % 3 == 2:
            del live[0]       # a freed result: its block goes to the cache and back to the next call
    assert not overlapping(live)
    live[0][...] = 0
    for out in live[1:]:
        np.testing.assert_array_equal(out, expected)


def test_a_freed_large_result_is_reused_by_the_next_call(empty_cache):
    x = np.random.default_rng(1).standard_normal((512, 1024))     # 4 MiB results
    f = transpile(scaled)
    first = f(x)
    address = span(first)[0]
    assert result_cache.held() == (0, 0)
    del first
    blocks, nbytes = result_cache.held()
    assert blocks == 1 and x.nbytes <= nbytes <= x.nbytes + 8192
    second = f(x)
    assert span(second)[0] == address and result_cache.held() == (0, 0)
    np.testing.assert_array_equal(second, scaled(x))
    third = f(x)     # the block is in use: a fresh one
    assert span(third)[0] != address
    np.testing.assert_array_equal(third, scaled(x))


def test_each_result_of_a_kernel_goes_to_the_cache(empty_cache):
    x = np.random.default_rng(2).standard_normal((256, 1024))     # 2 MiB each
    f = transpile(two_results)
    a, b = f(x)
    np.testing.assert_array_equal(a, x - 1.0)
    np.testing.assert_array_equal(b, np.sqrt(np.abs(x)))
    del a, b
    assert result_cache.held()[0] == 2
    c, d = f(x)
    assert result_cache.held() == (0, 0) and not overlapping([c, d])
    np.testing.assert_array_equal(c, x - 1.0)
    np.testing.assert_array_equal(d, np.sqrt(np.abs(x)))


def test_small_results_are_freed_not_cached(empty_cache):
    f = transpile(scaled)
    for n in (1, 100, 10_000, (1 << 17) - 1024):      # below MIN_BYTES (1 MiB) as float64
        out = f(np.ones(n))
        del out
        assert result_cache.held() == (0, 0)


def test_a_cached_block_serves_only_sizes_close_to_its_own(empty_cache):
    """A block is reused for a request of at most its size and at least 4/5 of it: never a smaller block (it would
    overflow), and a much larger block is not tied up by a small request."""
    f = transpile(outer)
    big = f(np.ones(1024), np.ones(1024))        # 8 MiB
    address = span(big)[0]
    del big
    smaller = f(np.ones(1024), np.ones(256))     # 2 MiB: the 8 MiB block stays cached
    assert span(smaller)[0] != address and result_cache.held()[0] == 1
    larger = f(np.ones(1024), np.ones(1100))     # larger than the block: never it
    assert span(larger)[0] != address
    close = f(np.ones(1024), np.ones(1000))      # 7.8 MiB: the block
    assert span(close)[0] == address
    for out, (m, n) in ((smaller, (1024, 256)), (larger, (1024, 1100)), (close, (1024, 1000))):
        np.testing.assert_array_equal(out, np.ones((m, n)))


def test_the_cache_stays_within_its_bounds(empty_cache):
    f = transpile(outer)
    widths = [128 * k for k in range(10, 76, 6)]          # 11 distinct sizes, 1.25-9.25 MiB results
    results = [f(np.ones(128), np.ones(n)) for n in widths]
    del results
    blocks, nbytes = result_cache.held()
    assert 0 < blocks <= result_cache.MAX_BLOCKS and nbytes <= LIMIT
    result_cache.set_limit(10 << 20)
    blocks, nbytes = result_cache.held()
    assert nbytes <= 10 << 20
    result_cache.set_limit(0)          # off: every block freed, results freed as they go
    assert result_cache.held() == (0, 0)
    out = f(np.ones(128), np.ones(8192))
    del out
    assert result_cache.held() == (0, 0)


@pytest.mark.parametrize("value, nbytes", [("0", 0), ("1.5", 3 << 19), ("", 0), ("many", 0), ("-3", 0), ("64", LIMIT)])
def test_the_cache_is_off_unless_the_environment_gives_it_a_limit(monkeypatch, value, nbytes):
    monkeypatch.setenv("TRANSPILER_RESULT_CACHE_MB", value)
    assert result_cache.configured_limit() == nbytes and result_cache.enabled() == (nbytes > 0)
    monkeypatch.delenv("TRANSPILER_RESULT_CACHE_MB")
    assert result_cache.configured_limit() == 0 and not result_cache.enabled()


def test_off_kernels_do_not_call_the_cache(monkeypatch):
    """Off (the default), a kernel is compiled without the call (and the cache's code is never compiled for it);
    its large results are freed as before."""
    monkeypatch.delenv("TRANSPILER_RESULT_CACHE_MB", raising=False)
    f = transpile(scaled, disk_cache=False)
    x = np.ones((512, 1024))
    np.testing.assert_array_equal(f(x), scaled(x))
    ((_, kernel), _, _) = f.specialization((x,), {})
    assert result_cache.TAKE_NAME not in kernel.library_functions


def test_a_large_result_after_the_heap_is_trimmed_does_not_fault(empty_cache):
    """The case the cache is for: NumPy's freed temporaries made glibc give its heap's top back to the system, and
    the next call's output would fault on every page (2 MiB: 512 pages, under the huge-page size)."""
    libc = ctypes.CDLL(None)
    x = np.random.default_rng(3).standard_normal((256, 1024))
    f = transpile(scaled)
    f(x)
    for _ in range(3):
        np.tanh(x) * np.exp(x)       # NumPy's own temporaries
        libc.malloc_trim(0)           # what glibc does when enough lies free at the top of its heap
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        out = f(x)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        assert faults < 64, faults
        np.testing.assert_array_equal(out, scaled(x))
        del out


def test_threads_take_distinct_blocks(empty_cache):
    f = transpile(scaled)
    inputs = [np.full((256, 1024), float(t)) for t in range(6)]
    kept, errors = [[] for _ in inputs], []

    def work(t):
        try:
            for i in range(20):
                out = f(inputs[t])
                if not np.array_equal(out, scaled(inputs[t])):
                    errors.append((t, i))
                if i % 4 == 0:
                    kept[t].append(out)
        except Exception as error:     # noqa: BLE001 (reported below)
            errors.append(error)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(len(inputs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not errors and not any(th.is_alive() for th in threads)
    live = [a for arrays in kept for a in arrays]
    assert not overlapping(live)
    for t, arrays in enumerate(kept):
        for a in arrays:
            np.testing.assert_array_equal(a, scaled(inputs[t]))


MEMORY_SCRIPT = textwrap.dedent(r'''
    import gc, os, sys
    import numpy as np
    sys.path.insert(0, ".")
    from transpiler import transpile
    from transpiler.runtime import result_cache

    def rss():
        gc.collect()
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def outer(a, b):
        return a[:, None] * b[None, :]

    f = transpile(outer)
    a = np.ones(1024)
    widths = [128 * k for k in range(9, 90, 7)]          # 1.1-11 MiB results, 12 sizes: hits, misses, evictions
    for n in widths:
        f(a, np.ones(n))
    before = rss()
    most = 0
    for i in range(int(sys.argv[1])):
        out = f(a, np.ones(widths[(i * 5) % len(widths)]))
        kept = out if i % 7 == 0 else None
        most = max(most, result_cache.held()[1])
        del out
    print(before, rss(), most, result_cache.configured_limit(), *result_cache.held())
''')


@pytest.mark.slow     # (about 20 s; the cache is opt-in)
def test_memory_stays_bounded_over_many_large_results(tmp_path):
    """150 calls with results of 1.1-11 MiB in a fresh process: RSS grows by at most the cache's limit and a
    result (it holds at most that), and the cache never holds more than its limit."""
    script = tmp_path / "large_results.py"
    script.write_text(MEMORY_SCRIPT)
    env = dict(os.environ, TRANSPILER_RESULT_CACHE_MB="32")
    proc = subprocess.run([sys.executable, str(script), "150"], capture_output=True, text=True, timeout=300,
                          cwd=str(ROOT), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after, most, limit, blocks, nbytes = map(int, proc.stdout.split())
    assert limit == 32 << 20
    assert most <= limit and nbytes <= limit and blocks <= result_cache.MAX_BLOCKS
    assert (after - before) / 2**20 <= 32 + 12 + 8, (before, after)
