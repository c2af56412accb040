"""GPT-2 written the other way single-file NumPy models are written: objects that hold their weights, a `__call__`
per layer, and a KV cache per attention layer, preallocated with `np.zeros` and written in place at each step.

Generation runs the prompt once (prefill), then one token at a time: each step computes only the new token's
query, key and value, stores the key and value at its position in the cache, and attends over the cache. The
arithmetic per token is the recompute model's (model.py) restricted to the last row, so the two give the same ids.

`GPT2(params, n_head)` takes the same nested-dict weights as model.gpt2. Calling it, `model(ids, start_pos)`,
processes the token ids `ids` (int64 [L]) at positions start_pos .. start_pos + L - 1 and returns their logits
[L, n_vocab]. `start_pos` is a NumPy integer (`np.int64(...)`): a compiled model then takes it as a run-time value
and compiles once for every position, where a Python int would be a compile-time constant (one kernel per value).

Dtypes follow NEP 50 as in model.py: float32 weights give a float32 first block, and the float64 NumPy scalar
`np.sqrt(head_dim)` makes the attention output, and so the residual stream after the first block, float64. Each
layer's cache holds the dtype of the keys it stores, so the products read the same values as the recompute model's.
"""
import numpy as np

from .model import gelu, softmax


class LayerNorm:
    def __init__(self, g, b, eps=1e-5):
        self.g, self.b, self.eps = g, b, eps

    def __call__(self, x):
        mean = np.mean(x, axis=-1, keepdims=True)
        variance = np.var(x, axis=-1, keepdims=True)
        return self.g * (x - mean) / np.sqrt(variance + self.eps) + self.b


class Linear:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self, c_fc, c_proj):
        self.c_fc, self.c_proj = Linear(**c_fc), Linear(**c_proj)

    def __call__(self, x):
        return self.c_proj(gelu(self.c_fc(x)))


class Attention:
    """Causal self-attention over all heads at once, with this layer's keys and values cached: [n_head, n_ctx,
    head_dim] each, filled up to the last position processed."""

    def __init__(self, c_attn, c_proj, n_head, n_ctx, cache_dtype):
        self.c_attn, self.c_proj = Linear(**c_attn), Linear(**c_proj)
        self.n_head = n_head
        self.head_dim = c_proj["w"].shape[0] // n_head
        self.cache_k = np.zeros((n_head, n_ctx, self.head_dim), dtype=cache_dtype)
        self.cache_v = np.zeros((n_head, n_ctx, self.head_dim), dtype=cache_dtype)

    def heads(self, x):
        """[L, n_head * head_dim] -> [n_head, L, head_dim]: head h is columns h*head_dim .. (h+1)*head_dim."""
        return x.reshape(x.shape[0], self.n_head, self.head_dim).transpose(1, 0, 2)

    def __call__(self, x, start_pos):
        n_seq = x.shape[0]
        q, k, v = np.split(self.c_attn(x), 3, axis=-1)  # 3 x [L, n_embd]
        end = start_pos + n_seq
        self.cache_k[:, start_pos:end] = self.heads(k)  # written in place: the caller's cache changes
        self.cache_v[:, start_pos:end] = self.heads(v)
        keys = self.cache_k[:, :end]  # [n_head, S, head_dim], S = end: every position so far
        values = self.cache_v[:, :end]
        scores = self.heads(q) @ keys.transpose(0, 2, 1) / np.sqrt(self.head_dim)  # [n_head, L, S]
        # causal: the query at position start_pos + i sees keys up to that position (-1e10 as model.py adds)
        future = np.arange(keys.shape[1]) > start_pos + np.arange(n_seq)[:, None]  # [L, S]
        scores = scores + future * -1e10
        out = softmax(scores) @ values  # [n_head, L, head_dim]
        return self.c_proj(out.transpose(1, 0, 2).reshape(n_seq, -1))  # heads side by side: [L, n_embd]


class Block:
    def __init__(self, ln_1, attn, ln_2, mlp, n_head, n_ctx, cache_dtype):
        self.ln_1, self.ln_2 = LayerNorm(**ln_1), LayerNorm(**ln_2)
        self.attn = Attention(**attn, n_head=n_head, n_ctx=n_ctx, cache_dtype=cache_dtype)
        self.mlp = MLP(**mlp)

    def __call__(self, x, start_pos):
        x = x + self.attn(self.ln_1(x), start_pos)
        return x + self.mlp(self.ln_2(x))


class GPT2:
    def __init__(self, params, n_head):
        self.wte, self.wpe = params["wte"], params["wpe"]
        n_ctx = self.wpe.shape[0]
        dtype = self.wte.dtype  # the first block's activations; float64 after it (module doc)
        self.blocks = []
        for block in params["blocks"]:
            self.blocks.append(Block(**block, n_head=n_head, n_ctx=n_ctx, cache_dtype=dtype))
            dtype = np.result_type(dtype, np.float64)
        self.ln_f = LayerNorm(**params["ln_f"])

    def __call__(self, ids, start_pos):
        x = self.wte[ids] + self.wpe[start_pos + np.arange(len(ids))]  # [L, n_embd]
        for block in self.blocks:
            x = block(x, start_pos)
        return self.ln_f(x) @ self.wte.T  # [L, n_vocab]


def generate(model, ids, n_tokens_to_generate, forward=None):
    """Greedy decoding with the cache: yields each new id. `forward` runs the model (pass transpile(model));
    the prompt is one call, then each new token is one call on that token alone."""
    forward = model if forward is None else forward
    ids = np.asarray(ids, dtype=np.int64)
    logits = forward(ids, np.int64(0))  # prefill: the whole prompt, positions 0 .. len(ids) - 1
    position = len(ids)
    for step in range(n_tokens_to_generate):
        next_id = int(np.argmax(logits[-1]))
        yield next_id
        if step + 1 < n_tokens_to_generate:  # the last id needs no logits after it
            logits = forward(np.array([next_id]), np.int64(position))
            position += 1


def warm_up(forward, params, n_head):
    """Call `forward` (a compiled GPT2.__call__) on a scratch model for a prompt and for one token: the two kernels
    a generation uses (a length-1 dim is its own specialization), for every prompt length >= 2 and every position.
    Timing a generation after this counts no compilation."""
    scratch = GPT2(params, n_head)
    forward(scratch, np.zeros(2, np.int64), np.int64(0))
    forward(scratch, np.zeros(1, np.int64), np.int64(2))
