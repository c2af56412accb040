"""Lists built by `append` inside a run-time loop: `hs = []`, `for t in range(T): ...; hs.append(h)`, then
`np.stack(hs)` (an RNN's time loop, a history of losses).

The compiler interprets a run-time loop's body once, so an append would happen once while compiling (the interpreter
refuses that for lists in general). A list that the loop only appends to becomes the rows of one array instead: it
is made before the loop, sized for the most appends the loop can make (the trip count times the appends in the body),
and each append writes the next row. After the loop the name holds a `RowList`, which takes what NumPy code does with
such a list: `np.stack`, `np.array`, `np.asarray`, `np.concatenate`, `np.vstack`, `np.hstack`, the reductions that
take it as an array, `len`, `hs[i]`, `hs[a:b]`, `for h in hs` and returning it (the call makes the list:
runtime/signature.RowsReturned); anything else is refused.

A row is a copy taken at the append, while NumPy's list holds the appended object itself: a later write into that
object would show in NumPy's list and not in the rows. So the loop may write only into arrays made before it that
nothing appended shares (and no attributes), and after the loop every array the list's items came from (and every
array the loop rebinds a name from or to) is read-only: a write into one is a CompileError, never a stale row."""
from __future__ import annotations

import ast
import copy

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import is_checkable
from .control import assigned_names
from .values import RuntimeRange

_WHY_LISTED = ("writing into this array is not supported: it was appended to the list '{name}' in a run-time loop "
               "(or that loop rebinds a name from or to it), and NumPy's list holds the array itself where compiled "
               "code keeps a copy; append a copy (`{name}.append(x.copy())`) to write into the array afterwards")

_ATTRIBUTES_WRITTEN = ("assigning attributes in a run-time loop that appends to a list ('{name}') is not supported: "
                       "NumPy's list holds the appended arrays themselves, which an attribute could reach")

# NumPy functions that make an array of their list argument first (np.asarray) and reduce or transform it
_AS_ARRAY = {np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.prod, np.std, np.var, np.argmax, np.argmin,
             np.any, np.all, np.cumsum, np.median, np.average, np.ptp, np.nansum, np.nanmean, np.nanmax, np.nanmin}


class _Refusing:
    """A compile-time stand-in whose every Python use is refused (_refuse), but for the interpreter's own hooks."""
    name: str

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError

    __len__ = __iter__ = __getitem__ = __contains__ = __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = \
        __ge__ = __add__ = __radd__ = __mul__ = __rmul__ = __array__ = __reduce__ = __copy__ = __deepcopy__ = \
        lambda self, *args, **kwargs: self._refuse()
    __hash__ = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()


class Building(_Refusing):
    """The name of a list while the loop that appends to it is compiled: a read of it there (through a function
    the loop calls) would see no items."""

    def __init__(self, name: str):
        self.name = name

    def _refuse(self, *args, **kwargs):
        raise UserError(f"the list '{self.name}' is read while a run-time loop appends to it (in a function the loop "
                        "calls): compiled code builds it as the rows of an array, complete only after the loop",
                        TypeError)


class RowList(_Refusing):
    """A list made by appends in a run-time loop: its items are `count` rows of `rows`, each of the type of `item`
    (a Var standing for an item: dtype, shape, weak, scalar). `full`: count is the capacity (every append is
    unconditional), `nonempty`: at least one item is known while compiling. `rows` and `count` are names of the frame
    the list was made in (a name no Python code can spell), so that branches and guarded statements join them as
    they join the user's names."""
    made = 0

    def __init__(self, name: str, frame, rows, count, full: bool, nonempty: bool, item: Var):
        RowList.made += 1
        key = f" list {name} {RowList.made}"
        frame.locals[f"{key} rows"], frame.locals[f"{key} count"] = rows, count
        self.name, self.frame, self.key, self.full, self.nonempty, self.item = name, frame, key, full, nonempty, item

    @property
    def rows(self) -> Var:
        return self.frame.locals[f"{self.key} rows"]

    @property
    def count(self):
        return self.frame.locals[f"{self.key} count"]

    def _refuse(self, *args, **kwargs):
        raise UserError(f"the list '{self.name}', built by appends in a run-time loop, is the rows of an array in "
                        "compiled code: it supports np.stack, np.array, np.asarray, np.concatenate, np.vstack, "
                        "np.hstack, reductions such as np.mean, len(), indexing, slicing, a for loop over it and returning it "
                        "from the compiled function; use "
                        f"np.stack({self.name}) for anything else", TypeError)


