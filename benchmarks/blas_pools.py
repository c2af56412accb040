"""NumPy's own code on OpenBLAS's own thread pool and on the one pool (runtime/blas_pool.py), side by side: the
measurement that decides whether the pool can be the default (a user's NumPy code must not get slower because a
compiled function ran; issue 17, item 5).

    uv run python -m benchmarks.blas_pools [--only NAME,...] [--pairs N]

Call by call in one process: each pair times one call on each pool, in alternating order, so that slow drifts of
a shared machine fall on both sides alike; the pool is installed and uninstalled between the calls (the first
product after a switch wakes the other pool's workers: a fraction of a millisecond against the calls' tens). Prints
each side's median and the median of the per-pair ratios (pool / OpenBLAS's own), and in how many pairs the pool
was slower. Run it with KMP_USE_YIELD=2, as TRANSPILER_BLAS_POOL=1 sets it, or the pool's workers spin as the
runtime's default does.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from .harness import cpu_model, git_revision
from .workloads import WORKLOADS

NAMES = ("gelu", "softmax", "layer_norm", "attention", "gpt2_t8")


def numpy_call(workload):
    label, args, kwargs = workload.make_args("full", {})
    return label, (lambda: workload.fn(*args, **kwargs))


def paired(call, pairs: int, use) -> tuple[list, list]:
    """Seconds per call on OpenBLAS's own pool and on the one pool, the order alternating pair by pair."""
    times = {"own": [], "pool": []}
    for side in ("own", "pool"):
        use(side)
        call()                      # warm: compiled nothing, but the first call allocates and wakes the workers
    for i in range(pairs):
        for side in (("own", "pool") if i % 2 == 0 else ("pool", "own")):
            use(side)
            start = time.perf_counter()
            call()
            times[side].append(time.perf_counter() - start)
    return times["own"], times["pool"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.blas_pools", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="workloads, comma-separated (default: " + ",".join(NAMES) + ")")
    p.add_argument("--pairs", type=int, default=30)
    options = p.parse_args(argv)
    from transpiler.runtime import blas, blas_pool, jit
    jit.load_runtime_libraries()
    if jit.openmp_library() is None or blas.openblas_path() is None:
        print("needs intel-openmp and NumPy's bundled OpenBLAS")
        return 1
    path = blas.openblas_path()

    def use(side):
        blas_pool.install(path) if side == "pool" else blas_pool.uninstall()
    chosen = [w for w in WORKLOADS if w.name in (options.only.split(",") if options.only else NAMES)]
    print(f"NumPy's own code, OpenBLAS's pool against the one pool, {options.pairs} pairs; {cpu_model()}, "
          f"{len(os.sched_getaffinity(0))} cores, revision {git_revision()}, KMP_USE_YIELD="
          f"{os.environ.get('KMP_USE_YIELD')}, load average {os.getloadavg()[0]:.1f}\n")
    print("| NumPy's | OpenBLAS's pool | one pool | pool / own, per pair | pool slower in |\n|---|---|---|---|---|")
    was = blas_pool.installed()
    try:
        for workload in chosen:
            label, call = numpy_call(workload)
            own, pool = paired(call, options.pairs, use)
            ratios = [b / a for a, b in zip(own, pool)]
            print(f"| {label} | {statistics.median(own) * 1e3:.3f} ms | {statistics.median(pool) * 1e3:.3f} ms "
                  f"| {statistics.median(ratios):.3f} | {sum(r > 1 for r in ratios)}/{len(ratios)} |", flush=True)
    finally:
        use("pool" if was else "own")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
