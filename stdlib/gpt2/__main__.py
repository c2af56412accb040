"""Greedy GPT-2 generation with the compiled model:

    uv run python -m transpiler.stdlib.gpt2 "PROMPT" --tokens N [--model tiny|124M] [--weights FILE] [--seed S]
        [--check] [--numpy] [--no-cache]

By default the class-based model with a KV cache (cached.py) runs: the prompt in one call, then one call per new
token. --no-cache runs the recompute model (model.py), which processes the whole sequence for every token.
Without --weights the weights are random (seeded), so the text is gibberish, but the ids are a deterministic
function of prompt, config and seed: --check compares them with the plain NumPy run of the same model code.
"""
import argparse
import sys
import time
from functools import partial

from transpiler import transpile

from . import cached
from .model import generate, gpt2

try:   # the demo's own packages: the optional extra transpiler[gpt2] (the model itself needs only NumPy)
    from tqdm import tqdm

    from . import tokenizer
    from .weights import CONFIGS, load_safetensors, random_params
except ImportError as e:
    sys.exit(f"{e}: the GPT-2 demo needs the optional extra transpiler[gpt2] (see the README)")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m transpiler.stdlib.gpt2",
                                     description="Greedy GPT-2 generation with the compiled model.")
    parser.add_argument("prompt", help="text to continue")
    parser.add_argument("--tokens", type=int, default=8, metavar="N", help="how many tokens to generate (default 8)")
    parser.add_argument("--model", choices=sorted(CONFIGS), default="tiny", help="config of the random weights")
    parser.add_argument("--weights", metavar="FILE", help="a Hugging Face GPT-2 model.safetensors (overrides --model)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the random weights (default 0)")
    parser.add_argument("--check", action="store_true", help="also run the NumPy model and compare the ids")
    parser.add_argument("--numpy", action="store_true", help="run the plain NumPy model instead of compiling it")
    parser.add_argument("--no-cache", action="store_true",
                        help="the recompute model (the whole sequence at every step) instead of the KV cache")
    args = parser.parse_args(argv)
    if args.tokens < 1:
        parser.error("--tokens must be at least 1")
    return parser, args


def compiled_forward(ids, params, n_head):
    """transpile(gpt2), compiled here on the prompt so that tokens/s counts generation, not compilation."""
    forward = transpile(gpt2)
    start = time.perf_counter()
    forward(ids, **params, n_head=n_head)  # one kernel for every length: the ids are a run-time int64[?]
    print(f"compiled in {time.perf_counter() - start:.1f} s")
    return forward


def compiled_cached_model(params, n_head):
    """The compiled GPT2.__call__, compiled first (cached.warm_up) so that tokens/s counts generation only. Its
    kernels serve any GPT2 object of the same config: the model's arrays are kernel inputs."""
    forward = transpile(cached.GPT2.__call__)
    start = time.perf_counter()
    cached.warm_up(forward, params, n_head)
    print(f"compiled in {time.perf_counter() - start:.1f} s")
    model = cached.GPT2(params, n_head)
    return model, partial(forward, model)


def run_recompute(args, ids, params, n_head):
    forward, backend = (gpt2, "numpy") if args.numpy else (compiled_forward(ids, params, n_head), "compiled")
    start = time.perf_counter()
    new_ids = generate(ids, params, n_head, args.tokens, forward=forward, progress=partial(tqdm, desc="generating"))
    rate = f"{args.tokens / (time.perf_counter() - start):.2f} tokens/s ({backend}, recompute)"
    return new_ids, [rate], backend, lambda: generate(ids, params, n_head, args.tokens)


def run_cached(args, ids, params, n_head):
    if args.numpy:
        model, backend = cached.GPT2(params, n_head), "numpy"
        forward = model
    else:
        (model, forward), backend = compiled_cached_model(params, n_head), "compiled"
    steps = cached.generate(model, ids, args.tokens, forward=forward)
    start = time.perf_counter()
    new_ids = [next(steps)]  # the prompt's call (prefill) gives the first new id
    prefill = time.perf_counter() - start
    start = time.perf_counter()
    new_ids += tqdm(steps, desc="generating", total=args.tokens - 1)
    decode = time.perf_counter() - start
    rates = [f"prefill: {len(ids)} tokens in {prefill:.3f} s ({len(ids) / prefill:.1f} tokens/s)"]
    if args.tokens > 1:
        rates.append(f"decode: {(args.tokens - 1) / decode:.2f} tokens/s ({backend})")
    return new_ids, rates, backend, lambda: list(cached.generate(cached.GPT2(params, n_head), ids, args.tokens))


def main(argv=None):
    parser, args = parse_args(argv)
    if args.weights:
        params, config = load_safetensors(args.weights)
    else:
        config = CONFIGS[args.model]
        params = random_params(config, seed=args.seed)
    n_head = config["n_head"]

    ids = tokenizer.encode(args.prompt)
    if not ids:
        parser.error("the prompt is empty")
    if max(ids) >= config["n_vocab"]:
        parser.error(f"prompt id {max(ids)} is outside the model's vocabulary of {config['n_vocab']}")
    if len(ids) + args.tokens > config["n_ctx"]:
        parser.error(f"{len(ids)} prompt ids + {args.tokens} new ones exceed the context of {config['n_ctx']}")
    print("prompt ids:", ", ".join(map(str, ids)))

    run = run_recompute if args.no_cache else run_cached
    new_ids, rates, backend, reference = run(args, ids, params, n_head)
    print("new ids:", ", ".join(map(str, new_ids)))
    print("text:", args.prompt + tokenizer.decode(new_ids))
    for line in rates:
        print(line)

    if args.check:
        expected = reference()  # the plain NumPy run of the same model code
        for i, (new_id, expected_id) in enumerate(zip(new_ids, expected)):
            if new_id != expected_id:
                print(f"check failed at new token {i} (sequence position {len(ids) + i}): {backend} gave {new_id}, "
                      f"NumPy gave {expected_id}", file=sys.stderr)
                return 1
        print(f"check: the {args.tokens} ids match the NumPy model's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