def among(args, kwargs) -> bool:
    """Whether a call's arguments are such lists themselves (one held deeper, `np.concatenate([hs, x])`, refuses
    itself when the callee iterates it: _Refusing)."""
    return any(isinstance(a, _Refusing) for a in args) or any(isinstance(a, _Refusing) for a in kwargs.values())


def contains(value) -> bool:
    if isinstance(value, _Refusing):
        return True
    if isinstance(value, (list, tuple)):
        return any(contains(v) for v in value)
    if isinstance(value, dict):
        return any(contains(v) for v in value.values())
    return False


# ---- the loop ------------------------------------------------------------------------------------------------------
def _append_target(stmt) -> str | None:
    """NAME for a statement `NAME.append(value)`."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "append" and \
                isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords \
                and not isinstance(call.args[0], ast.Starred):
            return call.func.value.id
    return None


_NESTED = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def appended_lists(interp, stmt: ast.For, frame) -> dict:
    """{NAME: [its append statements]} for the empty lists this loop only appends to (each append a statement of
    its own, outside loops and functions nested in the body), held by that name only and made after any run-time
    loop or branch the loop is in; {} when it does anything else with them."""
    if stmt.orelse or interp.speculating:
        # (a loop over a compile-time range tried as a run-time loop: its appends make it unrolled, as before, so
        # that a table it builds of numbers stays a compile-time list)
        return {}
    sites: dict = {}
    nested_sites: set = set()

    def visit(node, nested: bool):
        if isinstance(node, ast.stmt) and (name := _append_target(node)) is not None:
            sites.setdefault(name, []).append(node)
            if nested:
                nested_sites.add(name)
        for child in ast.iter_child_nodes(node):
            visit(child, nested or isinstance(node, _NESTED))
    for s in stmt.body:
        visit(s, False)
    found = {}
    for name, statements in sites.items():
        value = frame.locals.get(name)
        if type(value) is not list or value or name in nested_sites:
            continue
        receivers = {id(s.value.func.value) for s in statements}
        uses = [n for n in ast.walk(ast.Module(body=[stmt], type_ignores=[]))
                if isinstance(n, ast.Name) and n.id == name]
        if all(id(n) in receivers for n in uses) and not _held_elsewhere(interp, value, frame, name) \
                and not any(id(value) in outer for outer in interp.outer_containers[:-1]):
            found[name] = statements
    return found


def _held_elsewhere(interp, lst: list, frame, name: str) -> bool:
    """Whether anything but `frame`'s name holds the list (another name, a container, an object's attribute):
    that holder would not see the rows."""
    pending = [v for f in interp.memory.frames_in_scope() for n, v in f.locals.items() if not (f is frame and n == name)]
    seen = set()
    while pending:
        v = pending.pop()
        if v is lst:
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (list, tuple)):
            pending.extend(v)
        elif isinstance(v, dict):
            pending.extend(v.values())
        elif hasattr(v, "__dict__") and not isinstance(v, (type, RowList)) and \
                not (type(v).__module__ or "").startswith(("numpy", "transpiler", "builtins")):
            pending.extend(vars(v).values())
    return False


def _rewrite_block(stmts: list, replace: dict) -> list:
    """stmts with each statement in `replace` (by id) replaced by its list of statements, compound statements
    copied where their bodies change (the function's own tree is shared with other compilations)."""
    out = []
    for s in stmts:
        if id(s) in replace:
            out.extend(replace[id(s)])
            continue
        fields = [f for f in ("body", "orelse", "finalbody") if isinstance(getattr(s, f, None), list)]
        handlers = getattr(s, "handlers", None) or getattr(s, "cases", None)
        if not fields and not handlers:
            out.append(s)
            continue
        new = copy.copy(s)
        for f in fields:
            setattr(new, f, _rewrite_block(getattr(s, f), replace))
        if handlers:
            parts = []
            for h in handlers:
                h2 = copy.copy(h)
                h2.body = _rewrite_block(h.body, replace)
                parts.append(h2)
            setattr(new, "handlers" if getattr(s, "handlers", None) else "cases", parts)
        out.append(new)
    return out


def _placed(node, site):
    """A new statement located at the append it replaces (its errors point there)."""
    for n in ast.walk(node):
        if not hasattr(n, "lineno"):
            ast.copy_location(n, site)
    return node


def _name(text: str, store: bool = False) -> ast.Name:
    return ast.Name(id=text, ctx=ast.Store() if store else ast.Load())


def _probe_form(stmt: ast.For, lists: dict) -> ast.For:
    """The loop with each append a call of the probe that records the appended value's type."""
    replace = {id(s): [_placed(ast.Expr(ast.Call(_name(f" probe {name}"), [s.value.args[0]], [])), s)]
               for name, sites in lists.items() for s in sites}
    new = copy.copy(stmt)
    new.body = _rewrite_block(stmt.body, replace)
    return new


def _write_form(stmt: ast.For, lists: dict) -> ast.For:
    """The loop with each append `rows[count] = item(value); count += 1`, and a call of ` start` first."""
    replace = {}
    for name, sites in lists.items():
        for s in sites:
            target = ast.Subscript(_name(f" rows {name}"), _name(f" count {name}"), ast.Store())
            write = ast.Assign([target], ast.Call(_name(f" item {name}"), [s.value.args[0]], []))
            step = ast.AugAssign(_name(f" count {name}", store=True), ast.Add(), ast.Constant(1))
            replace[id(s)] = [_placed(write, s), _placed(step, s)]
    new = copy.copy(stmt)
    new.body = [_placed(ast.Expr(ast.Call(_name(" start"), [], [])), stmt)] + _rewrite_block(stmt.body, replace)
    return new


class Start:
    """At the start of each round of the body: the values the names the loop rebinds hold then (the last round's,
    which may be appended objects) become read-only in it."""

    def __init__(self, names: set, why: str):
        self.names, self.why = names, why


class Probe:
    """Records the type of each value appended (the last interpretation of the body is the loop's)."""

    def __init__(self, name):
        self.name, self.seen = name, []


class Item:
    """Passes the appended value on to the row write, checking it has the rows' type, and records the arrays it
    depends on."""

    def __init__(self, name, item: Var):
        self.name, self.item, self.deps = name, item, []


def special_call(interp, fn, args):
    """The calls of the start of a round, the probe and the item check."""
    if isinstance(fn, Start):
        frame = interp.memory.frames[-1]
        _list(_buffers(interp, [frame.locals[n] for n in fn.names if n in frame.locals]), fn.why)
        return None
    (value,) = args
    if isinstance(fn, Probe):
        fn.seen.append(value)
        return None
    item = fn.item
    v = _as_item(value, fn.name)
    env = interp.b.env
    if v.dtype != item.dtype or v.weak != item.weak or v.ndim != item.ndim or v.scalar != item.scalar or \
            not all(env.same_expression(a, b) for a, b in zip(v.shape, item.shape)):
        raise UserError(f"the items appended to '{fn.name}' in a run-time loop must all be of one type and shape (here "
                        f"{v.type_text()} and {item.type_text()}): NumPy's list would hold both; stack them yourself",
                        TypeError)
    if isinstance(value, Var):
        deps = _buffers(interp, [value])
        fn.deps.extend(deps)
        _list(deps, _WHY_LISTED.format(name=fn.name))    # (a write into it later in this round is refused)
    return value


def _list(buffers, why: str) -> None:
    for buffer in buffers:
        if buffer.listed is None:
            buffer.listed = why


def _as_item(value, name: str) -> Var:
    """The appended value's type as a Var (a Python number as the weak scalar it is in compiled code)."""
    if isinstance(value, Var):
        return value
    if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
        return Var(np.dtype(type(value) if type(value) is not int else np.int64), (), weak=True)
    if isinstance(value, np.generic) and not isinstance(value, np.void):
        return Var(value.dtype, (), scalar=True)
    raise UserError(f"appending a {type(value).__name__} to '{name}' in a run-time loop is not supported: append "
                    "arrays or numbers", TypeError)


def _trips(interp, rng: RuntimeRange):
    """How many times the loop runs: a Python int, or a run-time int (a dim where it is one)."""
    start, stop, step = rng.start, rng.stop, int(rng.step)
    if all(isinstance(v, (int, np.integer)) for v in (start, stop)):
        return len(range(int(start), int(stop), step))
    if isinstance(start, (int, np.integer)) and int(start) == 0 and step == 1 and \
            getattr(stop, "size_of", None) is not None:
        return stop
    span = interp.binop(ast.Sub(), stop, start)
    count = interp.binop(ast.FloorDiv(), interp.binop(ast.Add(), span, step - 1), step)
    return interp.call(np.maximum, [count, 0], {})


def _size(interp, d):
    """A dim as np.empty takes it."""
    d = interp.b.env.find(d)
    if isinstance(d, int):
        return d
    v = interp.b.emit1("size_value", [], dtypes.INT64, (), dim=d, weak=True)
    v.size_of = d
    return v


def run_for(interp, run, stmt: ast.For, frame, rng: RuntimeRange, lists: dict, **kwargs) -> None:
    """The run-time loop `stmt` with the lists it appends to as rows of arrays (module docstring)."""
    from .infer import _Speculation
    # 1. the appended values' types: the loop interpreted with probes, then undone
    probes = {name: Probe(name) for name in lists}
    state = _Speculation(interp, frame)
    for name, probe in probes.items():
        frame.locals[f" probe {name}"] = probe
        frame.locals[name] = Building(name)
    writes = interp.attributes.writes
    try:       # (a genuine run-time loop: not `speculating`, which would refuse what its int64 semantics allow)
        run(_probe_form(stmt, lists), frame, rng, **kwargs)
        probe_wrote = interp.attributes.writes != writes
    finally:
        state.rollback()
    if probe_wrote:
        raise UserError(_ATTRIBUTES_WRITTEN.format(name=next(iter(lists))), TypeError)
    # 2. the rows, made before the loop
    rebound = assigned_names(stmt.body) | assigned_names([ast.Assign([stmt.target], ast.Constant(0))])
    rebound_from = _buffers(interp, [frame.locals[n] for n in rebound if n in frame.locals])
    trips = _trips(interp, rng)
    env = interp.b.env
    items, counts = {}, {}
    for name, sites in lists.items():
        seen = probes[name].seen
        if not seen:
            raise UserError(f"the appends to '{name}' in this run-time loop are never reached", TypeError)
        item = _as_item(seen[-1], name)
        if item.ndim and not all(isinstance(env.find(d), int) or _known_before(interp, env.find(d))
                                 for d in item.shape):
            raise UserError(f"the arrays appended to '{name}' in a run-time loop have a size computed in the loop (from "
                            "an array the loop rebinds, `h.shape[-1]` ...): NumPy's list may hold arrays of different "
                            "sizes; size them by the arguments (a weight's shape) or write them into an array made "
                            "before the loop", TypeError)
        capacity = trips if len(sites) == 1 else interp.binop(ast.Mult(), trips, len(sites))
        rows = interp.call(np.empty, [(capacity,) + tuple(_size(interp, d) for d in item.shape)],
                           {"dtype": item.dtype})
        frame.locals[f" rows {name}"] = rows
        frame.locals[f" count {name}"] = 0
        items[name] = Item(name, item)
        frame.locals[f" item {name}"] = items[name]
        frame.locals[name] = Building(name)
        counts[name] = capacity
    frame.locals[" start"] = Start(rebound, _WHY_LISTED.format(name=next(iter(lists))))
    # 3. the loop, writing rows; the writes it makes must not reach anything appended
    before = interp.memory.snapshot()
    written = interp.memory.watch_writes()
    writes = interp.attributes.writes
    try:
        run(_write_form(stmt, lists), frame, rng, **kwargs)
    finally:
        interp.memory.stop_watching()
    if interp.attributes.writes != writes:
        raise UserError(_ATTRIBUTES_WRITTEN.format(name=next(iter(lists))), TypeError)
    # (arrays made in the loop are written only before they are appended, or the write was refused: Item, Start)
    appended = {buffer for item in items.values() for buffer in item.deps}
    for buffer in written:
        if interp.memory.existed(before, buffer) and (buffer in appended or buffer in rebound_from):
            raise UserError(f"writing into an array in a run-time loop that appends it (or a view of it) to a list "
                            f"('{next(iter(lists))}'), or rebinds a name from it, is not supported: NumPy's list holds "
                            "the appended arrays themselves, so the write could change an item; append a copy "
                            "(`.copy()`)", TypeError)
    del frame.locals[" start"]
    rebound_to = _buffers(interp, [frame.locals[n] for n in rebound if n in frame.locals])
    for name, sites in lists.items():
        rows = frame.locals.pop(f" rows {name}")
        count = frame.locals.pop(f" count {name}")
        del frame.locals[f" item {name}"]
        _list(appended | rebound_from | rebound_to | _buffers(interp, [rows]), _WHY_LISTED.format(name=name))
        full = all(s in stmt.body for s in sites)
        nonempty = full and isinstance(trips, int) and trips > 0
        frame.locals[name] = RowList(name, frame, rows, counts[name] if full else count, full, nonempty,
                                     items[name].item)


def _known_before(interp, dim) -> bool:
    """Whether a symbolic dim is the size of a value that exists before the loop (names in scope, arguments'
    attributes), so the rows can be sized by it there."""
    from ..runtime.signature import object_attributes
    if is_checkable(dim):        # (an expression of the arguments' dims: computed anywhere)
        return True
    env = interp.b.env
    pending = [v for frame in interp.memory.frames_in_scope() for v in frame.locals.values()]
    pending += [v for obj in interp.memory.objects.values() for v in object_attributes(obj).values()]
    seen = set()
    while pending:
        v = pending.pop()
        if isinstance(v, Var):
            if any(env.find(d) == dim for d in v.shape):
                return True
        elif isinstance(v, (list, tuple, dict)) and id(v) not in seen:
            seen.add(id(v))
            pending.extend(v.values() if isinstance(v, dict) else v)
    return False


def _buffers(interp, values) -> set:
    """The buffers these values (arrays, or containers of them) are or view."""
    found = set()
    pending = list(values)
    while pending:
        v = pending.pop()
        if isinstance(v, Var):
            if not v.scalar and not v.weak:
                found.update(buffer for buffer, _ in interp.memory.deps(v))
        elif isinstance(v, (list, tuple)):
            pending.extend(v)
        elif isinstance(v, dict):
            pending.extend(v.values())
    return found


# ---- what the list does after the loop -------------------------------------------------------------------------
def _stacked(interp, rows: RowList) -> Var:
    """The items as one array (count rows), a new array each time (NumPy's stack copies)."""
    from .numpy_api import new_copy
    return new_copy(interp.b, _items(interp, rows))


def returned(interp, value):
    """The compiled function's returned value with each RowList as the rows the call makes a list of
    (runtime/signature.RowsReturned). Refused where another returned array may be one of its items (NumPy's list
    holds that array itself: `return hs, h` with `hs[-1] is h`), which the rows (a copy) are not."""
    from ..runtime.signature import RowsReturned
    lists, others = [], []

    def walk(v):
        if isinstance(v, RowList):
            lists.append(v)
            item = v.item
            kind = "number" if item.weak else "scalar" if item.scalar else "0-d" if not item.ndim else "array"
            return RowsReturned((kind, _stacked(interp, v)))
        if isinstance(v, _Refusing):
            v._refuse()
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, tuple):
            items = [walk(x) for x in v]
            return type(v)(*items) if hasattr(type(v), "_fields") else tuple(items)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        others.append(v)
        return v
    value = walk(value)
    if any(buffer.listed for buffer in _buffers(interp, others)):
        raise UserError(f"returning the list '{lists[0].name}' built by appends in a run-time loop together with an "
                        "array appended to it (or one its loop rebinds a name to) is not supported: NumPy's list holds "
                        "that array itself, compiled code a copy; return np.stack(...) of the list, or a copy of the "
                        "array", TypeError)
    return value


