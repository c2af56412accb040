"""The benchmark run: for each workload, compile (timed apart), check the compiled result against NumPy's, then time
both sides interleaved; then the first call of the whole GPT-2 in a fresh process; then the table, JSON and PNG.

    uv run python -m benchmarks [--quick] [--only NAME,...] [--repeat N] [--out DIR]
                                              [--scale full|small] [--max-time S] [--min-time S] [--no-peers]

Exit status 1 if any compiled result differs from NumPy's or any workload fails to compile; bars are reported,
not enforced.
"""
from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

from transpiler import transpile
from transpiler.backend.target import target_cpu

from . import calls, decode, peers, report, timing, workloads
from .workloads import CALLS, DECODE, FIRST_CALL, FIRST_CALL_REF, FIRST_CALL_T, WORKLOADS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "benchmarks", "results")
FULL_REPEATS, QUICK_REPEATS = 20, 3


class CheckFailed(AssertionError):
    pass


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- correctness ---------------------------------------------------------------------------------------------------

def compare(actual, expected, rtol: float) -> dict:
    """Same type, dtype and shape, NaNs and infinities in the same places, and the largest difference at most
    rtol times the largest magnitude of NumPy's result. Raises CheckFailed otherwise."""
    if type(actual) is not type(expected):
        raise CheckFailed(f"result type {type(actual).__name__}, NumPy's is {type(expected).__name__}")
    if isinstance(expected, tuple):       # several results: each checked alone
        if len(actual) != len(expected):
            raise CheckFailed(f"{len(actual)} results, NumPy's {len(expected)}")
        parts = [compare(a, e, rtol) for a, e in zip(actual, expected)]
        return {"parts": parts, "max_rel_error": max((p["max_rel_error"] for p in parts), default=0.0),
                "passed": True}
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype:
        raise CheckFailed(f"dtype {actual.dtype}, NumPy's is {expected.dtype}")
    if actual.shape != expected.shape:
        raise CheckFailed(f"shape {actual.shape}, NumPy's is {expected.shape}")
    info = {"dtype": str(expected.dtype), "shape": list(expected.shape), "rtol": rtol}
    if expected.dtype.kind not in "fc":
        if not np.array_equal(actual, expected):
            raise CheckFailed(f"{int(np.sum(actual != expected))} elements differ")
        return {**info, "max_abs_error": 0.0, "max_rel_error": 0.0, "passed": True}
    finite = np.isfinite(expected)
    if not np.array_equal(np.isfinite(actual), finite) or not np.array_equal(actual[~finite], expected[~finite],
                                                                             equal_nan=True):
        raise CheckFailed("NaNs or infinities differ from NumPy's")
    error = float(np.max(np.abs(actual[finite] - expected[finite]), initial=0.0))
    scale = float(np.max(np.abs(expected[finite]), initial=0.0)) or 1.0
    info.update(max_abs_error=error, max_rel_error=error / scale)
    if error > rtol * scale:
        raise CheckFailed(f"max |compiled - NumPy| = {error:.3g}, more than {rtol:g} x max |NumPy| = {rtol * scale:.3g}")
    return {**info, "passed": True}


# --- one workload --------------------------------------------------------------------------------------------------

def compiled_function(workload, shared):
    """One transpile() per function (per group): GPT-2 at T=8, 64, 256 shares one signature, hence one kernel.
    Without the disk cache, so that the compile column is a compilation, not a load from an earlier run (the first
    call from the cache is measured apart, in a fresh process)."""
    key = ("compiled", workload.group or workload.name)
    if key not in shared:
        shared[key] = transpile(workload.fn, disk_cache=False)
    return shared[key]


def peers_for(workload, live_peers) -> list[str]:
    """The live peers measured on this workload: all, but those scoped to one group (Numba: loops) on theirs."""
    return [peer for peer in live_peers
            if peer not in peers.SCOPE or workload.name in workloads.GROUPS[peers.SCOPE[peer]]]


