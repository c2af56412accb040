"""The few-row cost model of mixed-precision products (backend/matmul_lowering.FEW_ROWS), measured: the generated
widening loops against the converted narrow operand and OpenBLAS, over rows m, inner size k and columns n.

    TRANSPILER_CACHE_DIR="" uv run python -m benchmarks.few_rows [--quick] [--cpu-time] [--configs NAME,...]

Each configuration (one or two threads, this CPU's code or TRANSPILER_TARGET_CPU=x86-64-v3 AVX2 code with
OPENBLAS_CORETYPE=Haswell) runs in its own process, since the thread count, the target and OpenBLAS's kernels are
chosen when a process starts. In it each product `a @ w` / `a @ w.T` (float64 @ float32 and float32 @ float64) is
compiled twice, FEW_ROWS forcing the loops and forcing BLAS, and the two are timed interleaved (A, B, A, B ...), the
median of each kept. Prints, per configuration, each (m, k, n) with both times and their ratio, then the crossover
(the rows where BLAS starts to win, interpolated) per (k, n) and the fit of the model
    loops:  t = fixed_loops + m * k * n * per_mac_loops
    BLAS:   t = fixed_blas + k * n * per_element_conversion + m * k * n * per_mac_blas
whose crossover is m* = ROWS + SIZE_ROWS / (k * n), the form of FEW_ROWS.
--cpu-time times in CPU time of the process (both threads' time, so a one-thread configuration only) instead of
wall time: on a loaded machine a descheduled call counts in wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROWS = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128]
SIZES = [64, 768, 3072]
PAIRS = [("float64", "float32"), ("float32", "float64")]
CONFIGS = {   # name -> environment
    "1thread": {"OMP_NUM_THREADS": "1"},
    "2threads": {"OMP_NUM_THREADS": "2"},
    "1thread-avx2": {"OMP_NUM_THREADS": "1", "TRANSPILER_TARGET_CPU": "x86-64-v3", "OPENBLAS_CORETYPE": "Haswell"},
    "2threads-avx2": {"OMP_NUM_THREADS": "2", "TRANSPILER_TARGET_CPU": "x86-64-v3", "OPENBLAS_CORETYPE": "Haswell"},
}
NEVER, ALWAYS = (0, 0), (1 << 40, 0)   # FEW_ROWS entries: BLAS at every row count, loops at every row count


def _forced(fn, limit):
    """fn compiled with every FEW_ROWS entry set to `limit` (the compile happens on the first call, under it)."""
    from transpiler import transpile
    from transpiler.backend import matmul_lowering
    compiled = transpile(fn, disk_cache=False)

    def call(*args):
        saved = dict(matmul_lowering.FEW_ROWS)
        matmul_lowering.FEW_ROWS.update({key: limit for key in saved})
        try:
            return compiled(*args)
        finally:
            matmul_lowering.FEW_ROWS.update(saved)
    return call


def _time_pair(sides, args, clock, budget_s):
    """Medians of each side's calls, interleaved, until each has 5 calls and budget_s, or 25 calls."""
    samples = [[] for _ in sides]
    for side in sides:
        side(*args)                          # warm-up (and the compile, on the first size)
    spent = 0.0
    while len(samples[0]) < 25 and (len(samples[0]) < 5 or spent < budget_s):
        for side, times in zip(sides, samples):
            start = clock()
            side(*args)
            times.append(clock() - start)
            spent += times[-1]
    return [statistics.median(t) for t in samples]