def _not_empty(interp, rows: RowList, message: str, kind=ValueError) -> None:
    """NumPy's error for an empty list where it raises one (np.stack), or a refusal where compiled code cannot give
    NumPy's answer for it."""
    if rows.nonempty:
        return
    count = rows.count
    if isinstance(count, (int, np.integer)):
        if count == 0:
            raise UserError(message, kind)
        return
    empty = interp.call(np.equal, [count, 0], {})
    interp.b.check(interp.control.condition(empty), kind, message, located=False)


def _as_array(interp, rows: RowList) -> Var:
    """np.asarray of the list: NumPy's empty list is a float64 array of shape (0,), which only a list of float64
    numbers gives here too; for other items an empty list is refused when the kernel runs."""
    item = rows.item
    if item.ndim or item.dtype != np.float64:
        _not_empty(interp, rows, f"np.asarray of the list '{rows.name}', built by appends in a run-time loop, when it "
                                 "is empty: NumPy gives a float64 array of shape (0,), which compiled code does not "
                                 "(it gives the items' dtype and shape): stack with a check of len() first")
    return _stacked(interp, rows)


def _axis(axis, ndim: int) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise UserError("the axis of np.stack/np.concatenate of a list built in a run-time loop must be an int known "
                        "while compiling", TypeError)
    if not -ndim <= axis < ndim:
        raise UserError(f"axis {axis} is out of bounds for array of dimension {ndim}", np.exceptions.AxisError)
    return int(axis) % ndim


