"""Smoke test of the benchmark harness (benchmarks/): quick mode, small shapes, two kernels. No timing assertions."""
import json
import os

import numpy as np
import pytest

from benchmarks import calls, harness, report


QUICK = ["--quick", "--scale", "small", "--repeat", "2", "--min-time", "0.01", "--max-time", "0.5", "--no-peers"]


def only_file(directory, suffix):
    files = [name for name in os.listdir(directory) if name.endswith(suffix)]
    assert len(files) == 1, files
    return os.path.join(directory, files[0])


@pytest.mark.slow
def test_quick_run_writes_checked_results(tmp_path, capsys):
    assert harness.main(["--only", "gelu,softmax", *QUICK, "--out", str(tmp_path)]) == 0
    run = json.loads(open(only_file(tmp_path, ".json")).read())
    png = only_file(tmp_path, ".png")
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"

    assert [r["name"] for r in run["results"]] == ["gelu", "softmax"]
    assert run["failures"] == [] and "first_call" not in run
    for r in run["results"]:
        assert r["check"]["passed"] and r["check"]["max_rel_error"] <= r["check"]["rtol"]
        assert r["compilations"] == 1 and r["compile_s"] > 0
        for side in ("numpy", "ours"):
            st = r[side]
            assert st["n"] >= 2 and len(st["samples_s"]) == st["n"]
            assert st["min_s"] <= st["median_s"] <= st["max_s"]
        assert r["ratio"] == pytest.approx(r["numpy"]["median_s"] / r["ours"]["median_s"])

    table = capsys.readouterr().out
    assert "| work | NumPy | ours | ratio (x NumPy) | bar | JAX jit | torch.compile |" in table
    assert "gelu (16, 384)" in table and "softmax (2, 32, 32)" in table


def test_wrong_compiled_result_fails_loudly(tmp_path, monkeypatch, capsys):
    compiled_function = harness.compiled_function

    class OffByOne:
        """The real compiled kernel, with its result changed: the harness must refuse to time it."""
        def __init__(self, workload, shared):
            self.inner = compiled_function(workload, shared)

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def __call__(self, *args, **kwargs):
            return self.inner(*args, **kwargs) + 1

    monkeypatch.setattr(harness, "compiled_function", OffByOne)
    assert harness.main(["--only", "gelu", *QUICK, "--no-plot", "--out", str(tmp_path)]) == 1
    (r,) = json.loads(open(only_file(tmp_path, ".json")).read())["results"]
    assert r["check"]["passed"] is False and "ours" not in r and "ratio" not in r
    captured = capsys.readouterr()
    assert "CHECK FAILED" in captured.err and "FAILED: gelu" in captured.err
    assert "**FAILED**: compiled result differs from NumPy's" in captured.out


def test_compare():
    x = np.linspace(-1, 1, 7)
    assert harness.compare(x, x.copy(), 1e-12)["passed"]
    with pytest.raises(harness.CheckFailed, match="dtype"):
        harness.compare(x.astype(np.float32), x, 1e-5)
    with pytest.raises(harness.CheckFailed, match="shape"):
        harness.compare(x[:3], x, 1e-5)
    with pytest.raises(harness.CheckFailed, match="NaNs"):
        harness.compare(np.where(x > 0, np.nan, x), x, 1e-5)
    with pytest.raises(harness.CheckFailed, match="max"):
        harness.compare(x + 1e-3, x, 1e-5)
    assert harness.compare((x, x[:2]), (x.copy(), x[:2].copy()), 1e-12)["passed"]   # several results (bicg)
    with pytest.raises(harness.CheckFailed, match="max"):
        harness.compare((x, x[:2] + 1e-3), (x, x[:2]), 1e-5)
    with pytest.raises(harness.CheckFailed, match="results"):
        harness.compare((x,), (x, x), 1e-5)


def test_select_and_format():
    assert harness.workloads.select("softmax,gelu") == ["gelu", "softmax"]
    assert harness.workloads.select("gpt2") == ["gpt2_t8", "gpt2_t64", "gpt2_t256", "decode"]
    assert harness.workloads.select("calls") == ["call_overhead"]
    assert harness.workloads.select("shapes") == ["matvec", "bicg", "mlp", "trace_loop", "l1_distances",
                                                  "pairwise_distances", "pairwise_distances_f32"]
    with pytest.raises(ValueError, match="unknown workload"):
        harness.workloads.select("nope")
    assert report.fmt_time(0.00071) == "0.710 ms" and report.fmt_time(1.92) == "1.92 s"


