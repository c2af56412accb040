"""Lists built by `append` inside a run-time loop: `hs = []`, `for t in range(T): ...; hs.append(h)`, then
`np.stack(hs)` (an RNN's time loop, a history of losses).

The compiler interprets a run-time loop's body once, so an append would happen once while compiling (the interpreter
refuses that for lists in general). A list that the loop (a `for` or a `while`) only appends to becomes the rows of
one array instead, and each append writes the next row and counts it. Where a `for` loop's appends are in its body
(or under an `if` there) and the items' sizes are known before it, the rows are made before the loop, sized for the
most appends it can make (the trip count times the appends in the body). Otherwise they grow in it:
- a `while` loop's trip count is known only when its condition turns false, so there is nothing to size the rows by
  before it. Counting the rounds first would run the body twice (its warnings, errors and work too), so the rows
  grow instead, as Python's list does: twice as many rows (and at least 4) when they are full, the rows so far
  copied over. Every trip count gets NumPy's answer, 0 included (no append: an empty list, count 0). A loop whose
  rows may be replaced in any round carries them as a new array each round (one-shot bufferization copies them all
  each round: quadratic), so a `while` loop whose appends are in its body runs inside a loop that makes room for a
  round's appends before the round (_reserving_form): the rows are written in place, grown log(n) times;
- appends in a loop nested in the body (`for i ...: for j ...: hs.append(...)`): the count is known only at run time;
- items whose sizes are computed in the loop (from an array it rebinds: a selection sorted each round) that the
  compiler cannot prove the same in every round: the rows are made at the first append, with its sizes, and each
  later append checks its sizes against the rows' when the kernel runs (a ValueError after the call where they
  differ: NumPy's list would hold items of different shapes, which one array cannot). Where every append is
  unconditional, in a `for` loop's body, its first round runs alone (a loop of one round), making the rows sized
  for every append with that round's sizes, and the other rounds, a loop of their own, write them in place.
The others (appends in nested loops, or conditional ones with sizes computed in the loop) grow in the loop, copying
the rows each round they may grow in.
After the loop the name holds a `RowList`, which takes what NumPy code does with
such a list: `np.stack`, `np.array`, `np.asarray`, `np.concatenate`, `np.vstack`, `np.hstack`, the reductions that
take it as an array, Python's `sum`, `min` and `max` of numbers (folds in Python's order, by Python's comparisons),
`len`, `hs[i]`, `hs[a:b]`, `for h in hs` and returning it (the call makes the list: runtime/signature.RowsReturned);
anything else is refused. A list that holds items before the loop (`xs = [x0]`, or a `while` loop's first round,
run while compiling because its condition was known then) starts with those as its first rows, items of the type
the loop appends.

A row is a copy taken at the append, while NumPy's list holds the appended object itself: a later write into that
object would show in NumPy's list and not in the rows. So the loop may write only into arrays made before it that
nothing appended shares (and no attributes), and after the loop every array the list's items came from (and every
array the loop rebinds a name from or to) is read-only: a write into one is a CompileError, never a stale row."""
from __future__ import annotations

import ast
import copy
import sys

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import derived, is_checkable
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


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def appended_lists(interp, stmt, frame) -> dict:
    """{NAME: [its append statements]} for the lists this `for` or `while` loop only appends to (each append a
    statement of its own, in the body, under an `if` or in a loop nested in it, not in a function nested in it),
    empty or holding only arrays and numbers, held by that name only and made after any run-time loop or branch the
    loop is in; {} when it does anything else with them."""
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
            visit(child, nested or isinstance(node, _SCOPES))
    for s in stmt.body:
        visit(s, False)
    found = {}
    for name, statements in sites.items():
        value = frame.locals.get(name)
        if type(value) is not list or not all(map(_may_be_item, value)) or name in nested_sites:
            continue
        receivers = {id(s.value.func.value) for s in statements}
        uses = [n for n in ast.walk(ast.Module(body=[stmt], type_ignores=[]))
                if isinstance(n, ast.Name) and n.id == name]
        if all(id(n) in receivers for n in uses) and not _held_elsewhere(interp, value, frame, name) \
                and not any(id(value) in outer for outer in interp.outer_containers[:-1]):
            found[name] = statements
    return found