def run_workload(workload, options, budget, shared, live_peers) -> dict:
    label, args, kwargs = workload.make_args(options.scale, shared)
    ref = workload.ref if options.scale == "full" else {}      # reference figures and bars are for full shapes
    result = {"name": workload.name, "label": label, "bar": workload.bar, "ref": ref,
              "peers": {p: {"ref_s": ref.get(p), "ref_ratio": ref["numpy"] / ref[p] if ref.get(p) else None}
                        for p in peers.PEERS}}
    fn = workload.fn
    compiled = compiled_function(workload, shared)

    def numpy_call():
        return fn(*args, **kwargs)

    def ours_call():
        return compiled(*args, **kwargs)

    # Compile, timed apart from the runs. A kernel already compiled for this signature (GPT-2 at another T) is reused.
    before = compiled.compilations
    log(f"[{workload.name}] {label}: compiling")
    try:
        if hasattr(compiled, "specialization"):
            _, compile_s = timing.timed(lambda: compiled.specialization(args, kwargs))
        else:
            compile_s = None
    except Exception as error:  # noqa: BLE001 - CompileError and anything else the compiler raises
        result["error"] = f"compilation failed: {type(error).__name__}: {error}"
        log(f"[{workload.name}] {result['error']}")
        return result

    # Check first: both results from the same inputs. These calls are the first warm-up calls.
    log(f"[{workload.name}] checking the compiled result against NumPy's")
    expected, numpy_first = timing.timed(numpy_call)
    try:
        actual, ours_first = timing.timed(ours_call)
        result["check"] = compare(actual, expected, workload.rtol)
    except Exception as error:  # noqa: BLE001 - a wrong result or a call that raises: either way, no timing
        result["check"] = {"passed": False, "error": f"{type(error).__name__}: {error}"}
        result["error"] = (f"compiled result differs from NumPy's: {error}" if isinstance(error, CheckFailed) else
                           f"the compiled call raised {type(error).__name__}: {error}")
        log(f"[{workload.name}] CHECK FAILED: {result['error']}")
        return result
    del actual
    result["compilations"] = compiled.compilations - before
    if not result["compilations"]:
        result["compile_reused_from"] = shared.get(("compiled_by", workload.group or workload.name), "earlier call")
    elif compile_s is not None:
        result["compile_s"] = compile_s
    else:
        # No specialization() to compile apart: the checking call compiled. Report it and time a clean call.
        result["first_call_s"] = ours_first
        _, ours_first = timing.timed(ours_call)
    shared.setdefault(("compiled_by", workload.group or workload.name), workload.name)
    log(f"[{workload.name}] check passed (max relative error {result['check']['max_rel_error']:.2g}); first calls: "
        f"NumPy {report.fmt_time(numpy_first)}, ours {report.fmt_time(ours_first)}")

    sides = [timing.Side("numpy", numpy_call, numpy_first), timing.Side("ours", ours_call, ours_first)]
    live_peers = peers_for(workload, live_peers)
    for peer in live_peers:
        live = result["peers"][peer]["live"] = {}
        try:
            call = peers.make_call(peer, fn, args, kwargs)
            _, live["compile_s"] = timing.timed(call)           # tracing and compilation, apart like ours
            peer_result, first = timing.timed(call)
            if peer in peers.STRICT:    # a wrong answer is a failure, as for ours (Numba returns a float, not a
                live["check"] = compare(np.asarray(peer_result), np.asarray(expected), workload.rtol)   # float64)
            else:
                try:
                    live["check"] = compare(np.asarray(peer_result), np.asarray(expected), 1e-3)
                except CheckFailed as error:                    # JAX computes in float32: recorded, not fatal
                    live["check"] = {"passed": False, "error": str(error)}
            sides.append(timing.Side(peer, call, first))
        except Exception as error:  # noqa: BLE001 - a peer failing is reported, never fatal
            live["error"] = f"{type(error).__name__}: {error}"
            log(f"[{workload.name}] {peers.LABELS[peer]} failed: {live['error']}")
    del expected
    gc.collect()

    log(f"[{workload.name}] timing " + ", ".join(side.name for side in sides))
    timing.run_rounds(sides, budget)
    for side in sides:
        st = timing.stats(side.samples)
        st["capped"] = len(side.samples) < budget.min_repeats or side.spent < budget.min_time
        st["warmup_reused"] = side.warmup_reused
        st["samples_s"] = side.samples[:10000]
        if side.name in ("numpy", "ours"):
            result[side.name] = st
        else:
            result["peers"][side.name]["live"].update(st)
    result["ratio"] = result["numpy"]["median_s"] / result["ours"]["median_s"]
    result["ratio_of_mins"] = result["numpy"]["min_s"] / result["ours"]["min_s"]   # best case of each side
    result["meets_bar"] = result["ratio"] >= workload.bar if options.scale == "full" else None
    for peer in live_peers:
        live = result["peers"][peer]["live"]
        if "median_s" in live:
            live["ratio"] = result["numpy"]["median_s"] / live["median_s"]
            live["ours_ratio"] = live["median_s"] / result["ours"]["median_s"]     # ours x the peer
    log(f"[{workload.name}] NumPy {report.fmt_stats(result['numpy'])}, ours {report.fmt_stats(result['ours'])}, "
        f"ratio {report.fmt_ratio(result['ratio'])} (bar {workload.bar:g}x)")
    return result