@pytest.mark.slow
def test_loaded_mode_times_both_modes_and_names_the_cpu(tmp_path, capsys):
    """`python -m benchmarks.loaded`: the idle machine, then a busy process pinned to a core; NumPy, threads and
    one thread side by side. The exit status reports the bars, which depend on the machine: not asserted here."""
    from benchmarks import loaded
    loaded.main(["--only", "decay", "--busy", "1", "--min-time", "0.05", "--out", str(tmp_path)])
    run = json.loads(open(tmp_path / "loaded.json").read())
    assert [(r["workload"], r["busy"]) for r in run["rows"]] == [("decay", 0), ("decay", 1)]
    for r in run["rows"]:
        assert set(r["median_s"]) == {"numpy", "threads", "one thread"} and all(v > 0 for v in r["median_s"].values())
    table = capsys.readouterr().out
    assert harness.cpu_model() in table and "| decay (100000,) float64 |" in table


def test_interleaved_mode_times_apart_and_in_pairs(tmp_path, capsys):
    """`python -m benchmarks.interleaved`: each kernel timed the main benchmark's way (blocks, pauses) and in
    NumPy-then-ours pairs; both ratios against NumPy's median of the same mode. Bars are not asserted."""
    from benchmarks import interleaved
    interleaved.main(["--only", "softmax", "--pairs", "3", "--min-time", "0.01", "--out", str(tmp_path)])
    run = json.loads(open(tmp_path / "interleaved.json").read())
    (row,) = run["rows"]
    assert row["workload"] == "softmax" and row["pairs"] == 3 and row["bar"] == 4
    for mode in ("apart", "interleaved"):
        medians = row[f"{mode}_median_s"]
        assert set(medians) == {"numpy", "ours"} and all(v > 0 for v in medians.values())
        assert row[f"{mode}_x_numpy"] == pytest.approx(medians["numpy"] / medians["ours"])
        assert row["ours_faults_per_call"][mode] >= 0
    faults: list = []
    numpy_s, ours_s = interleaved.paired(lambda: None, lambda: bytearray(1 << 22), 4, faults)
    assert len(numpy_s) == len(ours_s) == len(faults) == 4 and all(n >= 0 for n in faults)
    table = capsys.readouterr().out
    assert harness.cpu_model() in table and "| softmax (12, 256, 256) |" in table


@pytest.mark.slow
def test_decode_measures_generation_against_its_three_references():
    """benchmarks/decode.py at the small scale: the compiled class-based GPT-2's decode steps, timed, with the ids
    of its first steps equal to the NumPy run's, and the three table rows."""
    from benchmarks import decode
    d = decode.measure("small", numpy_steps=2, log=lambda message: None)
    assert d["ids_match_numpy"] and d["ours"]["n"] == decode.NEW_TOKENS - 1
    assert d["numpy_recompute"]["lengths"] == [decode.PROMPT_T, decode.PROMPT_T + 32, decode.PROMPT_T + 63]
    assert d["bandwidth"]["bytes_per_token"] > 0 and d["bandwidth"]["read_bytes_per_s"] > 0
    assert all(d[k] > 0 for k in ("vs_numpy_cached", "vs_recompute", "of_bandwidth_limit"))
    rows = report.decode_rows(d)
    assert len(rows) == 3 and all(len(row) == len(report.HEADER) for row in rows)
    assert "tokens/s" in rows[0][2] and "(full scale)" in rows[1][4]


def test_numba_peer_on_a_loop_workload(tmp_path, monkeypatch, capsys):
    """The Numba column: with numba installed (the `peers` extra) a loop workload is timed under numba.njit of the
    same source, checked against NumPy and compared with ours; without it the run has no Numba figures and no
    Numba line. Either way the run passes and other peers (JAX, torch) are left out to keep the test quick."""
    from benchmarks import peers
    live = [peer for peer in peers.available() if peer == "numba"]
    monkeypatch.setattr(peers, "available", lambda: live)
    quick = [arg for arg in QUICK if arg != "--no-peers"]
    assert harness.main(["--only", "recurrence,lu", *quick, "--no-plot", "--out", str(tmp_path)]) == 0
    run = json.loads(open(only_file(tmp_path, ".json")).read())
    table = capsys.readouterr().out
    assert "| Numba njit | compile |" in table
    if not live:
        assert run["peers_live"] == [] and run["peer_bars"] == {}
        assert all("live" not in r["peers"]["numba"] for r in run["results"])
        assert "against Numba njit" not in table
        return
    for r in run["results"]:                    # lu calls lu_in_place: the helper is jitted too
        numba_live = r["peers"]["numba"]["live"]
        assert "error" not in numba_live, numba_live
        assert numba_live["check"]["passed"] and numba_live["check"]["max_rel_error"] <= r["check"]["rtol"]
        assert numba_live["compile_s"] > 0 and numba_live["n"] >= 2
        assert numba_live["ours_ratio"] == pytest.approx(numba_live["median_s"] / r["ours"]["median_s"])
    summary = run["peer_bars"]["numba"]
    assert set(summary["ratios"]) == {"recurrence", "lu"} and summary["failed"] == []
    assert "loops against Numba njit" in table and "(bars at full scale)" in table


