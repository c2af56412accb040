"""Neural-network building blocks in plain NumPy. They run eagerly as they are, and compile unmodified."""
import numpy as np


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def softmax(x):
    numerator = np.exp(x - x.max(axis=-1, keepdims=True))     # stable: the row max is subtracted first
    return numerator / numerator.sum(axis=-1, keepdims=True)


def layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)              # centered, two-pass: no E[x^2] - E[x]^2 cancellation
    return g * (x - mean) / np.sqrt(variance + eps) + b


def linear(x, w, b):
    return x @ w + b                                          # [n, in] @ [in, out] -> [n, out]


def attention(q, k, v, mask):
    """Scaled dot-product attention. NumPy 2: np.sqrt of an int is a float64 scalar, so float32 scores become
    float64 here, in NumPy and compiled alike."""
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v  # [n, d] @ [d, n] -> [n, n] -> [n, d]


def causal_mask(n, dtype):
    return (1 - np.tri(n, dtype=dtype)) * -1e10               # [n, n]: 0 on and below the diagonal


def mha(x, c_attn, c_proj, n_head):
    """Causal multi-head self-attention: heads split with np.split, merged with np.hstack."""
    x = linear(x, **c_attn)                                   # [n, 3 * d]
    qkv = np.split(x, 3, axis=-1)                             # 3 x [n, d]
    heads = [np.split(t, n_head, axis=-1) for t in qkv]       # 3 x n_head x [n, d / n_head]
    mask = causal_mask(x.shape[0], x.dtype)
    out = [attention(q, k, v, mask) for q, k, v in zip(*heads)]
    return linear(np.hstack(out), **c_proj)                   # [n, d]
