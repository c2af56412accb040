"""Fast right after NumPy: the compiled function called straight after the NumPy code it replaces, call by call,
as the two meet in a real program (issue 17, item 5), beside the timing of `python -m benchmarks`, which runs
blocks of calls per side with a pause between them (timing.SWITCH_PAUSE_S) so that each side runs as it would
alone.

    uv run python -m benchmarks.interleaved [--only NAME,...] [--pairs N] [--out DIR]

Without the pause the two sides' thread pools meet: after a multi-threaded product NumPy's OpenBLAS keeps its
workers spinning for about 0.1 s, and a compiled kernel that starts in that window shares the cores with them.
Each row gives NumPy's median, ours timed apart (blocks and pauses, the main benchmark's way) and ours timed in
pairs (a NumPy call, then ours, repeated), each with its ratio to NumPy's median of the same mode, and the median
page faults of one of our calls in each mode (the process's minor faults: a fresh output faults on every page, see
runtime/result_cache.py). The bar is the workload's own (benchmarks.md), held in both modes.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import statistics
import sys
import time

from transpiler import transpile

from . import timing
from .harness import DEFAULT_OUT, compare, cpu_model, git_revision, log
from .workloads import WORKLOADS

INTERLEAVED_WORKLOADS = [w for w in WORKLOADS if w.name in ("gelu", "softmax", "layer_norm", "attention")]


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def paired(numpy_call, ours_call, pairs: int, faults: list | None = None) -> tuple[list, list]:
    """Seconds per call of each side, the calls alternating one by one with no pause; our calls' page faults are
    appended to `faults` if given."""
    numpy_s, ours_s = [], []
    for _ in range(pairs):
        start = time.perf_counter()
        numpy_call()
        middle = time.perf_counter()
        before = minor_faults()
        ours_call()
        end = time.perf_counter()
        if faults is not None:
            faults.append(minor_faults() - before)
        numpy_s.append(middle - start)
        ours_s.append(end - middle)
    return numpy_s, ours_s


def faults_per_call(call, calls: int) -> float:
    """Median page faults of one call, called back to back."""
    counts = []
    for _ in range(calls):
        before = minor_faults()
        call()
        counts.append(minor_faults() - before)
    return statistics.median(counts)


def measure(workload, pairs: int, budget: timing.Budget) -> dict:
    label, args, kwargs = workload.make_args("full", {})
    fn = workload.fn
    compiled = transpile(fn, disk_cache=False)
    numpy_call, ours_call = (lambda: fn(*args, **kwargs)), (lambda: compiled(*args, **kwargs))
    compare(ours_call(), numpy_call(), workload.rtol)      # compiles, and checks before anything is timed
    sides = [timing.Side("numpy", numpy_call, timing.timed(numpy_call)[1]),
             timing.Side("ours", ours_call, timing.timed(ours_call)[1])]
    timing.run_rounds(sides, budget)
    apart = {s.name: statistics.median(s.samples) for s in sides}
    apart_faults = faults_per_call(ours_call, 20)
    time.sleep(timing.SWITCH_PAUSE_S)
    faults: list = []
    numpy_s, ours_s = paired(numpy_call, ours_call, pairs, faults)
    together = {"numpy": statistics.median(numpy_s), "ours": statistics.median(ours_s)}
    return {"workload": workload.name, "label": label, "bar": workload.bar, "pairs": pairs,
            "apart_median_s": apart, "interleaved_median_s": together,
            "ours_faults_per_call": {"apart": apart_faults, "interleaved": statistics.median(faults)},
            "apart_x_numpy": apart["numpy"] / apart["ours"],
            "interleaved_x_numpy": together["numpy"] / together["ours"]}


def table(rows: list) -> str:
    lines = ["| work | NumPy (apart / interleaved) | ours apart | ours interleaved | our faults a call (apart / "
             "interleaved) | bar |", "|---|---|---|---|---|---|"]
    for r in rows:
        a, t, f = r["apart_median_s"], r["interleaved_median_s"], r["ours_faults_per_call"]
        ok = min(r["apart_x_numpy"], r["interleaved_x_numpy"]) >= r["bar"]
        lines.append(f"| {r['label']} | {a['numpy'] * 1e3:.3f} / {t['numpy'] * 1e3:.3f} ms "
                     f"| {a['ours'] * 1e3:.3f} ms ({r['apart_x_numpy']:.2f}x) "
                     f"| {t['ours'] * 1e3:.3f} ms ({r['interleaved_x_numpy']:.2f}x) "
                     f"| {f['apart']:g} / {f['interleaved']:g} "
                     f"| ≥ {r['bar']:g}x {'✓' if ok else '✗'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.interleaved", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="workloads to run, comma-separated (default: the four nn kernels)")
    p.add_argument("--pairs", type=int, default=300, help="NumPy-then-ours pairs timed per workload")
    p.add_argument("--min-time", type=float, default=1.0, help="seconds of samples per side, timed apart")
    p.add_argument("--out", default=DEFAULT_OUT)
    options = p.parse_args(argv)
    chosen = [w for w in INTERLEAVED_WORKLOADS if not options.only or w.name in options.only.split(",")]
    budget = timing.Budget(min_repeats=20, min_time=options.min_time, max_time=10 * options.min_time,
                           warmup_time=0.2)
    load_before = os.getloadavg()[0]
    rows = []
    for workload in chosen:
        log(f"[{workload.name}] apart, then {options.pairs} pairs")
        rows.append(measure(workload, options.pairs, budget))
    header = (f"medians, ratio = NumPy / ours in the same mode; {cpu_model()}, {len(os.sched_getaffinity(0))} "
              f"cores, revision {git_revision()}, {datetime.datetime.now().isoformat(timespec='minutes')}, "
              f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(header + "\n\n" + table(rows))
    os.makedirs(options.out, exist_ok=True)
    path = os.path.join(options.out, "interleaved.json")
    with open(path, "w") as f:
        json.dump({"header": header, "rows": rows}, f, indent=1)
    log(f"wrote {path}")
    return 0 if all(min(r["apart_x_numpy"], r["interleaved_x_numpy"]) >= r["bar"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
