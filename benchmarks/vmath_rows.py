"""One-thread rows of docs/performance.md's "Vectorized math against NumPy": each function of
backend/vector_math.py, compiled without threads, against NumPy's own loop, interleaved in one process.

    OMP_NUM_THREADS=1 TRANSPILER_CACHE_DIR="" uv run python -m benchmarks.vmath_rows [--cpu-time] [--sizes 1e4,1e5]
        [NAME ...]

Prints, per function, dtype and size, the medians of NumPy's and the compiled call and their ratio (NumPy's time
over ours: above 1 is faster than NumPy). --cpu-time times each call in CPU time of the thread
(time.thread_time) instead of wall time: on a loaded machine the process is descheduled mid-call, which wall time
counts and CPU time does not (docs/performance.md measured under load 5-6 that way). --sizes: the element counts
(10^5 and 10^6 unless given).

An AVX-512 machine times an AVX2-only one side by side with both sides' AVX2 code: TRANSPILER_TARGET_CPU=x86-64-v3
compiles the kernels for it (backend/target.py), and NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL" (NumPy 2.4's
names) makes NumPy dispatch its AVX2 loops; the header names the loops NumPy runs.
"""
import sys
import time

import numpy as np

from transpiler import transpile
from .harness import cpu_model


def _inputs(name, dtype, n, rng):
    if name == "log":
        return (np.exp(rng.uniform(-20, 20, n)).astype(dtype),)
    if name == "log1p":
        return (np.exp(rng.uniform(-20, 5, n)).astype(dtype) - 0.5,)
    if name == "power":
        return rng.uniform(0, 10, n).astype(dtype), rng.uniform(-5, 5, n).astype(dtype)
    if name in ("arcsin", "arccos"):
        return (rng.uniform(-1, 1, n).astype(dtype),)
    if name == "arctan2":
        return rng.uniform(-10, 10, n).astype(dtype), rng.uniform(-10, 10, n).astype(dtype)
    return (rng.uniform(-10, 10, n).astype(dtype),)


FUNCTIONS = {
    "log": lambda x: np.log(x),
    "sin": lambda x: np.sin(x),
    "cos": lambda x: np.cos(x),
    "tan": lambda x: np.tan(x),
    "tanh": lambda x: np.tanh(x),
    "exp": lambda x: np.exp(x),
    "arctan": lambda x: np.arctan(x),
    "arctan2": lambda y, x: np.arctan2(y, x),
    "power": lambda x, y: np.power(x, y),
    "arcsin": lambda x: np.arcsin(x),
    "arccos": lambda x: np.arccos(x),
    "expm1": lambda x: np.expm1(x),
    "log1p": lambda x: np.log1p(x),
    "sinh": lambda x: np.sinh(x),
    "cosh": lambda x: np.cosh(x),
}


def _median_times(calls, repeats=30, clock=time.perf_counter):
    """Medians of `repeats` timings of each call, interleaved, the order reversed every other round: the call
    timed right after another one pays for what that one left in the caches (compiled gelu ran 1.5x slower right
    after NumPy's gelu than after its own twin), so a fixed order would favour the later call."""
    times = [[] for _ in calls]
    for round_ in range(repeats):
        order = list(enumerate(calls))
        for i, call in (order if round_ % 2 == 0 else order[::-1]):
            start = clock()
            call()
            times[i].append(clock() - start)
    return [float(np.median(t)) for t in times]


def numpy_simd() -> str:
    """The SIMD levels NumPy dispatches its loops to here (NPY_DISABLE_CPU_FEATURES removes some)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return "unknown"
    return " ".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f)) or "baseline only"


def main(names):
    clock = time.perf_counter
    if "--cpu-time" in names:
        names = [n for n in names if n != "--cpu-time"]
        clock = time.thread_time
    sizes = (10 ** 5, 10 ** 6)
    if "--sizes" in names:
        at = names.index("--sizes")
        sizes = tuple(int(float(n)) for n in names[at + 1].split(","))
        names = names[:at] + names[at + 2:]
    print(f"CPU: {cpu_model()}; NumPy's loops: {numpy_simd()}; one thread; "
          f"{'CPU time of the thread' if clock is time.thread_time else 'wall time'}")
    print("| function | dtype | n | NumPy | ours | ratio |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for name in names or FUNCTIONS:
        fn = FUNCTIONS[name]
        compiled = transpile(fn, threads=False)
        for dtype in ("float32", "float64"):
            for n in sizes:
                args = _inputs(name, dtype, n, rng)
                compiled(*args)
                numpy_time, our_time = _median_times([lambda: fn(*args), lambda: compiled(*args)], clock=clock)
                print(f"| {name} | {dtype} | {n:.0e} | {numpy_time * 1e6:.0f} us | {our_time * 1e6:.0f} us "
                      f"| {numpy_time / our_time:.2f}x |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
