"""Operators on objects of the user's classes (`a + b`, `a @ x`, `a == b`, `-a`) whose classes define them in
Python: the method's source is compiled, with Python's order of trying the forward and the reflected method
(a subclass's reflected method first) and NotImplemented. Running the method as Python while compiling would run
it on the compiler's placeholders (an object made in compiled code has no attributes of its own then)."""
from __future__ import annotations

import ast
import types

import numpy as np

from ..errors import UserError
from ..program import Var
from ..runtime.signature import is_structure_object

_BINARY = {
    ast.Add: ("add", "+"), ast.Sub: ("sub", "-"), ast.Mult: ("mul", "*"), ast.Div: ("truediv", "/"),
    ast.FloorDiv: ("floordiv", "//"), ast.Mod: ("mod", "%"), ast.Pow: ("pow", "**"), ast.MatMult: ("matmul", "@"),
    ast.BitAnd: ("and", "&"), ast.BitOr: ("or", "|"), ast.BitXor: ("xor", "^"), ast.LShift: ("lshift", "<<"),
    ast.RShift: ("rshift", ">>"),
}
# comparisons: the method and its reflection (Python's: a < b tries b > a)
_COMPARE = {ast.Eq: ("__eq__", "__eq__", "=="), ast.NotEq: ("__ne__", "__ne__", "!="), ast.Lt: ("__lt__", "__gt__", "<"),
            ast.LtE: ("__le__", "__ge__", "<="), ast.Gt: ("__gt__", "__lt__", ">"), ast.GtE: ("__ge__", "__le__", ">=")}
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}


def _user_method(cls: type, name: str):
    """The class's own Python method `name` (None where it is object's, or not Python source of the user's)."""
    for c in cls.__mro__:
        if name in vars(c):
            raw = vars(c)[name]
            if c is object or not isinstance(raw, types.FunctionType):
                return None
            return raw
    return None


def _has_any(value, names) -> bool:
    return not isinstance(value, Var) and is_structure_object(value) and any(
        _user_method(type(value), n) is not None for n in names)


def _check_source(method, cls, name: str) -> None:
    if getattr(method.__code__, "co_filename", "") == "<string>":    # (dataclasses' generated __eq__ ...)
        raise UserError(f"{cls.__qualname__}.{name} is generated (by dataclasses or exec) and has no source to "
                        "compile: compare the fields themselves", TypeError)


def handles_binary(op, left, right) -> bool:
    if type(op) not in _BINARY:
        return False
    name = _BINARY[type(op)][0]
    return _has_any(left, (f"__{name}__", f"__i{name}__")) or _has_any(right, (f"__r{name}__",))


def binary(interp, op, left, right, inplace: bool = False):
    name, symbol = _BINARY[type(op)]
    lt, rt = type(left), type(right)
    tries = []
    if inplace:
        tries.append((left, f"__i{name}__", right))
    reflected_first = rt is not lt and issubclass(rt, lt) and _user_method(rt, f"__r{name}__") is not None \
        and _user_method(rt, f"__r{name}__") is not _user_method(lt, f"__r{name}__")
    forward, reflected = (left, f"__{name}__", right), (right, f"__r{name}__", left)
    tries += [reflected, forward] if reflected_first else [forward] + ([reflected] if rt is not lt else [])
    return _first_implemented(interp, tries, f"unsupported operand type(s) for {symbol}{'=' if inplace else ''}: "
                                             f"'{lt.__name__}' and '{rt.__name__}'")


def handles_compare(op, left, right) -> bool:
    if type(op) not in _COMPARE:
        return False
    forward, reflected, _ = _COMPARE[type(op)]
    if type(op) is ast.NotEq:     # (object.__ne__ inverts a user's __eq__)
        return _has_any(left, ("__ne__", "__eq__")) or _has_any(right, ("__ne__", "__eq__"))
    return _has_any(left, (forward,)) or _has_any(right, (reflected,))


def compare(interp, op, left, right):
    forward, reflected, symbol = _COMPARE[type(op)]
    if type(op) is ast.NotEq and not (_has_any(left, ("__ne__",)) or _has_any(right, ("__ne__",))):
        # Python's object.__ne__: the inverse of __eq__ where that is implemented
        equal = compare(interp, ast.Eq(), left, right)
        if isinstance(equal, Var):
            return interp.call(bool, [interp.numpy_call(np.logical_not, [interp.control.condition(equal)], {},
                                                        python_op=True)], {})
        return not interp.truth(equal, None, None)
    lt, rt = type(left), type(right)
    reflected_first = rt is not lt and issubclass(rt, lt) and _user_method(rt, reflected) is not None
    tries = [(left, forward, right), (right, reflected, left)]
    if reflected_first:
        tries.reverse()
    try:
        return _first_implemented(interp, tries, "")
    except _NoneImplemented:
        if type(op) in (ast.Eq, ast.NotEq):     # Python's fallback: identity
            return (left is right) == (type(op) is ast.Eq)
        raise UserError(f"'{symbol}' not supported between instances of '{lt.__name__}' and '{rt.__name__}'",
                        TypeError) from None


def handles_unary(op, operand) -> bool:
    return type(op) in _UNARY and _has_any(operand, (_UNARY[type(op)],))


def unary(interp, op, operand):
    name = _UNARY[type(op)]
    return _call(interp, operand, name, [])


class _NoneImplemented(Exception):
    pass


def _first_implemented(interp, tries, message: str):
    for obj, name, other in tries:
        if isinstance(obj, Var) or not is_structure_object(obj):
            continue
        method = _user_method(type(obj), name)
        if method is None:
            continue
        result = _call(interp, obj, name, [other])
        if result is not NotImplemented:
            return result
    if not message:
        raise _NoneImplemented
    raise UserError(message, TypeError)


def _call(interp, obj, name: str, args: list):
    method = _user_method(type(obj), name)
    _check_source(method, type(obj), name)
    interp.class_attribute(type(obj), name, None)     # (guarded: a method replaced on the class compiles again)
    return interp.call(method, [obj, *args], {})