def _may_be_item(value) -> bool:
    """An item a list may hold before the loop that appends to it (its first rows): an array or number."""
    return isinstance(value, (Var, bool, int, float, np.generic)) and not isinstance(value, np.void)


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


def _probe_form(stmt, lists: dict):
    """The loop with each append a call of the probe that records the appended value's type."""
    replace = {id(s): [_placed(ast.Expr(ast.Call(_name(f" probe {name}"), [s.value.args[0]], [])), s)]
               for name, sites in lists.items() for s in sites}
    new = copy.copy(stmt)
    new.body = _rewrite_block(stmt.body, replace)
    return new


def _in_loops(stmt) -> set:
    """The ids of the statements in loops nested in this loop's body (not in nested functions)."""
    found: set = set()

    def visit(node, looped: bool):
        if isinstance(node, _SCOPES):
            return
        if looped and isinstance(node, ast.stmt):
            found.add(id(node))
        for child in ast.iter_child_nodes(node):
            visit(child, looped or isinstance(node, _LOOPS))
    for s in stmt.body:
        visit(s, False)
    return found


def _write_form(stmt, lists: dict, growing: set, reserved: frozenset = frozenset()):
    """The loop with each append `rows[count] = item(value); count += 1` (rows sized before the loop), or for a
    list in `growing`:

        value = item(value)
        if count == rows.shape[0]:
            rows = grow(rows, count, value)     # a new array, with room for more rows
        rows = put(rows, count, value)          # the row written (a new version of a private array)
        count += 1

    and a call of ` start` first in its body and in the body of every loop nested in it."""
    replace = {}
    for name, sites in lists.items():
        rows, count, value = _name(f" rows {name}"), _name(f" count {name}"), _name(f" value {name}")
        for s in sites:
            step = ast.AugAssign(_name(f" count {name}", store=True), ast.Add(), ast.Constant(1))
            item = ast.Call(_name(f" item {name}"), [s.value.args[0]], [])
            if name not in growing:
                target = ast.Subscript(rows, count, ast.Store())
                replace[id(s)] = [_placed(ast.Assign([target], item), s), _placed(step, s)]
                continue
            full = ast.Compare(count, [ast.Eq()], [_capacity(name)])
            grow = ast.Assign([_name(f" rows {name}", store=True)],
                              ast.Call(_name(f" grow {name}"), [rows, count, value], []))
            put = ast.Assign([_name(f" rows {name}", store=True)],
                             ast.Call(_name(f" put {name}"), [rows, count, value], []))
            statements = [ast.Assign([_name(f" value {name}", store=True)], item), put, step]
            if name not in reserved:        # (else room was made before the round: _reserving_form)
                statements.insert(1, ast.If(full, [grow], []))
            replace[id(s)] = [_placed(n, s) for n in statements]
    new = copy.copy(stmt)
    new.body = [_start_call(stmt)] + _rewrite_block(stmt.body, replace)
    _start_nested(new.body)
    return new


def _capacity(name: str) -> ast.expr:
    return ast.Subscript(ast.Attribute(_name(f" rows {name}"), "shape", ast.Load()), ast.Constant(0), ast.Load())