def _concatenate(interp, rows: RowList, axis) -> Var:
    item = rows.item
    if not item.ndim:
        raise UserError("zero-dimensional arrays cannot be concatenated", ValueError)
    _not_empty(interp, rows, "need at least one array to concatenate")
    axis = _axis(axis, item.ndim)
    moved = interp.call(np.moveaxis, [_stacked(interp, rows), 0, axis], {})
    shape = [_size(interp, d) for d in item.shape]
    merged = interp.binop(ast.Mult(), rows.count, shape[axis])
    return interp.call(np.reshape, [moved, tuple(shape[:axis]) + (merged,) + tuple(shape[axis + 1:])], {})


def call(interp, fn, args: list, kwargs: dict):
    """A function called with a RowList among its arguments."""
    rows = args[0] if args else None
    if isinstance(rows, Building) or not isinstance(rows, RowList) and contains(args):
        _first([*args, *kwargs.values()])._refuse()
    if fn is isinstance and len(args) == 2 and isinstance(rows, RowList) and not contains(args[1]):
        return isinstance([], args[1])
    if not isinstance(rows, RowList) or contains(args[1:]) or contains(kwargs):
        _first([*args, *kwargs.values()])._refuse()
    rest = args[1:]
    if fn is len and not rest and not kwargs:
        count = rows.count        # (a Python int)
        return count if not isinstance(count, Var) or count.weak else \
            interp.b.emit1("copy", [count], count.dtype, (), weak=True)
    if fn is np.stack:
        options = dict(zip(("axis",), rest)) | kwargs
        if set(options) - {"axis"} or len(rest) > 1:
            rows._refuse()
        _not_empty(interp, rows, "need at least one array to stack")
        axis = _axis(options.get("axis", 0), rows.item.ndim + 1)
        stacked = _stacked(interp, rows)
        return stacked if axis == 0 else interp.call(np.moveaxis, [stacked, 0, axis], {})
    if fn in (np.array, np.asarray):
        options = dict(zip(("dtype",), rest)) | kwargs
        if set(options) - {"dtype"} or len(rest) > 1:
            rows._refuse()
        dtype = options.get("dtype")
        # (0-d arrays and numbers: a 1-D array, as NumPy's; of an empty list with a dtype, its (0,) array too)
        value = _stacked(interp, rows) if dtype is not None and not rows.item.ndim else _as_array(interp, rows)
        return value if dtype is None else _astype(interp, value, dtype)
    if fn is np.concatenate:
        options = dict(zip(("axis",), rest)) | kwargs
        if set(options) - {"axis"} or len(rest) > 1:
            rows._refuse()
        return _concatenate(interp, rows, options.get("axis", 0))
    if fn is np.vstack and not rest and not kwargs:
        if rows.item.ndim >= 2:
            return _concatenate(interp, rows, 0)
        _not_empty(interp, rows, "need at least one array to concatenate")
        stacked = _stacked(interp, rows)
        return stacked if rows.item.ndim == 1 else interp.call(np.reshape, [stacked, (rows.count, 1)], {})
    if fn is np.hstack and not rest and not kwargs:
        if rows.item.ndim >= 2:
            return _concatenate(interp, rows, 1)
        if rows.item.ndim == 1:
            return _concatenate(interp, rows, 0)
        _not_empty(interp, rows, "need at least one array to concatenate")
        return _stacked(interp, rows)
    if fn in _AS_ARRAY:
        return interp.call(fn, [_as_array(interp, rows), *rest], kwargs)
    rows._refuse()


