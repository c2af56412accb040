"""The table (Markdown), the JSON file and the PNG chart of a run."""
from __future__ import annotations

import json
import math
import os

from .peers import LABELS, PEERS, SCOPE
from .workloads import FIRST_CALL_BAR, GROUPS, PEER_BARS

HEADER = ["work", "NumPy", "ours", "ratio (x NumPy)", "bar", "JAX jit", "torch.compile", "Numba njit", "compile"]


def fmt_time(s: float, unit: str | None = None) -> str:
    if s is None:
        return "—"
    unit = unit or time_unit(s)
    if unit == "s":
        return f"{s:.2f} s" if s < 10 else f"{s:.1f} s"
    v = s * 1e3
    return f"{v:.3f} ms" if v < 1 else f"{v:.2f} ms" if v < 10 else f"{v:.1f} ms" if v < 100 else f"{v:.0f} ms"


def time_unit(s: float) -> str:
    return "s" if s >= 1 else "ms"


def fmt_number(s: float, unit: str) -> str:
    return fmt_time(s, unit).rsplit(" ", 1)[0]


def fmt_stats(st: dict | None) -> str:
    if not st:
        return "—"
    unit = time_unit(st["median_s"])
    cell = f"{fmt_time(st['median_s'])} ({fmt_number(st['min_s'], unit)}–{fmt_number(st['max_s'], unit)}, n={st['n']})"
    return cell + (" capped" if st.get("capped") else "")


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "—"
    return f"{r:.2f}x" if r < 10 else f"{r:.1f}x"


def peer_cell(result: dict, peer: str) -> str:
    info = result.get("peers", {}).get(peer, {})
    parts = []
    live = info.get("live")
    if live and "median_s" in live:
        ours = f"; ours {fmt_ratio(live['ours_ratio'])} of it" if peer in PEER_BARS else ""
        parts.append(f"live {fmt_time(live['median_s'])} ({fmt_ratio(live.get('ratio'))}{ours})")
    elif live and "error" in live:
        parts.append(f"live failed: {live['error'][:60]}")
    if info.get("ref_s") is not None:
        ratio = f" ({fmt_ratio(info['ref_ratio'])})" if info.get("ref_ratio") else ""
        parts.append(f"{'ref ' if live else ''}{fmt_time(info['ref_s'])}{ratio}")
    return "; ".join(parts) or "—"


def workload_row(r: dict) -> list[str]:
    if r.get("error"):
        return [r["label"], fmt_stats(r.get("numpy")), f"**FAILED**: {r['error'][:120]}", "—", f"≥ {r['bar']:g}x ✗",
                peer_cell(r, "jax"), peer_cell(r, "torch"), peer_cell(r, "numba"), compile_cell(r)]
    met = {True: "✓", False: "✗", None: "(full scale)"}[r["meets_bar"]]
    return [r["label"], fmt_stats(r["numpy"]), fmt_stats(r["ours"]), fmt_ratio(r["ratio"]), f"≥ {r['bar']:g}x {met}",
            peer_cell(r, "jax"), peer_cell(r, "torch"), peer_cell(r, "numba"), compile_cell(r)]


def compile_cell(r: dict) -> str:
    if r.get("compile_s") is not None:
        return fmt_time(r["compile_s"])
    if r.get("first_call_s") is not None:
        return f"first call {fmt_time(r['first_call_s'])}"
    if r.get("compile_reused_from"):
        return f"reused ({r['compile_reused_from']})"
    return "—"


def first_call_rows(fc: dict) -> list[list[str]]:
    cold, cached = fc.get("cold") or {}, fc.get("cached") or {}
    full = fc.get("scale", "full") == "full"                   # the bars and reference figures are for 124M

    def met(seconds, bar):
        return ("✓" if seconds <= bar else "✗") if full else "(full scale)"

    ref = fc.get("ref") or {}
    if "error" in cold:
        ours, verdict = f"**FAILED**: {cold['error'][:120]}", "✗"
    else:
        detail = (f" (compile {fmt_time(cold['compile_s'])} + run {fmt_time(cold['run_s'])})"
                  if "compile_s" in cold else "")
        ours, verdict = fmt_time(cold["first_call_s"]) + detail, met(cold["first_call_s"], FIRST_CALL_BAR["cold"])
    rows = [[f"first call, {fc['model']} T={fc['t']}, cold (fresh process)", "—", ours, "—",
             f"≤ {FIRST_CALL_BAR['cold']:g} s {verdict}",
             f"~{ref['jax']:g} s" if "jax" in ref else "—", f"~{ref['torch']:g} s" if "torch" in ref else "—", "—",
             "—"]]
    if cached.get("first_call_s") is not None:
        ours = fmt_time(cached["first_call_s"])
        bar = f"≤ {FIRST_CALL_BAR['cached']:g} s {met(cached['first_call_s'], FIRST_CALL_BAR['cached'])}"
    elif "error" in cached:
        ours, bar = f"**FAILED**: {cached['error'][:120]}", f"≤ {FIRST_CALL_BAR['cached']:g} s ✗"
    else:
        ours, bar = f"n/a ({cached.get('note', 'not measured')})", f"≤ {FIRST_CALL_BAR['cached']:g} s"
    rows.append([f"first call, {fc['model']} T={fc['t']}, from the disk cache", "—", ours, "—", bar, "—", "—", "—",
                 "—"])
    return rows


