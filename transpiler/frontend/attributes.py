"""Attributes that compiled code rebinds (`self.x = self.F @ self.x`, `self.t += 1`, `opt.m = b1 * opt.m + g`).

An attribute rebound while compiling is state of its own, keyed by the object's identity and the attribute's name,
and held as a local of the function being interpreted under a key no Python name can be (`kf.x`): branches join it,
loops carry it and writes into arrays re-derive it exactly as they do a local variable (control.py). The key moves
with the interpretation, into a called function's frame and back out when it returns (inlined methods share it), so
whatever function runs sees the attribute as the last assignment left it. Only the objects passed as arguments (and
objects reached from them) can be rebound: after the call the runtime sets each rebound attribute of the caller's
object to the value the kernel computed (runtime/call.py), an argument or a view of one as that very object or view.
"""
from __future__ import annotations

import dataclasses
import inspect
import types

import numpy as np

from ..errors import UserError
from ..runtime.signature import MadeObject, is_structure_object, object_attributes
from .scope import Frame

_MISSING = object()


class Attributes:
    def __init__(self, interp):
        self.interp = interp
        self.keys: dict = {}       # key -> (object, attribute name)
        self.key_of: dict = {}     # (id(object), name) -> key
        self.labels: dict = {}     # id(argument object) -> its path among the arguments (`kf`, `model.layers[0]`)
        self.indexes: dict = {}    # id(argument object) -> its index among the call's objects (signature.flatten)
        self.objects: list = []    # the argument objects
        self.where: dict = {}      # key -> (filename, line, col) of its first assignment (for messages)
        self.root = Frame({}, "<attributes>", "<attributes>")   # holds the keys between the top-level call's frames
        self.home = self.root      # the frame whose locals hold the keys now: the innermost function's
        self.writes = 0            # assignments so far (a region that assigned some can be told)
        self.made: dict = {}       # id -> object made in compiled code (kept alive: keys are by identity)

    # ---- the argument objects -------------------------------------------------------------------------------------
    def register(self, objects: dict, arguments: dict) -> None:
        """The call's objects (index -> abstract object, signature.abstract), labelled by their first path among
        the arguments (name -> abstract value)."""
        self.indexes = {id(obj): index for index, obj in objects.items()}
        self.objects = list(objects.values())

        def visit(value, path: str, depth: int) -> None:
            if depth > 16:
                return
            if isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    visit(item, f"{path}[{i}]", depth + 1)
            elif isinstance(value, dict):
                for k, item in value.items():
                    visit(item, f"{path}[{k!r}]", depth + 1)
            elif id(value) in self.indexes and id(value) not in self.labels:
                self.labels[id(value)] = path
                for name, item in object_attributes(value).items():
                    visit(item, f"{path}.{name}", depth + 1)
        for name, value in arguments.items():
            visit(value, name, 0)

    # ---- objects made in compiled code ------------------------------------------------------------------------
    def construct(self, cls: type, args: list, kwargs: dict, where: tuple):
        """`cls(...)` with run-time values: an object of the user's class whose attributes are state of this
        compilation (set by its `__init__`, compiled like any method; a dataclass's generated one by its fields),
        read and rebound like an argument object's, never written back. Returned, it is made anew at each call
        (signature.MadeObject)."""
        if type(cls) is not type or cls.__new__ is not object.__new__:
            raise UserError(f"{cls.__qualname__}(): a class with its own __new__ or metaclass is not supported on "
                            "run-time values", TypeError)
        if self.interp.control.conditional:
            raise UserError(f"{cls.__qualname__}(...) inside a run-time loop or branch is not supported in compiled "
                            "code: make the object before the loop or `if` (or use its values directly)", TypeError)
        obj = object.__new__(cls)
        self.made[id(obj)] = obj
        init = cls.__init__
        if dataclasses.is_dataclass(cls) and getattr(getattr(init, "__code__", None), "co_filename", "") == "<string>":
            # (the __init__ dataclasses generates, from a string: its source cannot be read, its meaning can)
            self._dataclass_init(obj, cls, args, kwargs, where)
        elif init is object.__init__:
            if args or kwargs:
                raise UserError(f"{cls.__name__}() takes no arguments", TypeError)
        elif self.interp.call(init, [obj, *args], kwargs) is not None:
            raise UserError("__init__() should return None", TypeError)
        return obj

    def _dataclass_init(self, obj, cls, args, kwargs, where) -> None:
        """What a dataclass's generated __init__ does: each field from its argument or default, then
        __post_init__ with the InitVar arguments."""
        try:
            bound = inspect.signature(cls.__init__).bind(obj, *args, **kwargs)
        except TypeError as e:
            raise UserError(f"{cls.__name__}(): {e}", TypeError) from None
        bound.apply_defaults()
        for f in dataclasses.fields(cls):
            if f.init:
                value = bound.arguments[f.name]
                if f.default_factory is not dataclasses.MISSING and value is getattr(dataclasses,
                                                                                     "_HAS_DEFAULT_FACTORY", None):
                    value = self.interp.call(f.default_factory, [], {})
            elif f.default is not dataclasses.MISSING:
                value = f.default
            elif f.default_factory is not dataclasses.MISSING:
                value = self.interp.call(f.default_factory, [], {})
            else:
                continue
            self._set(obj, f.name, value, where)
        post = getattr(cls, "__post_init__", None)
        if post is not None:
            init_vars = [bound.arguments[name] for name, f in getattr(cls, "__dataclass_fields__", {}).items()
                         if f._field_type is dataclasses._FIELD_INITVAR]
            self.interp.call(post, [obj, *init_vars], {})

    def made_setattr(self, obj, name: str, value, where: tuple) -> None:
        """object.__setattr__ on an object made in compiled code (a frozen dataclass's __post_init__)."""
        self._set(obj, name, value, where)

    def holds_state(self, obj) -> bool:
        """Whether compiled code holds attributes of obj that the object itself does not have (made in compiled
        code, or an attribute rebound there): Python's own methods run on it would read stale ones."""
        return self.is_made(obj) or any(o is obj for o, _ in self.keys.values())

    def is_made(self, obj) -> bool:
        return self.made.get(id(obj), _MISSING) is obj     # (not .get's None default: None is not made)

    def holds_made(self, value, depth: int = 0) -> bool:
        """Whether a value is or holds (in lists, tuples, dicts) an object made in compiled code."""
        if not self.made or depth > 16:
            return False
        if isinstance(value, (list, tuple)):
            return any(self.holds_made(v, depth + 1) for v in value)
        if isinstance(value, dict):
            return any(self.holds_made(v, depth + 1) for v in value.values())
        return self.is_made(value)

    def returned(self, value, depth: int = 0):
        """A returned value with each object made in compiled code as a MadeObject: its class and its attributes as
        they are now (the call makes the object anew from them)."""
        if depth == 0 and not self.holds_made(value):
            return value
        if depth > 32:
            raise UserError("a returned object holds itself (a cycle), which compiled code cannot return", TypeError)
        if self.is_made(value):
            names, values = [], []
            for key, (o, name) in self.keys.items():
                if o is value:
                    item = self.home.locals.get(key, _MISSING)
                    if item is _MISSING:
                        continue
                    from .control import Undefined
                    if isinstance(item, Undefined):
                        raise UserError(item.why, AttributeError)
                    names.append(name)
                    values.append(self.returned(item, depth + 1))
            return MadeObject((type(value), tuple(names), *values))
        if isinstance(value, list):
            return [self.returned(v, depth + 1) for v in value]
        if isinstance(value, tuple):
            items = [self.returned(v, depth + 1) for v in value]
            return type(value)(*items) if hasattr(type(value), "_fields") else tuple(items)
        if isinstance(value, dict):
            return {k: self.returned(v, depth + 1) for k, v in value.items()}
        return value

    def is_key(self, name) -> bool:
        return name in self.keys

    # ---- reads and writes -----------------------------------------------------------------------------------------
    def read(self, obj, name: str):
        """The value an assignment in compiled code gave obj.name, or _MISSING (not rebound: read the object)."""
        key = self.key_of.get((id(obj), name))
        if key is None:
            return _MISSING
        value = self.home.locals.get(key, _MISSING)
        from .control import Undefined
        if isinstance(value, Undefined):
            raise UserError(value.why, AttributeError)
        return value

    def write(self, obj, name: str, value, where: tuple) -> None:
        """obj.name = value in compiled code (refused where the caller's object could not follow it)."""
        self._check_assignable(obj, name)
        self._set(obj, name, value, where)

    def _set(self, obj, name: str, value, where: tuple) -> None:
        interp = self.interp
        if interp.b.program is not interp.top:      # (inside a function being outlined: the caller's state)
            from .outline import MustInline
            raise MustInline
        key = self.key_of.get((id(obj), name))
        if key is None:
            label = self.labels.get(id(obj))
            if label is None:     # an object made in compiled code: one label per object (`<Linear object 2>`)
                label = self.labels[id(obj)] = f"<{type(obj).__name__} object {len(self.labels) + 1}>"
            key = f"{label}.{name}"
            self.keys[key] = (obj, name)
            self.key_of[(id(obj), name)] = key
            self.where[key] = where
        self.home.locals[key] = value
        self.writes += 1

    def _check_assignable(self, obj, name: str) -> None:
        what = f"assigning an attribute (.{name} = ...)"
        if isinstance(obj, tuple):
            raise UserError(f"{what} of a {type(obj).__name__} (a NamedTuple) is not possible: it is immutable",
                            AttributeError)
        if isinstance(obj, types.ModuleType) or isinstance(obj, type):
            raise UserError(f"{what} of a module or a class is not supported in compiled code: it is shared by every "
                            "caller (pass an object, or return the value)", TypeError)
        if not self.is_made(obj) and (not is_structure_object(obj) or id(obj) not in self.indexes):
            if self.interp.module_level.get(id(obj)) is obj:
                raise UserError(f"{what} of a module-level object is not supported: mutating a module-level object "
                                "from compiled code is not supported", TypeError)
            kind = type(obj).__name__
            raise UserError(f"{what} of a {kind} that is not an argument of the compiled function (or reached from "
                            "one) is not supported: only the objects the caller passes can be rebound, and their new "
                            "attributes are written back after the call", TypeError)
        cls = type(obj)
        if cls.__setattr__ is not object.__setattr__:
            raise UserError(f"{what}: the class {cls.__qualname__} defines __setattr__, which compiled code does not "
                            "run", TypeError)
        raw = next((c.__dict__[name] for c in cls.__mro__ if name in c.__dict__), None)
        if raw is not None and hasattr(type(raw), "__set__") and not isinstance(raw, types.MemberDescriptorType):
            raise UserError(f"{what}: {cls.__qualname__}.{name} is a {type(raw).__name__} (a data descriptor such as a "
                            "property with a setter), which compiled code does not run", TypeError)
        if not hasattr(obj, "__dict__") and not isinstance(raw, types.MemberDescriptorType):
            raise UserError(f"'{cls.__name__}' object has no attribute '{name}' (its __slots__ do not name it)",
                            AttributeError)

    def reached(self, values) -> bool:
        """Whether these values hold (through containers and attributes) an object with a rebound attribute."""
        if not self.keys:
            return False
        rebound = {id(obj) for obj, _ in self.keys.values()}
        seen: set = set()
        pending = list(values)
        while pending:
            v = pending.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            if id(v) in rebound:
                return True
            if isinstance(v, (list, tuple)):
                pending.extend(v)
            elif isinstance(v, dict):
                pending.extend(v.values())
            elif is_structure_object(v):
                pending.extend(object_attributes(v).values())
        return False

    # ---- frames -----------------------------------------------------------------------------------------------------
    def enter(self, frame: Frame) -> Frame:
        """A function starts: the rebound attributes move into its frame. Returns the frame they came from."""
        home = self.home
        self._move(home, frame)
        self.home = frame
        return home

    def leave(self, frame: Frame, home: Frame) -> None:
        """The function ends (or raises): the attributes move back to the caller's frame."""
        self._move(frame, home)
        self.home = home

    def _move(self, source: Frame, target: Frame) -> None:
        if self.keys:
            for key in self.keys:
                if key in source.locals:
                    target.locals[key] = source.locals.pop(key)

    # ---- control flow (control.py) -------------------------------------------------------------------------------
    def current(self, key):
        """What the object itself holds for a key's attribute now (_MISSING if it has none)."""
        obj, name = self.keys[key]
        return object_attributes(obj).get(name, _MISSING)

    def filled(self, t_locals: dict, e_locals: dict) -> tuple:
        """The locals of two branches, each with the rebound attributes only the other assigned as the object holds
        them (an attribute is defined before the branch, unlike a new local variable)."""
        missing_t = [k for k in e_locals if k in self.keys and k not in t_locals]
        missing_e = [k for k in t_locals if k in self.keys and k not in e_locals]
        if not missing_t and not missing_e:
            return t_locals, e_locals
        t_locals, e_locals = dict(t_locals), dict(e_locals)
        for missing, into in ((missing_t, t_locals), (missing_e, e_locals)):
            for k in missing:
                value = self.current(k)
                if value is not _MISSING:
                    into[k] = value
        return t_locals, e_locals

    def before_loop(self) -> dict:
        """The attributes of every argument object as they are before a loop: the value a loop starts from for an
        attribute its body rebinds first."""
        return {id(obj): object_attributes(obj) for obj in self.objects}

    def rebound_in(self, locals_now: dict, snapshot: dict, carried: list, before: dict, same_view) -> list:
        """Keys of attributes a round of a loop body rebound that the loop does not carry yet; each one the
        snapshot lacks gets its value before the loop there."""
        found = []
        for key, (obj, name) in self.keys.items():
            if key in carried or key not in locals_now:
                continue
            now = locals_now[key]
            if key in snapshot:
                old = snapshot[key]
                if now is old or same_view(old, now):
                    continue
            else:
                attrs = before.get(id(obj))
                if attrs is None:
                    attrs = object_attributes(obj)
                old = attrs.get(name, _MISSING)
                if old is _MISSING and self.is_made(obj):
                    raise UserError(f"the attribute '{key}' of an object made in compiled code is first assigned "
                                    "inside a run-time loop: assign it before the loop (a loop that runs zero times "
                                    "would leave it undefined)", AttributeError)
                if old is _MISSING:
                    raise UserError(f"the attribute '{key}' is first assigned inside a run-time loop: assign it before "
                                    "the loop (a loop that runs zero times would leave it undefined)", AttributeError)
                snapshot[key] = old
            found.append(key)
        return found

    # ---- after the call ---------------------------------------------------------------------------------------------
    def final(self) -> list:
        """(object index, attribute name, value, key) of each attribute the call rebinds, as the call leaves it."""
        from .control import Undefined
        out = []
        for key, (obj, name) in self.keys.items():
            if self.is_made(obj):        # (an object of this call's own: nothing to write back)
                continue
            value = self.root.locals.get(key, _MISSING)
            if value is _MISSING:
                continue
            if isinstance(value, Undefined):
                raise UserError(f"the attribute '{key}' is assigned on only one path of a run-time `if`, and it did "
                                "not exist before: after the call it would exist or not as the kernel decided; assign "
                                "it before the `if`", AttributeError)
            out.append((self.indexes[id(obj)], name, value, key))
        return out


def writable_value(value, indexes: dict, key: str):
    """Refuse a value an attribute cannot be given back to the caller as (an object the compiler made from an
    argument: the caller's own object would have to be found). An object made in compiled code (a MadeObject) is
    made anew after the call."""
    if isinstance(value, MadeObject):
        for v in value[2:]:
            writable_value(v, indexes, key)
        return
    if is_structure_object(value) and not isinstance(value, np.generic):
        raise UserError(f"rebinding the attribute '{key}' to an object is not supported in compiled code (only "
                        "arrays, numbers, strings and containers of them are written back)", TypeError)
    if isinstance(value, (list, tuple)):
        for v in value:
            writable_value(v, indexes, key)
    elif isinstance(value, dict):
        for v in value.values():
            writable_value(v, indexes, key)

