"""GPT-2 parameters: seeded random ones for any config, and Hugging Face `model.safetensors` checkpoints.

The parameters are nested dicts laid out like OpenAI's checkpoint, which model.py unpacks with `**`:
    wte [n_vocab, n_embd], wpe [n_ctx, n_embd], ln_f {g, b},
    blocks: n_layer x {ln_1 {g, b}, ln_2 {g, b},
                       attn {c_attn {w [n_embd, 3*n_embd], b}, c_proj {w [n_embd, n_embd], b}},
                       mlp {c_fc {w [n_embd, 4*n_embd], b}, c_proj {w [4*n_embd, n_embd], b}}}
"""
import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

CONFIGS = {
    # Small enough for tests, but with GPT-2's full vocabulary so that any prompt encodes and every generated id
    # decodes: the embedding is then most of its weights (50257 x 64 floats, 13 MB in float32).
    "tiny": {"n_vocab": 50257, "n_ctx": 128, "n_embd": 64, "n_head": 4, "n_layer": 2},
    "124M": {"n_vocab": 50257, "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12},
}

HEAD_DIM = 64  # every released GPT-2 size: 768/12, 1024/16, 1280/20, 1600/25


def random_params(config, seed=0, dtype=np.float32):
    """Seeded random weights. Embeddings are N(0, 0.02) as in GPT-2, but layer weights are He-initialized
    (std sqrt(2 / n_in): 0.05 and 0.026 at 124M's width) rather than GPT-2's 0.02: with activations at unit scale
    every block shapes the next token, where at 0.02 the tied embedding dominates and greedy decoding repeats one
    token. Biases and layer-norm gains get small noise so that a test notices if one of them is dropped."""
    rng = np.random.default_rng(seed)

    def normal(*shape, mean=0.0, std=0.02):
        return (mean + std * rng.standard_normal(shape, dtype=np.float32)).astype(dtype)  # same values per dtype

    n_embd = config["n_embd"]

    def norm():
        return {"g": normal(n_embd, mean=1.0, std=0.1), "b": normal(n_embd)}

    def dense(n_in, n_out):
        return {"w": normal(n_in, n_out, std=np.sqrt(2 / n_in)), "b": normal(n_out)}

    def block():
        return {"ln_1": norm(),
                "attn": {"c_attn": dense(n_embd, 3 * n_embd), "c_proj": dense(n_embd, n_embd)},
                "ln_2": norm(),
                "mlp": {"c_fc": dense(n_embd, 4 * n_embd), "c_proj": dense(4 * n_embd, n_embd)}}

    return {"wte": normal(config["n_vocab"], n_embd),
            "wpe": normal(config["n_ctx"], n_embd, std=0.01),
            "blocks": [block() for _ in range(config["n_layer"])],
            "ln_f": norm()}


def load_safetensors(path, n_head=None):
    """Reads a Hugging Face GPT-2 `model.safetensors` (names `h.0.attn.c_attn.weight` ..., maybe prefixed with
    `transformer.`); returns (params, config). HF's GPT-2 uses Conv1D, so its weights are already [in, out].
    n_head is not stored in HF checkpoints: it comes from the argument, else from the metadata save_safetensors
    writes, else from GPT-2's head size of 64."""
    tensors = load_file(path)
    prefix = "transformer." if "transformer.wte.weight" in tensors else ""

    def get(name):
        return tensors[prefix + name]

    def norm(name):
        return {"g": get(f"{name}.weight"), "b": get(f"{name}.bias")}

    def dense(name):
        return {"w": get(f"{name}.weight"), "b": get(f"{name}.bias")}

    n_layer = sum(1 for name in tensors if name.startswith(f"{prefix}h.") and name.endswith(".ln_1.weight"))
    blocks = [{"ln_1": norm(f"h.{i}.ln_1"),
               "attn": {"c_attn": dense(f"h.{i}.attn.c_attn"), "c_proj": dense(f"h.{i}.attn.c_proj")},
               "ln_2": norm(f"h.{i}.ln_2"),
               "mlp": {"c_fc": dense(f"h.{i}.mlp.c_fc"), "c_proj": dense(f"h.{i}.mlp.c_proj")}}
              for i in range(n_layer)]
    params = {"wte": get("wte.weight"), "wpe": get("wpe.weight"), "blocks": blocks, "ln_f": norm("ln_f")}

    (n_vocab, n_embd), n_ctx = params["wte"].shape, params["wpe"].shape[0]
    if n_head is None:
        with safe_open(path, framework="numpy") as f:
            metadata = f.metadata() or {}
        n_head = int(metadata["n_head"]) if "n_head" in metadata else n_embd // HEAD_DIM
    if n_head < 1 or n_embd % n_head:
        raise ValueError(f"{path}: n_head={n_head} does not divide n_embd={n_embd}; pass n_head")
    config = {"n_vocab": n_vocab, "n_ctx": n_ctx, "n_embd": n_embd, "n_head": n_head, "n_layer": n_layer}
    return params, config


def hf_tensors(tree, prefix):
    """{HF name: array} for a dict of parameters: `g` and `w` are HF's `weight`, `b` its `bias`."""
    tensors = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            tensors.update(hf_tensors(value, f"{prefix}{key}."))
        else:
            tensors[prefix + {"g": "weight", "w": "weight", "b": "bias"}[key]] = value
    return tensors


def save_safetensors(params, path, n_head=None):
    """Writes params in the Hugging Face GPT-2 layout (no `transformer.` prefix), with n_head in the metadata."""
    tensors = {"wte.weight": params["wte"], "wpe.weight": params["wpe"], **hf_tensors(params["ln_f"], "ln_f.")}
    for i, block in enumerate(params["blocks"]):
        tensors.update(hf_tensors(block, f"h.{i}."))
    metadata = {"format": "pt"}  # what Hugging Face's loaders expect; the tensors themselves are framework-free
    if n_head is not None:
        metadata["n_head"] = str(n_head)
    save_file({name: np.ascontiguousarray(array) for name, array in tensors.items()}, path, metadata=metadata)
