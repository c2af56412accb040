"""Typed program -> MLIR (func.func over tensors). One module per primitive family registers its emitters."""
from .emitter import lower_program  # noqa: F401
from . import control, elementwise, indexing, lapack_call, matmul, numpy_call, reduce, shape, strided  # noqa: F401  (they register emitters)
