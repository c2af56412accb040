"""Compile-time values the interpreter creates itself: functions defined inside compiled code, bound methods of
run-time arrays, and Python operators on run-time values (so that `sum(list_of_arrays)` works through Python's own
builtins)."""
from __future__ import annotations

import ast
import contextvars
import operator
from dataclasses import dataclass, field

import numpy as np

from ..errors import UserError
from ..program import Var
from ..runtime.signature import is_structure_object, object_attributes

# The interpreter that is compiling right now: Python operators on Vars (called from builtins such as `sum`)
# route their work through it.
current_interpreter: contextvars.ContextVar = contextvars.ContextVar("current_interpreter")


@dataclass(eq=False)
class Closure:
    """A `def` or `lambda` evaluated inside compiled code: its AST, defaults and the frame it closes over."""
    node: ast.FunctionDef | ast.Lambda
    frame: object
    defaults: list
    kw_defaults: list
    filename: str
    name: str = "<lambda>"

    def __call__(self, *args, **kwargs):
        return current_interpreter.get().call(self, list(args), kwargs)


@dataclass(eq=False)
class Interpreted:
    """A plain Python function handed to a builtin (`map(f, xs)`): calling it compiles it, never runs it eagerly."""
    fn: object

    def __call__(self, *args, **kwargs):
        return current_interpreter.get().call(self.fn, list(args), kwargs)


@dataclass(eq=False)
class BoundMethod:
    """`x.sum` for a run-time array `x`: a NumPy method to call with `x` first."""
    name: str
    target: Var
    handler: object = field(repr=False)

    def __call__(self, *args, **kwargs):
        return current_interpreter.get().call(self, list(args), kwargs)


@dataclass
class NdIndex:
    """np.ndindex(*shape), or np.ndenumerate(array) (`array` set), as the iterable of a `for` loop: a run-time loop
    over the product of the dims, each iteration's index tuple unraveled in C order (infer._for_ndindex)."""
    dims: tuple
    array: object = None


@dataclass(eq=False)
class RuntimeRange:
    """range(n) where n is a run-time int: an index (`wpe[range(n)]`) or the trip count of a loop."""
    start: object
    stop: object
    step: object

    def materialize(self, b):
        from .shape_ops import arange
        return arange(b, self.start, self.stop, self.step)


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide, "floordiv": np.floor_divide,
    "mod": np.remainder, "pow": np.power, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift, "matmul": np.matmul,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}


def _binary(ufunc, reflected):
    def method(self, other):
        args = [other, self] if reflected else [self, other]
        return current_interpreter.get().numpy_call(ufunc, args, {}, python_op=True)
    return method


def _unary(ufunc):
    return lambda self: current_interpreter.get().numpy_call(ufunc, [self], {}, python_op=True)


def _no_bool(self):
    raise UserError("the truth value of a run-time array is not known at compile time; use np.where, or a "
                    "comparison of a scalar inside `if`", ValueError)


def install_operators() -> None:
    for name, uf in _BINARY.items():
        setattr(Var, f"__{name}__", _binary(uf, False))
        if name not in ("lt", "le", "gt", "ge"):
            setattr(Var, f"__r{name}__", _binary(uf, True))
    Var.__neg__ = _unary(np.negative)
    Var.__pos__ = _unary(np.positive)
    Var.__invert__ = _unary(np.invert)
    Var.__abs__ = _unary(np.absolute)
    Var.__bool__ = _no_bool
    Var.__index__ = lambda self: _no_bool(self)
    Var.__iter__ = lambda self: iter(current_interpreter.get().iterate_array(self))
    Var.__len__ = _static_len


def _static_len(self):
    if not self.shape:
        raise UserError("len() of unsized object", TypeError)
    if not isinstance(self.shape[0], int):
        raise UserError("len() of a run-time size is not a compile-time int here; use x.shape[0]", TypeError)
    return self.shape[0]


install_operators()
OPERATOR_UFUNCS = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide, ast.Mod: np.remainder, ast.Pow: np.power, ast.MatMult: np.matmul,
    ast.BitAnd: np.bitwise_and, ast.BitOr: np.bitwise_or, ast.BitXor: np.bitwise_xor, ast.LShift: np.left_shift,
    ast.RShift: np.right_shift,
    ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal, ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
    ast.USub: np.negative, ast.UAdd: np.positive, ast.Invert: np.invert,
}
PY_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_,
}


def contains_var(value, objects: bool = False, _seen: set | None = None) -> bool:
    """Whether a Python value holds a run-time value, through lists, tuples and dicts; with `objects`, also through
    the attributes of objects of the user's classes (which may refer to one another in a cycle)."""
    if isinstance(value, Var):
        return True
    if objects:
        _seen = set() if _seen is None else _seen
        if id(value) in _seen:
            return False
        _seen.add(id(value))
    if isinstance(value, (list, tuple)):
        return any(contains_var(v, objects, _seen) for v in value)
    if isinstance(value, dict):
        return any(contains_var(v, objects, _seen) for v in value.values())
    if objects and is_structure_object(value):
        return any(contains_var(v, objects, _seen) for v in object_attributes(value).values())
    return False