def _reserving_form(stmt: ast.While, lists: dict, reserved: frozenset) -> ast.While:
    """The `while` loop (its write form) run by a loop around it that makes room before its rounds:

        while not done:
            if count + k > rows.shape[0]:            # for each list, k its appends in one round
                rows = grow(rows, count, None)
            while count + k <= rows.shape[0] and test:
                body
            done = count + k <= rows.shape[0]       # (else the rows were full: grown, and on)

    so that the inner loop writes its rows in place: a loop whose rows may be replaced by a larger array in any
    round carries them as a new array each round (one-shot bufferization copies all of them every round)."""
    room = [ast.Compare(ast.BinOp(_name(f" count {name}"), ast.Add(), ast.Constant(len(lists[name]))), [ast.LtE()],
                        [_capacity(name)]) for name in sorted(reserved)]
    fits = room[0] if len(room) == 1 else ast.BoolOp(ast.And(), room)
    inner = copy.copy(stmt)
    inner.test = ast.BoolOp(ast.And(), [fits, stmt.test])
    grows = [ast.If(ast.UnaryOp(ast.Not(), r), [ast.Assign([_name(f" rows {name}", store=True)], ast.Call(
        _name(f" grow {name}"), [_name(f" rows {name}"), _name(f" count {name}"), ast.Constant(None)], []))], [])
        for name, r in zip(sorted(reserved), room)]
    done = ast.Assign([_name(" done", store=True)], copy.deepcopy(fits))
    outer = ast.While(ast.UnaryOp(ast.Not(), _name(" done")), grows + [inner, done], [])
    return _placed(outer, stmt)


def _rebound(stmt) -> set:
    """The names a loop rebinds (its target's too)."""
    names = assigned_names(stmt.body)
    if isinstance(stmt, ast.For):
        names |= assigned_names([ast.Assign([stmt.target], ast.Constant(0))])
    return {n for n in names if not n.startswith(" ")}      # (not the rows' own names)


def _start_call(stmt) -> ast.stmt:
    return _placed(ast.Expr(ast.Call(_name(" start"), [ast.Constant(n) for n in sorted(_rebound(stmt))], [])), stmt)


def _start_nested(stmts: list) -> None:
    """A call of ` start` first in the body of each loop in these statements (copies: _rewrite_block), and the loop
    marked for infer._run_time_region (run_nested)."""
    for s in stmts:
        if isinstance(s, _SCOPES):
            continue
        if isinstance(s, (ast.For, ast.While)):
            _start_nested(s.body)
            s.body = [_start_call(s)] + s.body
            s.row_lists = True
            _start_nested(s.orelse)
            continue
        for f in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, f, None), list):
                _start_nested(getattr(s, f))
        for h in getattr(s, "handlers", None) or getattr(s, "cases", None) or ():
            _start_nested(h.body)


class Start:
    """At the start of each round of the body (of the loop that appends, or of a loop nested in it): the values the
    names that loop rebinds hold then (the last round's, which may be appended objects) become read-only in it."""

    def __init__(self, why: str):
        self.why = why


class Probe:
    """Records the type of each value appended (the last interpretation of the body is the loop's)."""

    def __init__(self, name):
        self.name, self.seen = name, []


class Item:
    """Passes the appended value on to the row write, checking it has the rows' type (its dims too, unless the rows
    grow: Put checks those when the kernel runs), and records the arrays it depends on."""

    def __init__(self, name, item: Var, growing: bool):
        self.name, self.item, self.deps, self.growing = name, item, [], growing


class Grow:
    """A new rows array with room for more rows: `capacity` rows (the loop's trip count times its appends: sized at
    the first append, when its sizes are computed in the loop), else twice as many as it has, and at least 4; the
    rows so far copied into it."""

    def __init__(self, name, item: Var, capacity, appends: int):
        self.name, self.item, self.capacity, self.appends = name, item, capacity, appends


class Put:
    """The rows with row `count` the appended value; a value of other sizes than the rows' (known only when the
    kernel runs) raises a ValueError after the call."""

    def __init__(self, name):
        self.name = name


SPECIALS = (Start, Probe, Item, Grow, Put)


