"""Reductions of fused broadcasts (issue 17, item 3) against NumPy at several sizes, interleaved in one process:
L1 distances `np.sum(np.abs(x[:, None, :] - y), axis=-1)` and pairwise distances
`np.sum((p[None] - p[:, None]) ** 2, -1) ** 0.5`, float32 and float64.

    TRANSPILER_CACHE_DIR="" uv run python -m benchmarks.distance_rows [--cpu-time] [--repeats N]

Prints, per kernel, dtype and shape, the medians of NumPy's call and the compiled one and NumPy's over ours (above 1
is faster than NumPy). The compiled side runs on the machine's threads, NumPy on one (it has no threads for these).
--cpu-time: CPU time of the process (all threads) instead of wall time, which counts a descheduled call.
"""
import sys
import time

import numpy as np

from transpiler import transpile
from .harness import cpu_model
from .shapes import l1_distances, pairwise_distances
from .vmath_rows import _median_times

# (n, d) of x for L1 (y has 4/5 as many rows) and of p for the pairwise distances: the table, then more
SHAPES = [(200, 16), (1000, 3), (500, 64), (50, 8), (2000, 3), (100, 256)]


def main(argv):
    clock = time.process_time if "--cpu-time" in argv else time.perf_counter
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 30
    print(f"CPU: {cpu_model()}; {'CPU time of the process' if clock is time.process_time else 'wall time'}")
    print("| kernel | dtype | shape | NumPy | ours | ratio |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for fn in (l1_distances, pairwise_distances):
        compiled = transpile(fn)
        for dtype in ("float32", "float64"):
            for n, d in SHAPES:
                if fn is l1_distances:
                    args, shape = (rng.random((n, d)).astype(dtype), rng.random((n * 4 // 5, d)).astype(dtype)), \
                        f"({n}, {d}) x ({n * 4 // 5}, {d})"
                else:
                    args, shape = (rng.random((n, d)).astype(dtype),), f"({n}, {d})"
                expected, got = fn(*args), compiled(*args)
                assert got.dtype == expected.dtype and got.shape == expected.shape
                np.testing.assert_allclose(got, expected, rtol=1e-4 if dtype == "float32" else 1e-12)
                numpy_time, our_time = _median_times([lambda: fn(*args), lambda: compiled(*args)], repeats, clock)
                print(f"| {fn.__name__} | {dtype} | {shape} | {numpy_time * 1e3:.3f} ms | {our_time * 1e3:.3f} ms "
                      f"| {numpy_time / our_time:.2f}x |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
