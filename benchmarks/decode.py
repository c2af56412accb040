"""Generation speed: the class-based GPT-2 with a KV cache (stdlib/gpt2/cached.py), compiled, decoding NEW_TOKENS
tokens greedily after a PROMPT_T-token prompt, against three references measured in the same run:

- the same class-based code run by NumPy;
- the NumPy recompute loop (model.generate over model.gpt2: the whole sequence at every step);
- the memory-bandwidth limit: the weights that one decode step must read (every layer's matrices and the tied
  output embedding, each once) divided by the read bandwidth measured here (a threaded compiled sum over 512 MB).

    uv run python -m benchmarks.decode [--scale full|small] [--numpy-steps N]

Each decode step is one kernel call on one token. NumPy's sides are slow at 124M (the recompute loop takes
seconds per token), so they are sampled: the class-based NumPy decode for the first --numpy-steps steps (its cost
barely depends on the position: attention over at most 74 cached keys), and the recompute forward at three
sequence lengths, its per-token time over the whole generation summed from the straight line through them (its
cost grows with the length). Between the sides the timer pauses, as benchmarks/timing.py explains.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial

import numpy as np

from transpiler import transpile
from transpiler.stdlib.gpt2 import cached
from transpiler.stdlib.gpt2.model import gpt2

from .timing import SWITCH_PAUSE_S
from .workloads import DECODE, gpt2_config, gpt2_params, token_ids

PROMPT_T, NEW_TOKENS = 10, 64
BAR_VS_RECOMPUTE = 20.0      # x the NumPy recompute loop, at least
BAR_VS_BANDWIDTH = 1 / 3     # of the bandwidth limit's tokens/s, at least (within 3x)


def weight_bytes_per_token(params) -> int:
    """What one decode step must read: every block's arrays and the final norm once, the token embedding once (the
    output projection reads all of it), the position embedding one row."""
    total = params["wte"].nbytes + params["wpe"][0].nbytes
    for block in params["blocks"]:
        for part in block.values():
            for leaf in part.values():
                total += sum(a.nbytes for a in leaf.values()) if isinstance(leaf, dict) else leaf.nbytes
    return total + sum(a.nbytes for a in params["ln_f"].values())


def read_bandwidth(n_bytes: int = 1 << 29, repeats: int = 7) -> float:
    """Bytes per second that a compiled, threaded sum reads from a float32 array too big for any cache."""
    data = np.ones(n_bytes // 4, np.float32)
    total = transpile(lambda a: a.sum())
    total(data)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        total(data)
        times.append(time.perf_counter() - start)
    return n_bytes / min(times)


def timed_generation(model, ids, n_new: int, forward) -> dict:
    """Greedy generation of n_new ids, the prompt's call (prefill) and each decode step timed apart."""
    steps = cached.generate(model, ids, n_new, forward=forward)
    start = time.perf_counter()
    new_ids = [next(steps)]
    prefill_s = time.perf_counter() - start
    step_s = []
    for _ in range(n_new - 1):
        start = time.perf_counter()
        new_ids.append(next(steps))
        step_s.append(time.perf_counter() - start)
    return {"prefill_s": prefill_s, "step_s": step_s, "ids": new_ids}


def compiled_generation(params, n_head, ids) -> dict:
    forward = transpile(cached.GPT2.__call__)
    start = time.perf_counter()
    cached.warm_up(forward, params, n_head)
    compile_s = time.perf_counter() - start
    model = cached.GPT2(params, n_head)
    return {"compile_s": compile_s, **timed_generation(model, ids, NEW_TOKENS, partial(forward, model))}


def numpy_cached_generation(params, n_head, ids, n_steps: int) -> dict:
    model = cached.GPT2(params, n_head)
    return timed_generation(model, ids, n_steps + 1, model)