def special_call(interp, fn, args):
    """The calls of the start of a round, the probe, the item check, and the rows' growth and row writes."""
    if isinstance(fn, Start):
        frame = interp.memory.frames[-1]
        _list(_buffers(interp, [frame.locals[n] for n in args if n in frame.locals]), fn.why)
        return None
    if isinstance(fn, Grow):
        return _grow(interp, fn, *args)
    if isinstance(fn, Put):
        return _put(interp, fn, *args)
    (value,) = args
    if isinstance(fn, Probe):
        fn.seen.append(value)
        return None
    item = fn.item
    v = _as_item(value, fn.name)
    env = interp.b.env
    if v.dtype != item.dtype or v.weak != item.weak or v.ndim != item.ndim or v.scalar != item.scalar or \
            not fn.growing and not all(env.same_expression(a, b) for a, b in zip(v.shape, item.shape)):
        raise UserError(f"the items appended to '{fn.name}' in a run-time loop must all be of one type and shape (here "
                        f"{v.type_text()} and {item.type_text()}): NumPy's list would hold both; stack them yourself",
                        TypeError)
    if isinstance(value, Var):
        deps = _buffers(interp, [value])
        fn.deps.extend(deps)
        _list(deps, _WHY_LISTED.format(name=fn.name))    # (a write into it later in this round is refused)
    return value


def _grow(interp, fn: Grow, rows: Var, count, value) -> Var:
    b = interp.b
    if fn.capacity is not None:
        capacity = fn.capacity
    else:       # (at least count + appends in a round: _reserving_form)
        capacity = interp.binop(ast.Add(), interp.call(np.maximum, [interp.binop(ast.Mult(), count, 2), 4], {}),
                                fn.appends)
    value = _as_item(value, fn.name) if value is not None else Var(rows.dtype, rows.shape[1:])
    dims = [_size(interp, d) for d in value.shape]
    new = interp.call(np.empty, [(capacity,) + tuple(dims)], {"dtype": fn.item.dtype})
    # the rows so far: as many as the rows have (count, as the loop grows them when full); their sizes are the
    # value's (Put checked them) unless there are none, so the copy is cut to sizes equal in both: nothing is read or
    # written past either
    env = b.env
    common = [r if env.same_expression(r, d) else derived("same", r, d) for r, d in zip(rows.shape[1:], value.shape)]
    cut = rows if all(env.same_expression(c, r) for c, r in zip(common, rows.shape[1:])) else \
        b.emit1("slice", [rows], rows.dtype, (rows.shape[0],) + tuple(common),
                specs=(("all",),) + tuple(("range", 0, c, 1) for c in common))
    specs = (("range", 0, rows.shape[0], 1),) + tuple(("range", 0, c, 1) for c in common)
    return b.emit1("update_slice", [new, cut], new.dtype, new.shape, specs=specs)


def _put(interp, fn: Put, rows: Var, count, value) -> Var:
    from .indexing import setitem
    b = interp.b
    env = b.env
    v = _as_item(value, fn.name)
    differ = None
    for r, d in zip(rows.shape[1:], v.shape):
        if env.same_expression(r, d):
            continue
        sizes = [b.emit1("size_value", [], dtypes.INT64, (), dim=x) for x in (r, d)]
        ne = b.emit1("ne", sizes, dtypes.BOOL, ())
        differ = ne if differ is None else b.emit1("or", [differ, ne], dtypes.BOOL, ())
    if differ is not None:
        b.check(differ, ValueError, f"the arrays appended to '{fn.name}' in a run-time loop differ in shape: NumPy's "
                                    "list would hold both (np.stack of it raises, np.array makes an object array); "
                                    "compiled code keeps the items as rows of one array")
    return setitem(b, rows, count, value)


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


