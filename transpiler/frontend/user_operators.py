"""Operators on objects of the user's classes (`a + b`, `a @ x`, `a == b`, `-a`) whose classes define them in
Python: the method's source is compiled, with Python's order of trying the forward and the reflected method
(a subclass's reflected method first) and NotImplemented. Running the method as Python while compiling would run
it on the compiler's placeholders (an object made in compiled code has no attributes of its own then)."""
from __future__ import annotations

import ast
import builtins
import operator
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


# ---- Python's builtins on objects whose attributes compiled code holds ------------------------------------------
# A builtin run as Python calls the class's special method on the compiler's object, whose attributes (made in
# compiled code, or rebound there) are state of the compilation: the method read the class's attributes instead
# (len(Buf(5)) was the class's `size = 0`) or raised AttributeError. The ones that call one method are compiled
# through it; the others are refused for such an object.
SPECIAL_CALLS = {len: "__len__", abs: "__abs__", float: "__float__", int: "__int__", complex: "__complex__",
                 operator.index: "__index__", hash: "__hash__", round: "__round__"}
_CALLING_BUILTINS = {builtins.iter, builtins.next, reversed, sorted, min, max, sum, list, tuple, set, frozenset, dict,
                     enumerate, zip, map, filter, any, all, str, repr, format, divmod, pow, range, bool, *SPECIAL_CALLS}
_NOT_SPECIAL = {"__init__", "__post_init__", "__new__", "__init_subclass__", "__set_name__", "__class_getitem__",
                "__call__", "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__del__"}


def special_methods(cls: type) -> list:
    """The special methods (`__len__`, `__iter__`, `__lt__` ...) the user's class defines in Python."""
    names = {n for c in cls.__mro__[:-1] for n in vars(c) if n.startswith("__") and n.endswith("__")}
    return sorted(n for n in names - _NOT_SPECIAL if _user_method(cls, n) is not None)


def _stateful(interp, value) -> bool:
    return not isinstance(value, Var) and is_structure_object(value) and interp.attributes.holds_state(value)


def special_call(interp, fn, args: list, kwargs: dict):
    """len(obj), abs(obj) ... of such an object through its compiled method (NotImplemented where fn is not one of
    those, or obj not such an object)."""
    name = SPECIAL_CALLS.get(fn) if _hashable(fn) else None
    if name is None or len(args) != 1 or kwargs or not _stateful(interp, args[0]) \
            or _user_method(type(args[0]), name) is None:
        return NotImplemented
    result = _call(interp, args[0], name, [])
    if fn is len and not isinstance(result, Var):
        if not isinstance(result, int):
            raise UserError(f"'{type(result).__name__}' object cannot be interpreted as an integer", TypeError)
        if result < 0:
            raise UserError("__len__() should return >= 0", ValueError)
    return result


def truth(interp, value):
    """`if obj:` / bool(obj) of such an object: its compiled __bool__, else __len__ (NotImplemented otherwise)."""
    if not _stateful(interp, value):
        return NotImplemented
    if _user_method(type(value), "__bool__") is not None:
        result = _call(interp, value, "__bool__", [])
        if not isinstance(result, (bool, Var)):
            raise UserError(f"__bool__ should return bool, returned {type(result).__name__}", TypeError)
        return result
    if _user_method(type(value), "__len__") is not None:
        return special_call(interp, len, [value], {}) != 0
    return NotImplemented


ITERATING = ("__iter__", "__getitem__", "__len__", "__next__")
CONTAINING = ("__contains__", "__iter__", "__getitem__")
COMPARING = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__")


def refuse_native(interp, fn, values, names=None, items: bool = True, what: str = "") -> None:
    """Refuse a builtin (or, with fn None, the Python operation `what`) that would run special methods (`names`,
    else any) of such an object as Python. `values`: its operands, with `items`, one level into lists, tuples and
    dicts too (whose items sorted, min, max, sum and comparisons compare or add)."""
    if fn is not None and not (_hashable(fn) and fn in _CALLING_BUILTINS):
        return
    for v in values:
        inside = () if not items else v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else ()
        for obj in (v, *inside):
            if not _stateful(interp, obj):
                continue
            found = [n for n in special_methods(type(obj)) if names is None or n in names]
            if found:
                what = f"{getattr(fn, '__name__', fn)}() of" if fn is not None else what
                raise UserError(f"{what} a {type(obj).__name__} whose attributes compiled code sets (made or "
                                f"assigned in the compiled function) is not supported: Python would run its "
                                f"{', '.join(found)} on the compiler's object; call the method or read the "
                                f"attributes directly", TypeError)


def contains(interp, item, container):
    """`item in obj` of such an object through its compiled __contains__ (NotImplemented otherwise)."""
    if not _stateful(interp, container) or _user_method(type(container), "__contains__") is None:
        return NotImplemented
    return _call(interp, container, "__contains__", [item])


def _hashable(fn) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


def item_method(value, name: str):
    """The user's Python __getitem__ / __setitem__ of an object of the user's class (None otherwise): compiled, as
    the operators are (run as Python it read the class's attributes of an object made in compiled code, and failed
    on the run-time values an argument object holds)."""
    if isinstance(value, (Var, list, tuple, dict, np.ndarray)) or not is_structure_object(value):
        return None
    return _user_method(type(value), name)


def call_item_method(interp, value, name: str, args: list):
    return _call(interp, value, name, args)


def refuse_library_call(interp, fn, values) -> None:
    """A library function run as Python (copy.copy, dataclasses.replace ...) on an object whose attributes compiled
    code holds reads its attributes from the object itself, which does not have them: refused (copy.copy of a
    dataclass made in compiled code gave the class's defaults)."""
    for v in values:
        inside = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else ()
        for obj in (v, *inside):
            if _stateful(interp, obj):
                name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
                module = getattr(fn, "__module__", None) or ""
                raise UserError(f"{module + '.' if module else ''}{name}() of a {type(obj).__name__} whose attributes "
                                "compiled code sets (made or assigned in the compiled function) is not supported: it "
                                "would run as Python on the compiler's object, which does not hold them", TypeError)
