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


def test_select_and_format():
    assert harness.workloads.select("softmax,gelu") == ["gelu", "softmax"]
    assert harness.workloads.select("gpt2") == ["gpt2_t8", "gpt2_t64", "gpt2_t256", "decode"]
    assert harness.workloads.select("calls") == ["call_overhead"]
    with pytest.raises(ValueError, match="unknown workload"):
        harness.workloads.select("nope")
    assert report.fmt_time(0.00071) == "0.710 ms" and report.fmt_time(1.92) == "1.92 s"


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


def test_call_overhead_rows(tmp_path, capsys):
    """The `calls` group: each tiny call's NumPy and compiled medians in microseconds, and the overhead's bar."""
    assert harness.main(["--only", "calls", *QUICK, "--no-plot", "--out", str(tmp_path)]) == 0
    run = json.loads(open(only_file(tmp_path, ".json")).read())
    assert [r["label"] for r in run["calls"]] == [label for label, _, _ in calls.rows()]
    for r in run["calls"]:
        assert r["numpy_us"] > 0 and r["ours_us"] > 0
        assert r["overhead_us"] == pytest.approx(r["ours_us"] - r["numpy_us"])
    assert "| call overhead: x + 1, (10,) float64 |" in capsys.readouterr().out