def measure(quick: bool, cpu_time: bool, gpt2: bool = False) -> list:
    """Rows of (pair, transposed, m, k, n, loops_s, blas_s) in this process's configuration; with `gpt2`, only
    GPT-2's tied output embedding `x @ wte.T` (float64 @ float32, wte (50257, 768))."""
    clock = time.process_time if cpu_time else time.perf_counter
    rng = np.random.default_rng(0)
    rows = ROWS[::2] + [ROWS[-1]] if quick else ROWS
    cases = [(pair, transposed, [(k, n) for k in SIZES for n in SIZES])
             for pair in PAIRS for transposed in (False, True)]
    if gpt2:
        rows, cases = [r for r in rows if r <= 64], [(PAIRS[0], True, [(768, 50257)])]
    results = []
    for pair, transposed, shapes in cases:
        fn = (lambda a, w: a @ w.T) if transposed else (lambda a, w: a @ w)
        sides = [_forced(fn, ALWAYS), _forced(fn, NEVER)]
        for (k, n), m in ((shape, m) for shape in shapes for m in rows):
            a = rng.standard_normal((m, k)).astype(pair[0])
            w = rng.standard_normal((n, k) if transposed else (k, n)).astype(pair[1])
            loops, blas = _time_pair(sides, (a, w), clock, 0.02 if quick else 0.05)
            results.append(["@".join(pair), transposed, m, k, n, loops, blas])
    return results


def crossover(points):
    """The rows where BLAS starts to win, from [(m, loops_s, blas_s)] sorted by m: log-interpolated between the last
    m where the loops win and the next; 0 when BLAS wins from one row, None when the loops win at every m."""
    ratios = [(m, loops / blas) for m, loops, blas in points]
    if ratios[0][1] >= 1:
        return 0.0
    for (m0, r0), (m1, r1) in zip(ratios, ratios[1:]):
        if r1 >= 1:                           # loops / BLAS crosses 1 between m0 and m1
            t = (0 - np.log(r0)) / (np.log(r1) - np.log(r0))
            return float(np.exp(np.log(m0) + t * (np.log(m1) - np.log(m0))))
    return None


def fit(rows):
    """Least-squares fits of both cost lines (relative errors) over one group's rows; the model's ROWS, SIZE_ROWS."""
    m, k, n, loops, blas = (np.array([r[i] for r in rows], dtype=float) for i in range(2, 7))
    size = k * n
    fixed_loops, per_mac_loops = np.linalg.lstsq(np.stack([1 / loops, m * size / loops], 1), np.ones_like(m),
                                                 rcond=None)[0]
    fixed_blas, per_element, per_mac_blas = np.linalg.lstsq(
        np.stack([1 / blas, size / blas, m * size / blas], 1), np.ones_like(m), rcond=None)[0]
    gain = per_mac_loops - per_mac_blas
    model = {"fixed_loops_us": fixed_loops * 1e6, "loops_ns_per_mac": per_mac_loops * 1e9,
             "fixed_blas_us": fixed_blas * 1e6, "conversion_ns_per_element": per_element * 1e9,
             "blas_ns_per_mac": per_mac_blas * 1e9}
    if gain <= 0:
        return model, None                    # the loops never lose: no crossover
    return model, (per_element / gain, max(fixed_blas - fixed_loops, 0.0) / gain)


def choose(rows, current=None):
    """The FEW_ROWS entry (rows, k_per_row), the rule m < rows + k // k_per_row, that loses least against the faster
    side over these rows (the mean of log(chosen time / faster time): a wrong choice near the crossover costs
    little, far from it much), searched over rows 0..64 and k_per_row 0 (no k term) or 64..2048; with the mean
    slowdowns of that rule, of `current` and of BLAS always."""
    from transpiler.backend import matmul_lowering
    m, k, n, loops, blas = (np.array([r[i] for r in rows], dtype=float) for i in range(2, 7))
    best = np.log(np.minimum(loops, blas))

    def loss(entry):
        limit = np.array([matmul_lowering.few_rows_limit(entry, int(a), int(b)) for a, b in zip(k, n)])
        return float(np.mean(np.log(np.where(m < limit, loops, blas)) - best))
    candidates = [(r, q) for r in range(0, 65) for q in (0, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048)]
    rule = min(candidates, key=lambda entry: (round(loss(entry), 4), entry[1] == 0, entry))
    slowdown = {name: float(np.expm1(loss(entry))) for name, entry in
                (("chosen", rule), ("current", current or rule), ("BLAS always", (0, 0)))}
    return rule, slowdown