def test_peers_scoped_to_their_group():
    """Numba is measured on the loops group only; JAX and torch on every workload."""
    by_name = {w.name: w for w in harness.WORKLOADS}
    assert harness.peers_for(by_name["recurrence"], ["jax", "numba"]) == ["jax", "numba"]
    assert harness.peers_for(by_name["gelu"], ["jax", "numba"]) == ["jax"]
    assert set(harness.workloads.GROUPS["loops"]) <= set(by_name)


def test_rebind_wraps_the_module_helpers():
    """numba.njit of `lu` needs `lu_in_place` jitted too: rebind passes every function of the module to `wrap`,
    and the rebound function calls the wrapped helper."""
    from benchmarks import loops, peers
    wrapped = []

    def wrap(f):
        wrapped.append(f.__name__)
        return f
    lu = peers.rebind(loops.lu, wrap=wrap)
    assert {"lu", "lu_in_place", "nussinov", "match"} <= set(wrapped)
    assert lu.__globals__["lu_in_place"] is not loops.lu_in_place and lu.__globals__["np"] is np
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    np.testing.assert_array_equal(lu(a), loops.lu(a))


def fake_loop_result(name, ours_s, numba):
    live = {"median_s": numba, "ours_ratio": numba / ours_s} if numba else {"error": "TypingError: ..."}
    return {"name": name, "label": name, "bar": 1, "ratio": 2.0, "meets_bar": True, "ref": {},
            "numpy": {"median_s": 2 * ours_s, "min_s": ours_s, "max_s": ours_s, "n": 3},
            "ours": {"median_s": ours_s, "min_s": ours_s, "max_s": ours_s, "n": 3},
            "peers": {"numba": {"ref_s": None, "ref_ratio": None, "live": live}}}


def test_numba_bars_geometric_mean_and_lowest():
    """The bar of issue #17: geometric mean of ours x Numba >= 1.0 over the loops group, no workload below 0.5x,
    and a workload Numba or ours failed on counts against it."""
    run = {"options": {"scale": "full"}, "results": [fake_loop_result("recurrence", 1.0, 2.0),
                                                    fake_loop_result("lu", 1.0, 0.6),
                                                    fake_loop_result("gelu", 1.0, None)]}
    s = report.peer_summary(run, "numba")
    assert s["ratios"] == {"recurrence": 2.0, "lu": pytest.approx(0.6)} and s["lowest"] == "lu"
    assert s["geomean"] == pytest.approx(1.2 ** 0.5) and s["meets_bars"]
    line = report.peer_summary_line("numba", s, full=True)
    assert "geometric mean 1.10x over 2 (bar ≥ 1x), lowest 0.60x lu (bar ≥ 0.5x) ✓" in line
    run["results"][1] = fake_loop_result("lu", 1.0, 0.4)
    assert not report.peer_summary(run, "numba")["meets_bars"]
    run["results"][1] = fake_loop_result("lu", 1.0, None)
    s = report.peer_summary(run, "numba")
    assert s["failed"] == ["lu"] and not s["meets_bars"] and "failed: lu" in report.peer_summary_line("numba", s, True)
    assert "ours 2.00x of it" in report.peer_cell(run["results"][0], "numba")
    assert report.peer_summary({"options": {"scale": "full"}, "results": []}, "numba") is None


def test_call_overhead_rows(tmp_path, capsys):
    """The `calls` group: each tiny call's NumPy and compiled medians in microseconds, and the overhead's bar."""
    assert harness.main(["--only", "calls", *QUICK, "--no-plot", "--out", str(tmp_path)]) == 0
    run = json.loads(open(only_file(tmp_path, ".json")).read())
    assert [r["label"] for r in run["calls"]] == [label for label, _, _, _ in calls.rows()]
    for r in run["calls"]:
        assert r["numpy_us"] > 0 and r["ours_us"] > 0
        assert r["overhead_us"] == pytest.approx(r["ours_us"] - r["numpy_us"])
    assert [r["bar_us"] for r in run["calls"]] == [calls.OVERHEAD_BAR_US, None, calls.OVERHEAD_BAR_US]
    out = capsys.readouterr().out
    assert "| call overhead: x + 1, (10,) float64 |" in out
    assert "three arguments) | " in out and "the bar is for one array" in out