def run_loop(interp, run, stmt, frame, *rest, lists: dict, **kwargs) -> None:
    """The run-time loop `stmt` (a `for` over `rest[0]`, a RuntimeRange, or a `while`) with the lists it appends to
    as rows of arrays (module docstring)."""
    from .infer import _Speculation
    # 1. the appended values' types: the loop interpreted with probes, then undone
    initial = {name: list(frame.locals[name]) for name in lists}      # (items before the loop: the first rows)
    probes = {name: Probe(name) for name in lists}
    state = _Speculation(interp, frame)
    for name, probe in probes.items():
        frame.locals[f" probe {name}"] = probe
        frame.locals[name] = Building(name)
    writes = interp.attributes.writes
    try:       # (a genuine run-time loop: not `speculating`, which would refuse what its int64 semantics allow)
        run(_probe_form(stmt, lists), frame, *rest, **kwargs)
        probe_wrote = interp.attributes.writes != writes
    finally:
        state.rollback()
    if probe_wrote:
        raise UserError(_ATTRIBUTES_WRITTEN.format(name=next(iter(lists))), TypeError)
    # 2. the rows, made before the loop: sized for every append where the loop's trip count and the items' sizes
    # are known before it, else grown in it
    in_loops = _in_loops(stmt)
    trips = _trips(interp, rest[0]) if isinstance(stmt, ast.For) else None
    env = interp.b.env
    items, counts, growing, reserved = {}, {}, set(), set()
    for name, sites in lists.items():
        seen = probes[name].seen
        if not seen:
            raise UserError(f"the appends to '{name}' in this run-time loop are never reached", TypeError)
        item = _as_item(seen[-1], name)
        first = initial[name]
        for v in first:
            t = _as_item(v, name)
            if (t.dtype, t.weak, t.ndim, t.scalar) != (item.dtype, item.weak, item.ndim, item.scalar):
                raise UserError(f"the items of '{name}' before a run-time loop that appends to it must be of the type of "
                                f"those it appends (here {t.type_text()} and {item.type_text()}): NumPy's list would "
                                "hold both; stack them yourself", TypeError)
        sized = all(isinstance(env.find(d), int) or _known_before(interp, env.find(d)) for d in item.shape)
        direct = not any(id(s) in in_loops for s in sites)
        capacity = None
        if trips is not None and direct:
            capacity = trips if len(sites) == 1 else interp.binop(ast.Mult(), trips, len(sites))
            if first:
                capacity = interp.binop(ast.Add(), capacity, len(first))
        shape = tuple(_size(interp, d) for d in item.shape) if sized else \
            tuple(_size(interp, d) for d in _as_item(first[0], name).shape) if first else (0,) * item.ndim
        if capacity is not None and sized:
            rows = interp.call(np.empty, [(capacity,) + shape], {"dtype": item.dtype})
        else:
            growing.add(name)
            rows = interp.call(np.empty, [(len(first),) + shape], {"dtype": item.dtype})
            frame.locals[f" grow {name}"] = Grow(name, item, capacity, len(sites))
            if isinstance(stmt, ast.While) and sized and direct:
                reserved.add(name)
            frame.locals[f" put {name}"] = Put(name)
        items[name] = Item(name, item, name in growing)
        for k, v in enumerate(first):       # (NumPy's list holds these arrays themselves: read-only from here on)
            rows = _put(interp, Put(name), rows, k, v)
            items[name].deps.extend(_buffers(interp, [v]))
        _list(_buffers(interp, first), _WHY_LISTED.format(name=name))
        frame.locals[f" rows {name}"] = rows
        frame.locals[f" count {name}"] = len(first)
        frame.locals[f" item {name}"] = items[name]
        frame.locals[name] = Building(name)
        counts[name] = capacity
    why = _WHY_LISTED.format(name=next(iter(lists)))
    frame.locals[" start"] = Start(why)
    # 3. the loop, writing rows; the writes it makes must not reach anything appended
    form = _write_form(stmt, lists, growing)
    runs = [lambda: run(form, frame, *rest, **kwargs)]
    if reserved and reserved == growing:
        form = _reserving_form(_write_form(stmt, lists, growing, frozenset(reserved)), lists, frozenset(reserved))
        frame.locals[" done"] = interp.b.emit1("const", [], dtypes.BOOL, (), value=np.asarray(False), weak=True)
    elif growing and trips is not None and all(s in stmt.body for name in growing for s in lists[name]):
        # items sized in the loop, every append unconditional: its first round alone makes the rows (sized for
        # every append, with that round's sizes); the other rounds, a loop of their own, write them in place
        rng = rest[0]
        after = interp.binop(ast.Add(), rng.start, int(rng.step))
        first_round = RuntimeRange(rng.start, interp.call(np.minimum, [after, rng.stop], {}), rng.step)
        others = _write_form(stmt, lists, growing, frozenset(growing))
        runs = [lambda: run(form, frame, first_round, *rest[1:], **kwargs),
                lambda: run(others, frame, RuntimeRange(after, rng.stop, rng.step), *rest[1:], **kwargs)]
    try:
        _watched(interp, lambda: [r() for r in runs], stmt, frame, list(items.values()), next(iter(lists)))
    finally:
        del frame.locals[" start"]
        frame.locals.pop(" done", None)
    for name, sites in lists.items():
        rows = frame.locals.pop(f" rows {name}")
        count = frame.locals.pop(f" count {name}")
        for key in (f" item {name}", f" grow {name}", f" put {name}", f" value {name}"):
            frame.locals.pop(key, None)
        _list(_buffers(interp, [rows]), _WHY_LISTED.format(name=name))
        full = name not in growing and all(s in stmt.body for s in sites)
        nonempty = full and isinstance(trips, int) and trips > 0 or bool(initial[name])
        item = items[name].item
        if name in growing:         # (the rows' sizes, as the loop left them)
            item = Var(item.dtype, rows.shape[1:], weak=item.weak, scalar=item.scalar)
        frame.locals[name] = RowList(name, frame, rows, counts[name] if full else count, full, nonempty, item)