def numpy_recompute_per_token(params, n_head, ids, n_vocab) -> dict:
    """The recompute loop's average seconds per new token over the whole generation (sequence lengths PROMPT_T to
    PROMPT_T + NEW_TOKENS - 1), from the forward timed at the two ends and the middle."""
    lengths = [PROMPT_T, PROMPT_T + NEW_TOKENS // 2, PROMPT_T + NEW_TOKENS - 1]
    seconds = []
    for n in lengths:
        sequence = (ids + token_ids(NEW_TOKENS, n_vocab, seed=1))[:n]
        start = time.perf_counter()
        gpt2(sequence, **params, n_head=n_head)
        seconds.append(time.perf_counter() - start)
    slope, intercept = np.polyfit(lengths, seconds, 1)
    every = [intercept + slope * n for n in range(PROMPT_T, PROMPT_T + NEW_TOKENS)]
    return {"lengths": lengths, "forward_s": seconds, "per_token_s": float(np.mean(every))}


def measure(scale: str = "full", numpy_steps: int = 8, shared: dict | None = None, log=print) -> dict:
    shared = {} if shared is None else shared
    config = gpt2_config(scale)
    params = gpt2_params(scale, shared)
    n_head = config["n_head"]
    ids = token_ids(PROMPT_T, config["n_vocab"])
    model = "GPT-2 124M" if scale == "full" else "GPT-2 tiny"
    log(f"[{DECODE}] {model}: compiled, {NEW_TOKENS} new tokens after {PROMPT_T}")
    ours = compiled_generation(params, n_head, ids)
    time.sleep(SWITCH_PAUSE_S)
    log(f"[{DECODE}] NumPy, the same class-based code: {numpy_steps} decode steps")
    numpy_cached = numpy_cached_generation(params, n_head, ids, numpy_steps)
    time.sleep(SWITCH_PAUSE_S)
    log(f"[{DECODE}] NumPy recompute loop at 3 sequence lengths")
    recompute = numpy_recompute_per_token(params, n_head, ids, config["n_vocab"])
    time.sleep(SWITCH_PAUSE_S)
    bandwidth = read_bandwidth()
    n_bytes = weight_bytes_per_token(params)
    ours_s = statistics.median(ours["step_s"])
    result = {
        "model": model, "scale": scale, "prompt": PROMPT_T, "new_tokens": NEW_TOKENS,
        "ours": {"compile_s": ours["compile_s"], "prefill_s": ours["prefill_s"], "decode_step_s": ours_s,
                 "decode_tokens_per_s": len(ours["step_s"]) / sum(ours["step_s"]),
                 "step_min_s": min(ours["step_s"]), "step_max_s": max(ours["step_s"]), "n": len(ours["step_s"])},
        "numpy_cached": {"prefill_s": numpy_cached["prefill_s"],
                         "decode_step_s": statistics.median(numpy_cached["step_s"]), "n": numpy_steps},
        "numpy_recompute": recompute,
        "bandwidth": {"bytes_per_token": n_bytes, "read_bytes_per_s": bandwidth, "limit_step_s": n_bytes / bandwidth},
        # greedy ids are a function of the logits: the compiled run's first steps must be NumPy's
        "ids_match_numpy": ours["ids"][:numpy_steps + 1] == numpy_cached["ids"],
    }
    result["vs_numpy_cached"] = result["numpy_cached"]["decode_step_s"] / ours_s
    result["vs_recompute"] = recompute["per_token_s"] / ours_s
    result["of_bandwidth_limit"] = result["bandwidth"]["limit_step_s"] / ours_s
    result["meets_bar"] = (result["vs_recompute"] >= BAR_VS_RECOMPUTE
                           and result["of_bandwidth_limit"] >= BAR_VS_BANDWIDTH) if scale == "full" else None
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.decode", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["full", "small"], default="full")
    parser.add_argument("--numpy-steps", type=int, default=8, metavar="N")
    options = parser.parse_args(argv)
    from .harness import cpu_model
    from .report import decode_rows
    result = measure(options.scale, options.numpy_steps, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(f"{cpu_model()}, {os.cpu_count()} CPUs")
    for row in decode_rows(result):
        print("| " + " | ".join(row) + " |")
    print(json.dumps(result))
    return 0 if result["ids_match_numpy"] else 1


if __name__ == "__main__":
    sys.exit(main())
