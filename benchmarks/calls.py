"""The cost of a call: compiled functions on tiny inputs against the NumPy code they replace, interleaved in one
process. The kernel's own work is a few nanoseconds here, so the difference is the call's overhead (binding,
the specialization lookup, the kernel's frame, adopting the result), which issue 17 bounds by 5 us.

    TRANSPILER_CACHE_DIR="" uv run python -m benchmarks.calls [--rounds N]

`python -m benchmarks` runs the same rows as its `call_overhead` workload (group `calls`), in its table.

Each sample times a block of BLOCK calls with time.perf_counter_ns (one call, about a microsecond for NumPy, is too
short to time alone), the sides alternate block by block, and the medians over the rounds are printed.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from transpiler import transpile

BLOCK = 2000
OVERHEAD_BAR_US = 5.0


def add_one(x):
    return x + 1


def scaled_sum(x, y, a):
    return a * x + y


def rows():
    """(label, function, arguments, bar in us or None). Issue 17's bar is for a call with one small array; the call
    with three arguments is measured beside it, without a bar (each further argument adds its own share)."""
    x = np.arange(10.0)
    y = np.ones(10)
    return [("x + 1, (10,) float64", add_one, (x,), OVERHEAD_BAR_US),
            ("a * x + y, two (10,) float64 and a float (no bar: three arguments)", scaled_sum, (x, y, 2.5), None),
            ("x + 1, (4, 4) float32", add_one, (np.ones((4, 4), np.float32),), OVERHEAD_BAR_US)]


def block_us(call, args) -> float:
    start = time.perf_counter_ns()
    for _ in range(BLOCK):
        call(*args)
    return (time.perf_counter_ns() - start) / BLOCK / 1000


def measure(fn, args, rounds: int) -> tuple[float, float]:
    """Medians (us per call) of NumPy's function and the compiled one, blocks interleaved."""
    compiled = transpile(fn, disk_cache=False)
    compiled(*args)
    numpy_us, ours_us = [], []
    for _ in range(rounds):
        numpy_us.append(block_us(fn, args))
        ours_us.append(block_us(compiled, args))
    return statistics.median(numpy_us), statistics.median(ours_us)


def measure_all(rounds: int = 30) -> list[dict]:
    """Every row, for the harness's JSON and table (report.calls_rows)."""
    out = []
    for label, fn, args, bar in rows():
        numpy_us, ours_us = measure(fn, args, rounds)
        out.append({"label": label, "numpy_us": numpy_us, "ours_us": ours_us, "overhead_us": ours_us - numpy_us,
                    "bar_us": bar, "rounds": rounds, "block": BLOCK})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    ns = parser.parse_args(argv)
    from .harness import cpu_model    # (harness imports this module)
    print(f"CPU: {cpu_model()}; medians of {ns.rounds} blocks of {BLOCK} calls")
    print(f"| call | NumPy | compiled | overhead (bar {OVERHEAD_BAR_US:g} us, one array) | ratio |")
    print("|---|---|---|---|---|")
    for row in measure_all(ns.rounds):
        print(f"| {row['label']} | {row['numpy_us']:.2f} us | {row['ours_us']:.2f} us | {row['overhead_us']:.2f} us | "
              f"{row['numpy_us'] / row['ours_us']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