def decode_rows(d: dict) -> list[list[str]]:
    """Generation with the KV cache (benchmarks/decode.py): ours per decode step against three references."""
    if "error" in d:
        return [[f"decode, {d.get('model', 'GPT-2')}", "—", f"**FAILED**: {d['error'][:120]}", "—", "✗", "—", "—",
                 "—", "—"]]
    full = d["scale"] == "full"
    ours = d["ours"]
    label = f"decode, {d['model']}, {d['new_tokens']} tokens after {d['prompt']}"
    mine = (f"{fmt_time(ours['decode_step_s'])} per token ({ours['decode_tokens_per_s']:.1f} tokens/s; "
            f"prefill {fmt_time(ours['prefill_s'])})")
    compile_cell = fmt_time(ours["compile_s"])

    def verdict(value, bar):
        return ("✓" if value >= bar else "✗") if full else "(full scale)"

    from .decode import BAR_VS_BANDWIDTH, BAR_VS_RECOMPUTE
    cached, recompute, limit = d["numpy_cached"], d["numpy_recompute"], d["bandwidth"]
    return [
        [f"{label}: vs the same class-based NumPy", f"{fmt_time(cached['decode_step_s'])} per token (n = "
         f"{cached['n']})", mine, fmt_ratio(d["vs_numpy_cached"]), "—", "—", "—", "—", compile_cell],
        [f"{label}: vs the NumPy recompute loop", f"{fmt_time(recompute['per_token_s'])} per token (mean over the "
         f"generation)", mine, fmt_ratio(d["vs_recompute"]),
         f"≥ {BAR_VS_RECOMPUTE:g}x {verdict(d['vs_recompute'], BAR_VS_RECOMPUTE)}", "—", "—", "—", "—"],
        [f"{label}: vs the bandwidth limit", f"{fmt_time(limit['limit_step_s'])} per token "
         f"({limit['bytes_per_token'] / 1e6:.0f} MB at {limit['read_bytes_per_s'] / 1e9:.1f} GB/s)", mine,
         fmt_ratio(d["of_bandwidth_limit"]),
         f"≥ {BAR_VS_BANDWIDTH:.2f}x (within 3x) {verdict(d['of_bandwidth_limit'], BAR_VS_BANDWIDTH)}",
         "—", "—", "—", "—"],
    ]


def calls_rows(rows: list) -> list[list[str]]:
    """The overhead of a call on tiny arrays (benchmarks/calls.py), in microseconds, against its bar."""
    return [[f"call overhead: {r['label']}", f"{r['numpy_us']:.2f} us", f"{r['ours_us']:.2f} us "
             f"(+{r['overhead_us']:.2f} us)", fmt_ratio(r["numpy_us"] / r["ours_us"]),
             "— (the bar is for one array)" if r.get("bar_us") is None else
             f"≤ {r['bar_us']:g} us over NumPy {'✓' if r['overhead_us'] <= r['bar_us'] else '✗'}", "—", "—", "—"]
            for r in rows]


def markdown_table(run: dict) -> str:
    rows = [workload_row(r) for r in run["results"]]
    if run.get("first_call"):
        rows += first_call_rows(run["first_call"])
    if run.get("decode"):
        rows += decode_rows(run["decode"])
    if run.get("calls"):
        rows += calls_rows(run["calls"])
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def peer_summary(run: dict, peer: str) -> dict | None:
    """Ours against a live peer over its group (PEER_BARS): the geometric mean and the lowest of ours x peer
    (peer median / ours median), each against its bar. None when the peer was not measured on any workload of the
    group; a workload that ours or the peer failed counts against the bars (it is listed, not averaged)."""
    group, bars = SCOPE[peer], PEER_BARS[peer]
    results = [r for r in run["results"] if r["name"] in GROUPS[group] and "live" in r.get("peers", {}).get(peer, {})]
    if not results:
        return None
    ratios = {r["name"]: r["peers"][peer]["live"]["ours_ratio"] for r in results
              if "ours_ratio" in r["peers"][peer]["live"]}
    failed = [r["name"] for r in results if r["name"] not in ratios]
    summary = {"group": group, "ratios": ratios, "failed": failed, "bars": dict(bars)}
    if ratios:
        summary["geomean"] = math.exp(sum(math.log(v) for v in ratios.values()) / len(ratios))
        summary["lowest"] = min(ratios, key=ratios.get)
        summary["meets_bars"] = (not failed and summary["geomean"] >= bars["geomean"]
                                 and ratios[summary["lowest"]] >= bars["min"])
    else:
        summary["meets_bars"] = False
    return summary


