"""GPT-2's forward pass in plain NumPy, one function per piece, in the single-file teaching style.

Shapes: n_seq tokens, n_embd model width, n_head heads, n_vocab tokens in the vocabulary. Parameters are nested dicts
laid out like OpenAI's checkpoint (see weights.py). Nothing here casts: under NumPy 2 (NEP 50) the float64 NumPy
scalars from `np.sqrt(...)` promote float32 weights to float64 in gelu and attention, so the logits are float64.
"""
import numpy as np


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))  # subtract the row max so exp cannot overflow
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)  # [n_seq, 1]
    variance = np.var(x, axis=-1, keepdims=True)  # [n_seq, 1]
    return g * (x - mean) / np.sqrt(variance + eps) + b  # [n_seq, n_embd]


def linear(x, w, b):
    return x @ w + b  # [m, in] @ [in, out] + [out] -> [m, out]


def ffn(x, c_fc, c_proj):
    a = gelu(linear(x, **c_fc))  # [n_seq, n_embd] -> [n_seq, 4*n_embd]
    return linear(a, **c_proj)  # [n_seq, 4*n_embd] -> [n_seq, n_embd]


def attention(q, k, v, mask):
    # q, k, v: [n_seq, head_dim], mask: [n_seq, n_seq] -> [n_seq, head_dim]
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn, c_proj, n_head):
    x = linear(x, **c_attn)  # [n_seq, n_embd] -> [n_seq, 3*n_embd]
    qkv = np.split(x, 3, axis=-1)  # 3 x [n_seq, n_embd]
    qkv_heads = list(map(lambda x: np.split(x, n_head, axis=-1), qkv))  # 3 x n_head x [n_seq, head_dim]
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10  # [n_seq, n_seq]: -1e10 above the diagonal
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]  # n_head x [n_seq, head_dim]
    x = np.hstack(out_heads)  # [n_seq, n_embd]
    x = linear(x, **c_proj)  # [n_seq, n_embd]
    return x


def transformer_block(x, mlp, attn, ln_1, ln_2, n_head):
    x = x + mha(layer_norm(x, **ln_1), **attn, n_head=n_head)  # [n_seq, n_embd]
    x = x + ffn(layer_norm(x, **ln_2), **mlp)  # [n_seq, n_embd]
    return x


def gpt2(inputs, wte, wpe, blocks, ln_f, n_head):
    x = wte[inputs] + wpe[range(len(inputs))]  # token + position embeddings: [n_seq, n_embd]
    for block in blocks:
        x = transformer_block(x, **block, n_head=n_head)  # [n_seq, n_embd]
    x = layer_norm(x, **ln_f)  # [n_seq, n_embd]
    return x @ wte.T  # tied output embedding: [n_seq, n_vocab]


def gpt2_with_residuals(inputs, wte, wpe, blocks, ln_f, n_head):
    """gpt2, also returning the residual stream after each block, for tests that compare intermediate values."""
    x = wte[inputs] + wpe[range(len(inputs))]  # [n_seq, n_embd]
    residuals = []
    for block in blocks:
        x = transformer_block(x, **block, n_head=n_head)  # [n_seq, n_embd]
        residuals.append(x)
    x = layer_norm(x, **ln_f)  # [n_seq, n_embd]
    return x @ wte.T, residuals  # [n_seq, n_vocab], n_layer x [n_seq, n_embd]


def generate(inputs, params, n_head, n_tokens_to_generate, forward=gpt2, progress=None):
    """Greedy decoding: the new ids. `forward` runs the model (pass a compiled gpt2), `progress` wraps the steps
    (e.g. tqdm)."""
    inputs = list(inputs)  # grown in place below: keep the caller's list intact
    steps = range(n_tokens_to_generate)
    if progress is not None:
        steps = progress(steps)
    for _ in steps:
        logits = forward(inputs, **params, n_head=n_head)  # [n_seq, n_vocab]
        next_id = np.argmax(logits[-1])  # the most likely next token
        inputs.append(int(next_id))
    return inputs[len(inputs) - n_tokens_to_generate:]