def _watched(interp, run, stmt, frame, items: list, name: str) -> None:
    """Runs a loop that appends (or one nested in it): a write into an array made before it that something appended
    is or views, or that the loop rebinds a name from, is refused (NumPy's list holds those arrays themselves), as is
    an attribute written; afterwards the arrays the loop rebinds its names from and to are read-only."""
    rebound = _rebound(stmt)
    rebound_from = _buffers(interp, [frame.locals[n] for n in rebound if n in frame.locals])
    before = interp.memory.snapshot()
    written = interp.memory.watch_writes()
    writes = interp.attributes.writes
    try:
        run()
    finally:
        interp.memory.stop_watching()
    if interp.attributes.writes != writes:
        raise UserError(_ATTRIBUTES_WRITTEN.format(name=name), TypeError)
    # (arrays made in the loop are written only before they are appended, or the write was refused: Item, Start)
    appended = {buffer for item in items for buffer in item.deps}
    for buffer in written:
        if interp.memory.existed(before, buffer) and (buffer in appended or buffer in rebound_from):
            raise UserError(f"writing into an array in a run-time loop that appends it (or a view of it) to a list "
                            f"('{name}'), or rebinds a name from it, is not supported: NumPy's list holds "
                            "the appended arrays themselves, so the write could change an item; append a copy "
                            "(`.copy()`)", TypeError)
    rebound_to = _buffers(interp, [frame.locals[n] for n in rebound if n in frame.locals])
    _list(appended | rebound_from | rebound_to, _WHY_LISTED.format(name=name))


