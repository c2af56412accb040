"""Which NumPy functions, methods and attributes the compiler understands on run-time arrays.

FUNCTIONS maps the Python object (np.tanh, np.where ...) to a handler `(builder, *args, **kwargs) -> value`;
METHODS and ATTRIBUTES map names on a run-time array. A call whose arguments hold no run-time value is not looked
up here at all: it runs in NumPy at compile time (constant folding).
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from . import elementwise as ew

FUNCTIONS: dict = {}
METHODS: dict = {}
ATTRIBUTES: dict = {}
ALWAYS: set = set()  # handled here even without run-time arguments (e.g. functions that return arrays from ints)


def function(*objects):
    def register(handler):
        for obj in objects:
            FUNCTIONS[obj] = handler
        return handler
    return register


def method(*names):
    def register(handler):
        for name in names:
            METHODS[name] = handler
        return handler
    return register


def attribute(name):
    def register(handler):
        ATTRIBUTES[name] = handler
        return handler
    return register


def _ufunc_handler(ufunc):
    def handler(b, *args, dtype=None):
        if len(args) != ufunc.nin:
            raise UserError(f"{ufunc.__name__}() takes {ufunc.nin} arguments ({len(args)} given)", TypeError)
        return ew.apply_ufunc(b, ufunc, list(args), dtype=dtype)
    return handler


for _uf in ew.UFUNC_PRIMS:
    FUNCTIONS[_uf] = _ufunc_handler(_uf)

function(np.where)(ew.where)
function(np.clip)(ew.clip)
method("clip")(ew.clip)
method("astype")(ew.astype)


@function(abs)
def _builtin_abs(b, x):
    return ew.apply_ufunc(b, np.absolute, [x], python_op=True)


def _scalar_type_handler(scalar_type):
    def handler(b, x=0):
        if isinstance(x, Var):
            return _retag(b, x, np.dtype(scalar_type), weak=False)
        return scalar_type(x)
    return handler


for _t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
           np.float32, np.float64):
    FUNCTIONS[_t] = _scalar_type_handler(_t)


def _python_scalar_handler(py_type):
    def handler(b, x):
        if x.ndim != 0:
            raise UserError("only 0-d arrays can be converted to Python scalars", TypeError)
        kind = {bool: dtypes.BOOL, int: dtypes.INT64, float: dtypes.FLOAT64}[py_type]
        return _retag(b, x, kind, weak=True)
    return handler


def _retag(b, x: Var, dtype: np.dtype, weak: bool) -> Var:
    """`x` as `dtype`, a NumPy scalar (or a Python scalar when `weak`) if it has rank 0."""
    prim = "convert" if x.dtype != dtype else "copy"
    return b.emit1(prim, [x], dtype, x.shape, weak=weak, scalar=x.ndim == 0, dtype=dtype)


for _t in (bool, int, float):
    FUNCTIONS[_t] = _python_scalar_handler(_t)


@attribute("dtype")
def _dtype(b, x):
    return x.dtype


@attribute("ndim")
def _ndim(b, x):
    return x.ndim
