"""The seed article's first example: GELU (tanh approximation) in plain NumPy.

    uv run python -m transpiler examples/gelu.py --emit mlir
    uv run python -m transpiler examples/gelu.py --emit optimized --arg x=float32[?,3072]
"""
import numpy as np


def gelu(x: "float32[?]"):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