def run_nested(interp, run, stmt, frame, *rest, **kwargs):
    """A run-time loop nested in one that appends to a list (marked by _start_nested): run as that one is."""
    found = [v for v in frame.locals.values() if isinstance(v, Item)]
    name = found[0].name if found else "?"
    return _watched(interp, lambda: run(stmt, frame, *rest, **kwargs), stmt, frame, found, name)


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
    stacked = _stacked(interp, rows)
    moved = interp.call(np.moveaxis, [stacked, 0, axis], {})
    shape = [_size(interp, d) for d in item.shape]
    merged = interp.binop(ast.Mult(), _size(interp, stacked.shape[0]), shape[axis])     # (count, as a dim)
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
        if dtype is None:
            return value
        from .indexing import check_items_into
        check_items_into(interp.b, value, rows.item, np.dtype(dtype))   # (NumPy converts each item: 300.0 raises)
        return _astype(interp, value, dtype)
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
        return stacked if rows.item.ndim == 1 else interp.call(np.reshape, [stacked, (_size(interp, stacked.shape[0]),
                                                                                     1)], {})
    if fn is np.hstack and not rest and not kwargs:
        if rows.item.ndim >= 2:
            return _concatenate(interp, rows, 1)
        if rows.item.ndim == 1:
            return _concatenate(interp, rows, 0)
        _not_empty(interp, rows, "need at least one array to concatenate")
        return _stacked(interp, rows)
    if fn in _AS_ARRAY:
        return interp.call(fn, [_as_array(interp, rows), *rest], kwargs)
    if fn in (min, max) and not rest and not kwargs:
        return _python_extreme(interp, fn, rows)
    if fn is sum and len(rest) + len(kwargs) <= 1 and set(kwargs) <= {"start"}:
        return _python_sum(interp, rows, rest[0] if rest else kwargs.get("start", 0))
    rows._refuse()


def _python_extreme(interp, fn, rows: RowList):
    """Python's min(hs) / max(hs): the first item that no later one is less (greater) than, by `<` (`>`) as
    Python compares them, NaNs included (not NumPy's np.min, which returns a NaN wherever one is)."""
    item = rows.item
    if not item.weak and not item.scalar:
        raise UserError(f"{fn.__name__}() of the list '{rows.name}' of arrays built in a run-time loop is not supported "
                        "(Python compares the arrays themselves: for arrays of more than one element NumPy's truth "
                        f"value is ambiguous); use np.{fn.__name__}(np.stack({rows.name}), axis=0)", TypeError)
    _not_empty(interp, rows, f"{fn.__name__}() arg is an empty sequence")
    return interp.call(_least if fn is min else _greatest, [_items(interp, rows), rows.count, _kind(item)], {})


def _kind(item: Var):
    """What makes a row the item the list holds: a Python number of the item's kind, a NumPy scalar as it is."""
    if item.weak:
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[item.dtype.kind]
    return _as_is


def _as_is(x):
    return x


def _least(rows, n, kind):
    best = kind(rows[0])
    for i in range(1, n):
        item = kind(rows[i])
        if item < best:
            best = item
    return best


def _greatest(rows, n, kind):
    best = kind(rows[0])
    for i in range(1, n):
        item = kind(rows[i])
        if item > best:
            best = item
    return best


def _python_sum(interp, rows: RowList, start):
    """Python's sum(hs, start): `start + hs[0] + hs[1] + ...`, in that order (not NumPy's pairwise sum). An empty
    list's sum is `start` itself, which compiled code can give only where adding the items keeps its type (ints to
    an int, Python floats to a float); elsewhere the call raises a ValueError when the list is empty."""
    item = rows.item
    if item.weak and item.dtype.kind == "f" and sys.version_info >= (3, 12):
        raise UserError(f"sum() of the list '{rows.name}' of Python floats built in a run-time loop is not supported "
                        "on Python 3.12 and later (its sum of floats is compensated: Neumaier's); use "
                        f"math.fsum({rows.name}) or np.sum({rows.name})", TypeError)
    same_type = item.weak and (type(start) is int and item.dtype.kind in "iu" or
                               type(start) is float and item.dtype.kind == "f")
    if not same_type:
        _not_empty(interp, rows, f"sum() of the list '{rows.name}', built by appends in a run-time loop, when it is "
                                 f"empty: Python gives its start ({start!r}), of another type than a sum of its items "
                                 "in compiled code; check len() first")
    if item.weak and item.dtype.kind == "f" and (type(start) is int or isinstance(start, Var) and start.weak and
                                                 start.dtype.kind in "iu"):
        start = interp.call(float, [start], {})     # (int + float is float(int) + float in Python: the fold's type)
    return interp.call(_in_order, [_items(interp, rows), rows.count, start, _kind(item)], {})


def _in_order(rows, n, start, kind):
    total = start
    for i in range(n):
        total = total + kind(rows[i])
    return total


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