def parse(path):
    """The measured rows of a report this script printed: {config: rows}."""
    found, config = {}, None
    with open(path) as report_file:
        for line in report_file:
            if line.startswith("## "):
                config = line[3:].strip()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 8 and cells[2].isdigit():
                found.setdefault(config, []).append([cells[0], cells[1] == "a @ w.T", int(cells[2]), int(cells[3]),
                                                     int(cells[4]), float(cells[5]) / 1e3, float(cells[6]) / 1e3])
    return found


def report(config: str, results: list) -> dict:
    print(f"\n## {config}\n")
    print("| product | layout | m | k | n | loops ms | BLAS ms | loops / BLAS |")
    print("|---|---|---|---|---|---|---|---|")
    for pair, transposed, m, k, n, loops, blas in results:
        layout = "a @ w.T" if transposed else "a @ w"
        print(f"| {pair} | {layout} | {m} | {k} | {n} | {loops * 1e3:.4g} | {blas * 1e3:.4g} | {loops / blas:.2f} |")
    from transpiler.backend import matmul_lowering
    threaded = not config.startswith("1thread")
    groups, fits = {}, {}
    for row in results:
        groups.setdefault((row[0], row[1]), []).append(row)
    print("\n| product | layout | k | n | measured crossover rows | least-loss rule's |")
    print("|---|---|---|---|---|---|")
    for (pair, transposed), rows in groups.items():
        layout = "a @ w.T" if transposed else "a @ w"
        current = matmul_lowering.FEW_ROWS["b" if pair.startswith("float64") else "a", transposed, threaded]
        entry, slowdown = choose(rows, current)
        fits[f"{pair} {layout}"] = (fit(rows), entry, slowdown, current)
        for k, n in sorted({(r[3], r[4]) for r in rows}):
            measured = crossover(sorted((r[2], r[5], r[6]) for r in rows if r[3] == k and r[4] == n))
            show = "loops win at every m" if measured is None else f"{measured:.1f}"
            print(f"| {pair} | {layout} | {k} | {n} | {show} | {matmul_lowering.few_rows_limit(entry, k, n)} |")
    print()
    for name, ((model, limit), entry, slowdown, current) in fits.items():
        terms = ", ".join(f"{key} {value:.4g}" for key, value in model.items())
        rule = "loops at every m" if limit is None else f"m < {limit[0]:.1f} + {limit[1]:.4g} / (k * n)"
        print(f"{config} {name}: cost lines {terms}; their crossover {rule}")
        print(f"{config} {name}: least-loss FEW_ROWS entry {entry}; mean slowdown against the faster side: " +
              ", ".join(f"{key} {value:.1%}" for key, value in slowdown.items()) + f" (current {current})")
    return fits


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every other row count (a first look)")
    parser.add_argument("--cpu-time", action="store_true", help="CPU time of the process instead of wall time")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ", ".join(CONFIGS))
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)   # one configuration, in-process
    parser.add_argument("--gpt2", action="store_true", help="only GPT-2's x @ wte.T (k = 768, n = 50257)")
    parser.add_argument("--refit", metavar="REPORT", help="fit again the rows of a report this script printed")
    options = parser.parse_args(argv)
    if options.refit:
        for config, rows in parse(options.refit).items():
            report(config, rows)
        return 0
    if options.measure:
        json.dump(measure(options.quick, options.cpu_time, options.gpt2), sys.stdout)
        return 0
    from .harness import cpu_model
    print(f"# few-row products, loops against convert + BLAS; CPU: {cpu_model()}")
    for config in options.configs.split(","):
        env = dict(os.environ, TRANSPILER_CACHE_DIR="", **CONFIGS[config])
        command = [sys.executable, "-m", "benchmarks.few_rows", "--measure"] + \
            ["--quick"] * options.quick + ["--cpu-time"] * options.cpu_time + ["--gpt2"] * options.gpt2
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode:
            print(done.stderr, file=sys.stderr)
            return done.returncode
        report(config, json.loads(done.stdout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
