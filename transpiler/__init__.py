"""transpiler: compile plain NumPy functions to CPU kernels through MLIR.

    from transpiler import transpile, emit, check, CompileError
    from transpiler import tanh, exp, sqrt  # the same primitives as np.tanh ...: eager on arrays, known to the compiler
"""
from . import _checkout  # noqa: F401  (first: names the checkout's stdlib/ folder transpiler.stdlib)
from .api import Transpiled, emit, transpile
from .problems import check
from .errors import CompileError
from .primitives import *  # noqa: F401,F403
from .primitives import __all__ as _primitive_names

__all__ = ["transpile", "emit", "check", "CompileError", "Transpiled", *_primitive_names]
__version__ = "0.1.0"
