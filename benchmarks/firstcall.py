"""The first call of the whole GPT-2 in this fresh process: `python -m benchmarks.firstcall [--scale S] [--t T]`.

The harness runs it in a subprocess (cold: nothing compiled in memory), with TRANSPILER_CACHE_DIR set by the
caller, and reads the one JSON line it prints: import time, compile time (the specialization, without running),
the first run, and first_call_s = compile + first run, which is what a user waits for. Generating the random
weights is not timed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.firstcall")
    parser.add_argument("--scale", default="full")
    parser.add_argument("--t", type=int, default=8)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    from transpiler import transpile
    import_s = time.perf_counter() - start

    from . import workloads
    from transpiler.stdlib.gpt2.model import gpt2

    config = workloads.gpt2_config(args.scale)
    params = workloads.gpt2_params(args.scale, {})
    ids = workloads.token_ids(args.t, config["n_vocab"], seed=args.t)
    kwargs = {**params, "n_head": config["n_head"]}

    forward = transpile(gpt2)
    out = {"t": args.t, "scale": args.scale, "import_s": import_s, "cache_dir": os.environ.get("TRANSPILER_CACHE_DIR")}
    start = time.perf_counter()
    if hasattr(forward, "specialization"):
        forward.specialization((ids,), kwargs)
        out["compile_s"] = time.perf_counter() - start
        run_start = time.perf_counter()
        forward(ids, **kwargs)
        out["run_s"] = time.perf_counter() - run_start
    else:
        forward(ids, **kwargs)
    out["first_call_s"] = time.perf_counter() - start
    out["compilations"] = forward.compilations
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