def peer_summary_line(peer: str, s: dict, full: bool) -> str:
    label, bars = LABELS[peer], s["bars"]
    if "geomean" not in s:
        return f"{s['group']} against {label}: no workload measured on both sides ({', '.join(s['failed'])} failed) ✗"
    verdict = {True: "✓", False: "✗"}[s["meets_bars"]] if full else "(bars at full scale)"
    lowest = s["lowest"]
    line = (f"{s['group']} against {label}, ours x {label} (its median / ours): geometric mean "
            f"{fmt_ratio(s['geomean'])} over {len(s['ratios'])} (bar ≥ {bars['geomean']:g}x), lowest "
            f"{fmt_ratio(s['ratios'][lowest])} {lowest} (bar ≥ {bars['min']:g}x) {verdict}")
    return line + (f"; failed: {', '.join(s['failed'])}" if s["failed"] else "") + "."


def notes(run: dict) -> list[str]:
    out = [f"Cells: median (min–max, n = timed calls). ratio = NumPy median / ours median. "
           f"JAX/torch.compile: reference figures measured elsewhere (their ratio = reference NumPy / reference peer)"
           f"{'; live where marked' if run['peers_live'] else ', not installed here'}. "
           f"Numba njit: live only (the `peers` extra), on the loops group; \"ours Nx of it\" = Numba median / ours."]
    full = run["options"]["scale"] == "full"
    for peer in PEER_BARS:
        summary = run.get("peer_bars", {}).get(peer) or peer_summary(run, peer)
        if summary:
            out.append(peer_summary_line(peer, summary, full))
    best = [f"{r['name']} {fmt_ratio(r['numpy']['min_s'] / r['ours']['min_s'])}" for r in run["results"]
            if r.get("ratio")]
    if best:
        out.append("Best case, ratio of the minimums (less sensitive to other processes): " + ", ".join(best) + ".")
    for r in run["results"]:
        st = r.get("ours") or {}
        if st.get("capped"):
            out.append(f"{r['name']}: ours capped at --max-time {run['budget']['max_time']:g} s "
                       f"({st['n']} timed call{'s' if st['n'] != 1 else ''}"
                       f"{', the checking call reused as the sample' if st.get('warmup_reused') else ''}).")
        st = r.get("numpy") or {}
        if st.get("capped"):
            out.append(f"{r['name']}: NumPy capped at --max-time {run['budget']['max_time']:g} s ({st['n']} calls"
                       f"{', the checking call reused as the sample' if st.get('warmup_reused') else ''}).")
    return out


def print_run(run: dict) -> None:
    m = run["machine"]
    print(f"\n{run['started'][:16]}, {m['cpu']}, {m['cpus']} CPUs, NumPy {m['numpy']}, transpiler {run['git'] or '?'}, "
          f"scale {run['options']['scale']}{', quick' if run['options']['quick'] else ''}; load average "
          f"{m['loadavg_start'][0]:.1f} at the start, {m.get('loadavg_end', [float('nan')])[0]:.1f} at the end\n")
    print(markdown_table(run))
    print()
    for line in notes(run):
        print(line)


def write_json(run: dict, path: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(run, f, indent=1)
        f.write("\n")


def tick_label(label: str) -> str:
    return label.replace(", one head", "\none head").replace(" forward ", "\nforward ").replace(" (", "\n(", 1)


def write_png(run: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [r for r in run["results"] if r.get("ratio")]
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * len(results) + 2), 5), layout="constrained")
    xs = range(len(results))
    colors = [{True: "tab:green", False: "tab:orange", None: "tab:gray"}[r["meets_bar"]] for r in results]
    bars = ax.bar(xs, [r["ratio"] for r in results], width=0.6, color=colors, label="ours (x NumPy)")
    for x, r, bar in zip(xs, results, bars):
        ax.hlines(r["bar"], x - 0.4, x + 0.4, colors="tab:red", linestyles="--", linewidth=2,
                  label="bar" if x == 0 else None)
        ax.annotate(fmt_ratio(r["ratio"]), (x, r["ratio"]), ha="center", va="bottom", fontsize=8,
                    xytext=(0, 2), textcoords="offset points")
    markers = {"jax": "o", "torch": "^", "numba": "s"}
    for peer in PEERS:
        points = [(x, r["peers"][peer]["ref_ratio"]) for x, r in zip(xs, results)
                  if r.get("peers", {}).get(peer, {}).get("ref_ratio")]
        if points:
            ax.scatter(*zip(*points), marker=markers[peer], color="black", facecolors="none", zorder=3,
                       label=f"{LABELS[peer]} (reference)")
    ax.axhline(1, color="gray", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(list(xs), [tick_label(r["label"]) for r in results], fontsize=8)
    ax.set_ylabel("speed-up over NumPy (NumPy median / compiled median)")
    ax.set_title(f"transpiler vs NumPy, {run['started'][:16]} ({run['machine']['cpu']}, "
                 f"{run['machine']['cpus']} CPUs, scale {run['options']['scale']})", fontsize=9)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=120)
    plt.close(fig)