def _astype(interp, value: Var, dtype):
    from .numpy_api import METHODS
    return METHODS["astype"](interp.b, value, dtype)


def _first(value) -> _Refusing:
    """The first RowList (or Building) inside value."""
    if isinstance(value, _Refusing):
        return value
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return next(_first(v) for v in items if contains(v))


def _items(interp, rows: RowList) -> Var:
    """The rows the items are (a view: reads only)."""
    return rows.rows if rows.full else interp.subscript(rows.rows, slice(None, rows.count))


def getitem(interp, rows: RowList, index):
    """hs[i] (the item, as the list holds it: a Python number stays one) and hs[a:b] (a list of those items)."""
    stacked = _items(interp, rows)
    if isinstance(index, slice):
        part = interp.subscript(stacked, index)
        from .numpy_api import dim_value
        n = dim_value(interp.b, part, 0)
        return RowList(rows.name, interp.memory.frames[-1], part, n, True, False, rows.item)
    if isinstance(index, (tuple, list)) or isinstance(index, Var) and index.ndim:
        raise UserError("list indices must be integers or slices, not tuple", TypeError)
    value = interp.subscript(stacked, index)
    item = rows.item
    if item.weak:
        return interp.b.emit1("copy", [value], value.dtype, (), weak=True)
    if not item.ndim and not item.scalar:       # a 0-d array appended: the item is that array
        from .numpy_api import _zero_d_array
        return _zero_d_array(interp.b, interp.b.emit1("copy", [value], value.dtype, (), scalar=True))
    return value


def iterated(interp, rows: RowList) -> Var:
    """`for h in hs`: the rows, where each is the item as the list holds it (arrays, NumPy scalars)."""
    if rows.item.weak or (not rows.item.ndim and not rows.item.scalar):
        raise UserError(f"a for loop over the list '{rows.name}' of numbers built in a run-time loop is not "
                        f"supported (its items are Python numbers or 0-d arrays): loop over range(len({rows.name})) "
                        "and index it", TypeError)
    return _items(interp, rows)

