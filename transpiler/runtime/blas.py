"""Matrix products in the kernel call NumPy's own matmul (its BLAS): `convert-linalg-to-std` turns each remaining
`linalg.matmul` / `linalg.batch_matmul` on buffers into a call of an external function named after its operand
types, e.g. `linalg_matmul_viewsxsxf32_viewsxsxf32_viewsxsxf32`; here each such function is a C callback that views
the three memref descriptors as NumPy arrays (no copy) and runs `np.matmul(a, b, out=c)`.

So float32 and float64 products run at BLAS speed on all cores, and mixed products (float64 @ float32) convert
the narrow operand exactly, as NumPy does (but keeping its memory layout, see `callback`), and call the same BLAS.
(Products with few rows do not come here: see matmul_lowering.py.)
"""
from __future__ import annotations

import ctypes
import re

import numpy as np

from . import openmp
from .memref import descriptor_type

_ELEMENT = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
_NAME = re.compile(r"^(?:_mlir_ciface_)?linalg_(?:batch_)?matmul((?:_view(?:sx)+(?:f16|f32|f64)){3})$")
_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def library_functions(llvm_module_text: str) -> list:
    """Names of the matmul library functions the lowered module calls."""
    names = set(re.findall(r"@(linalg_(?:batch_)?matmul(?:_view(?:sx)+(?:f16|f32|f64)){3})\b", llvm_module_text))
    return sorted(names)


def callback(name: str):
    """A C function for `name` (keep a reference: the JIT calls it for the kernel's lifetime)."""
    m = _NAME.match(name)
    if m is None:
        raise ValueError(f"not a matmul library function: {name}")
    operands = []
    for part in m.group(1).split("_view")[1:]:
        rank = part.count("sx")
        operands.append((rank, np.dtype(_ELEMENT[part[2 * rank:]])))

    def matmul(pa, pb, pc):
        a, b, c = (_view(p, rank, dt) for p, (rank, dt) in zip((pa, pb, pc), operands))
        # A mixed product: convert the narrow operand ourselves, keeping its layout (order="K"). NumPy's matmul
        # converts a transposed operand (x @ wte.T) into C order, a gather that took 160 of its 364 ms at
        # (256, 768) @ (768, 50257); the converted view goes to BLAS transposed instead (exact conversion, the
        # same product).
        a, b = (x if x.dtype == c.dtype else x.astype(c.dtype, order="K") for x in (a, b))
        np.matmul(a, b, out=c)
        openmp.after_blas(c.size * a.shape[-1])
    return _CALLBACK(matmul)


def _view(ptr: int, rank: int, dtype: np.dtype) -> np.ndarray:
    d = ctypes.cast(ptr, ctypes.POINTER(descriptor_type(rank))).contents
    item = dtype.itemsize
    shape = tuple(d.sizes)
    strides = tuple(s * item for s in d.strides)
    data = (d.aligned or 0) + d.offset * item
    holder = type("View", (), {})()
    holder.__array_interface__ = {"data": (data, False), "shape": shape, "strides": strides, "typestr": dtype.str,
                                  "version": 3}
    return np.asarray(holder)
