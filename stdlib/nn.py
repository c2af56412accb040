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
