"""Threads on a shared machine: NumPy, the compiled function (threads) and the same kernel on one thread
(`threads=False`), timed side by side, first on the machine as it is ("idle"), then with busy-loop processes
pinned to cores ("loaded": the first on core 0, the second on core 1 ...), as a browser tab, a CI neighbour or
another Dask worker would hold them.

    uv run python -m benchmarks.loaded [--busy 1,2] [--only NAME,...] [--min-time S] [--out DIR]

The bars, in every mode: the threaded kernel at least as fast as its one-thread version (within the noise: 0.9x)
and at least as fast as NumPy. Prints a markdown table whose header names the CPU, and writes the figures as JSON.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

import numpy as np

from transpiler import transpile

from . import timing
from .harness import DEFAULT_OUT, compare, cpu_model, git_revision, log
from .workloads import WORKLOADS, Workload

SAME_AS_SINGLE = 0.9     # threaded / one-thread speed below this fails the bar (medians of a noisy machine)


def decay(h, a, i):
    """The kernel of the issue that found the problem: 4.95x NumPy on idle cores, 0.23x with two busy processes."""
    return np.exp(-h * i - a * i**2)


def decay_args(scale, shared):
    n = 100_000 if scale == "full" else 1000
    return f"decay ({n},) float64", (0.01, 1e-6, np.arange(n, dtype=np.float64)), {}


LOADED_WORKLOADS = [Workload("decay", decay, decay_args, bar=1, rtol=1e-12)] + [
    w for w in WORKLOADS if w.name in ("gelu", "softmax", "layer_norm", "attention", "jacobi_2d", "gpt2_t8")]


def busy_processes(count: int) -> list:
    """`count` processes that spin forever, the k-th pinned to core k (modulo the cores this process may use)."""
    cores = sorted(os.sched_getaffinity(0))
    code = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass"
    return [subprocess.Popen([sys.executable, "-c", code, str(cores[k % len(cores)])]) for k in range(count)]


def measure(workload, busy: int, budget, shared) -> dict:
    label, args, kwargs = workload.make_args("full", shared)
    fn = workload.fn
    key = workload.group or workload.name
    if key not in shared:
        shared[key] = (transpile(fn, disk_cache=False), transpile(fn, disk_cache=False, threads=False))
    threaded, single = shared[key]
    calls = {"numpy": lambda: fn(*args, **kwargs), "threads": lambda: threaded(*args, **kwargs),
             "one thread": lambda: single(*args, **kwargs)}
    expected = calls["numpy"]()
    for name in ("threads", "one thread"):
        compare(calls[name](), expected, workload.rtol)   # compiles (apart from the timing) and checks
    sides = []
    for name, call in calls.items():
        _, first = timing.timed(call)
        sides.append(timing.Side(name, call, first))
    timing.run_rounds(sides, budget)
    medians = {s.name: timing.stats(s.samples)["median_s"] for s in sides}
    return {"workload": workload.name, "label": label, "busy": busy, "median_s": medians,
            "threads_x_numpy": medians["numpy"] / medians["threads"],
            "one_thread_x_numpy": medians["numpy"] / medians["one thread"],
            "threads_x_one_thread": medians["one thread"] / medians["threads"]}


def table(rows: list, modes: list) -> str:
    def cell(r):
        ok = r["threads_x_one_thread"] >= SAME_AS_SINGLE and r["threads_x_numpy"] >= 1.0
        return (f"{r['threads_x_numpy']:.2f}x / {r['one_thread_x_numpy']:.2f}x "
                f"({r['threads_x_one_thread']:.2f}) {'ok' if ok else 'MISSED'}")
    head = "| workload | " + " | ".join("idle" if b == 0 else f"{b} busy" for b in modes) + " |"
    lines = [head, "|---" * (len(modes) + 1) + "|"]
    for name in dict.fromkeys(r["workload"] for r in rows):
        by_mode = {r["busy"]: r for r in rows if r["workload"] == name}
        label = next(iter(by_mode.values()))["label"]
        lines.append(f"| {label} | " + " | ".join(cell(by_mode[b]) if b in by_mode else "" for b in modes) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.loaded", description=__doc__.split("\n\n")[0])
    p.add_argument("--busy", default="1,2", help="loaded modes: numbers of busy processes (default 1,2)")
    p.add_argument("--only", default="", help="workloads to run, comma-separated")
    p.add_argument("--min-time", type=float, default=1.0, help="seconds of samples per side and mode")
    p.add_argument("--out", default=DEFAULT_OUT)
    options = p.parse_args(argv)
    modes = [0] + [int(b) for b in options.busy.split(",") if b.strip()]
    chosen = [w for w in LOADED_WORKLOADS if not options.only or w.name in options.only.split(",")]
    budget = timing.Budget(min_repeats=10, min_time=options.min_time, max_time=10 * options.min_time,
                           warmup_time=0.2)
    shared, rows = {}, []
    for busy in modes:
        spinners = busy_processes(busy)
        time.sleep(0.5)                                    # the spinners are running before the first timing
        try:
            for workload in chosen:
                log(f"[{workload.name}] {busy} busy")
                rows.append(measure(workload, busy, budget, shared))
        finally:
            for s in spinners:
                s.kill()
                s.wait()
    header = (f"NumPy median / compiled median: threads / one thread (threads vs one thread); {cpu_model()}, "
              f"{len(os.sched_getaffinity(0))} cores, revision {git_revision()}, "
              f"{datetime.datetime.now().isoformat(timespec='minutes')}")
    text = header + "\n\n" + table(rows, modes)
    print(text)
    os.makedirs(options.out, exist_ok=True)
    path = os.path.join(options.out, "loaded.json")
    with open(path, "w") as f:
        json.dump({"header": header, "rows": rows}, f, indent=1)
    log(f"wrote {path}")
    missed = [r for r in rows if r["threads_x_one_thread"] < SAME_AS_SINGLE or r["threads_x_numpy"] < 1.0]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