# --- the first call, in a fresh process ----------------------------------------------------------------------------

def first_call_subprocess(scale: str, env: dict, timeout: float) -> dict:
    command = [sys.executable, "-m", "benchmarks.firstcall", "--scale", scale, "--t", str(FIRST_CALL_T)]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    if done.returncode != 0:
        return {"error": f"exit status {done.returncode}: {done.stderr.strip()[-400:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_call(options) -> dict:
    """The whole GPT-2's first call in a fresh process, twice with the same TRANSPILER_CACHE_DIR: cold, then from
    the disk cache if the first run wrote one (with the cache turned off, TRANSPILER_CACHE_DIR="", it writes none:
    then the cached cell is n/a)."""
    model = "GPT-2 124M" if options.scale == "full" else "GPT-2 tiny"
    out = {"model": model, "t": FIRST_CALL_T, "scale": options.scale,
           "ref": FIRST_CALL_REF if options.scale == "full" else {}}
    with tempfile.TemporaryDirectory(prefix="transpiler-cache-") as cache_dir:
        env = {**os.environ, "TRANSPILER_CACHE_DIR": cache_dir}
        log(f"[{FIRST_CALL}] {model} T={FIRST_CALL_T} in a fresh process, cold (TRANSPILER_CACHE_DIR={cache_dir})")
        out["cold"] = first_call_subprocess(options.scale, env, options.first_call_timeout)
        written = sum(len(files) for _, _, files in os.walk(cache_dir))
        out["cache_files_written"] = written
        if "error" in out["cold"]:
            out["cached"] = {"note": "cold run failed"}
        elif written == 0:
            out["cached"] = {"note": "no disk cache written"}
        else:
            log(f"[{FIRST_CALL}] again, from the disk cache ({written} files)")
            out["cached"] = first_call_subprocess(options.scale, env, options.first_call_timeout)
    cold = out["cold"]
    log(f"[{FIRST_CALL}] cold: " + (cold["error"] if "error" in cold else report.fmt_time(cold["first_call_s"])))
    return out


# --- the run -------------------------------------------------------------------------------------------------------

def cpu_model() -> str:
    """The CPU's model name and its widest vector extension (figures differ between AVX-512 and AVX2 machines)."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    described = f"{model}, {vector}" if vector else model
    target = target_cpu()
    return f"{described}; kernels compiled for {target} (TRANSPILER_TARGET_CPU)" if target else described


def git_revision() -> str | None:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True)
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "") if rev.returncode == 0 else None
    except OSError:
        return None


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few repeats and short budgets (a smoke run)")
    parser.add_argument("--only", metavar="NAME[,NAME]", help=f"workloads or groups: {', '.join(workloads.NAMES)}, "
                        f"{', '.join(workloads.GROUPS)}")
    parser.add_argument("--repeat", type=int, metavar="N", help=f"at least N timed calls per side (default "
                        f"{FULL_REPEATS}, --quick {QUICK_REPEATS})")
    parser.add_argument("--min-time", type=float, metavar="S", help="and at least S seconds of them (default 1, "
                        "--quick 0.1)")
    parser.add_argument("--max-time", type=float, metavar="S", help="cap: stop timing a side after S seconds, with at "
                        "least one call (default 60, --quick 10)")
    parser.add_argument("--out", metavar="DIR", default=DEFAULT_OUT, help="where the JSON and PNG go "
                        "(default benchmarks/results)")
    parser.add_argument("--scale", choices=workloads.SCALES, default="full", help="small: tiny shapes and a tiny "
                        "GPT-2, for smoke tests (reference figures and bars are for full)")
    parser.add_argument("--no-peers", action="store_true", help="do not measure JAX/torch/Numba live even if "
                        "installed")
    parser.add_argument("--first-call-timeout", type=float, default=1800, metavar="S",
                        help="limit for each first-call subprocess (default 1800)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG (no matplotlib needed)")
    parser.add_argument("--report", metavar="JSON", help="only print the table of an earlier run's JSON file")
    options = parser.parse_args(argv)
    if options.repeat is not None and options.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        options.names = workloads.select(options.only)
    except ValueError as error:
        parser.error(str(error))
    return options


def make_budget(options) -> timing.Budget:
    quick = options.quick
    return timing.Budget(
        min_repeats=options.repeat or (QUICK_REPEATS if quick else FULL_REPEATS),
        min_time=options.min_time if options.min_time is not None else (0.1 if quick else 1.0),
        max_time=options.max_time if options.max_time is not None else (10.0 if quick else 60.0),
        warmup_time=0.05 if quick else 0.2)


def main(argv=None) -> int:
    options = parse_args(argv)
    if options.report:
        with open(options.report) as f:
            report.print_run(json.load(f))
        return 0
    budget = make_budget(options)
    started = datetime.datetime.now().astimezone()
    live_peers = [] if options.no_peers else peers.available()
    run = {
        "started": started.isoformat(timespec="seconds"),
        "command": " ".join(["python -m benchmarks", *(argv if argv is not None else sys.argv[1:])]),
        "options": {"quick": options.quick, "only": options.names, "scale": options.scale},
        "budget": vars(budget),
        "machine": {"cpu": cpu_model(), "cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(), "numpy": np.__version__,
                    "loadavg_start": os.getloadavg(),   # other processes: the machine is shared
                    "threads_env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                                "MKL_NUM_THREADS") if k in os.environ}},
        "git": git_revision(),
        "peers_live": live_peers,
        "results": [],
    }
    log(f"benchmarks: {', '.join(options.names)} (scale {options.scale}, {'quick' if options.quick else 'full'}; "
        f"peers live: {', '.join(live_peers) or 'none, reference figures only'})")

    shared: dict = {}
    for workload in WORKLOADS:
        if workload.name in options.names:
            run["results"].append(run_workload(workload, options, budget, shared, live_peers))
            gc.collect()
    if DECODE in options.names:
        try:
            run["decode"] = decode.measure(options.scale, shared=shared, log=log)
        except Exception as e:     # reported in the table, like a workload that fails
            run["decode"] = {"error": f"{type(e).__name__}: {e}"}
    if CALLS in options.names:
        run["calls"] = calls.measure_all(rounds=10 if options.quick else 30)
    shared.clear()                                              # frees the GPT-2 weights before the subprocesses
    gc.collect()
    if FIRST_CALL in options.names:
        run["first_call"] = first_call(options)
    run["finished"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    run["machine"]["loadavg_end"] = os.getloadavg()

    failures = [r["name"] for r in run["results"] if r.get("error")]
    fc = run.get("first_call") or {}
    if "error" in fc.get("cold", {}) or "error" in fc.get("cached", {}):
        failures.append(FIRST_CALL)
    if run.get("decode") and ("error" in run["decode"] or not run["decode"]["ids_match_numpy"]):
        failures.append(DECODE)
    run["failures"] = failures
    run["peer_bars"] = {peer: summary for peer in workloads.PEER_BARS
                        if (summary := report.peer_summary(run, peer)) is not None}

    stamp = started.strftime("%Y%m%d-%H%M%S")
    json_path = os.path.join(options.out, f"{stamp}.json")
    png_path = os.path.join(options.out, f"{stamp}.png")
    run["files"] = {"json": json_path, "png": None if options.no_plot else png_path}
    report.write_json(run, json_path)
    if not options.no_plot:
        report.write_png(run, png_path)

    report.print_run(run)
    print(f"\nwrote {json_path}" + ("" if options.no_plot else f" and {png_path}"))
    if failures:
        print(f"\nFAILED: {', '.join(failures)} (see above)", file=sys.stderr)
        return 1
    return 0
