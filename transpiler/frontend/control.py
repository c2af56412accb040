"""Control flow on run-time values: `if` -> scf.if, `for i in range(n)` with a run-time n -> scf.for, `while`
with a run-time condition -> scf.while.

Each region is interpreted once (per fixpoint round) with its own list of primitives. The variables a construct
assigns are found by dataflow: a name whose value differs between the branches of an `if`, or that a loop body
reassigns, is a result of the primitive (loop-carried for loops). At a join the types must agree: a Python scalar
meeting a run-time scalar takes its dtype (as NumPy's weak promotion would) where that dtype holds it (not a float
meeting an int: `_python_number_fits`), a loop-carried value may widen once
(`total = 0` then `total = total + x.sum()` carries float64), anything else is a CompileError naming both places.
A `return` inside a run-time `if` takes the rest of the function into both branches (its continuation).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from ..program import Block, Eqn, Var
from ..types import dtypes
from ..types.shapes import DIM_OPS, Sym, data_sized
from .builder import is_weak
from .elementwise import small_int
from .loop_exits import UNSET, described
from .memory import _STRIDED_STEPS, Alias, Buffer, Ref, State, _path_params, _replayable, var_leaves
from .values import RuntimeRange, contains_var

_MISSING = object()
_RAISED = object()      # a branch that ended in a `raise`: nothing after it runs, its values are never read
_RETURN_IN_LOOP = ("`return` of a tuple, list or dict of run-time values inside a run-time loop is supported as a "
                   "tuple or list display only (`return i, x[i]`), of the same length at every return of the loop: "
                   "return a display, or set variables, `break`, and return after the loop")
_MAX_ROUNDS = 4
# statements guarded per function by an scf.if that yields the arrays they write: in long unrolled code one-shot
# bufferization's analysis grows much faster than the code with them (150 guarded statements: 78 s; 64: 3-10 s,
# docs/semantics.md). Past this many, later statements run as they are (but loops, and arrays sized by the data),
# each of their writes storing the old contents where a check failed (kept_writes.py): no write after a failed check
# changes an array, at any length.
MAX_GUARDS = 64


@dataclass
class Undefined:
    """A name assigned on one path of a run-time branch only: reading it later is an error."""
    name: str
    why: str


def assigned_names(stmts) -> set:
    """Names a list of statements binds (not counting nested function or class scopes)."""
    names: set = set()

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if hasattr(node, "name"):
                names.add(node.name)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)
    for s in stmts:
        visit(s)
    return names


def augmented_only(stmts) -> set:
    """Names that the statements bind only as the target of augmented assignments (`x += 1`)."""
    nodes = [n for s in stmts for n in ast.walk(s)]
    targets = {id(n.target) for n in nodes if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    others = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
              and id(n) not in targets}
    return {n.target.id for n in nodes if id(getattr(n, "target", None)) in targets} - others


_VIEW_METHODS = frozenset({"transpose", "swapaxes", "squeeze", "view"})


def view_bound(stmts) -> set:
    """Names the statements bind to what may be a view (`v = v[1:]`, `v = w.T`, `v = w`, `v = a if c else b`):
    a loop carries those with their position when they start as views (Control._carry_positions). (Other names, such
    as `x = x * 2`, never are: trying would cost the loop another round of interpretation.)"""
    def viewish(value) -> bool:
        if isinstance(value, (ast.Subscript, ast.Attribute, ast.Name, ast.IfExp)):
            return True
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            value.func.attr in _VIEW_METHODS

    names: set = set()

    def bind(target, value):
        if isinstance(target, ast.Name) and viewish(value):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                bind(t, v)
    for node in (n for s in stmts for n in ast.walk(s)):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            bind(node.target, node.value)
    return names


def contains_return(stmts) -> bool:
    def visit(node):
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        return any(visit(c) for c in ast.iter_child_nodes(node))
    return any(visit(s) for s in stmts)


class Control:
    def __init__(self, interp):
        self.interp = interp
        self._conditional = 0

    @property
    def conditional(self) -> int:
        """> 0 inside a run-time branch or loop body: a `raise` there is a run-time check, a size guard one that the
        kernel needs only on that path (types/shapes.ShapeEnv.conditional)."""
        return self._conditional

    @conditional.setter
    def conditional(self, depth: int) -> None:
        self._conditional = depth
        self.b.env.conditional = depth

    @property
    def b(self):
        return self.interp.b

    # ---- regions ------------------------------------------------------------------------------------------
    def record(self, run, inherit: bool = True):
        """Interpret `run()` into a fresh region; the checks it raised become the region's own. A region that runs
        only when no check has failed (a loop body, a guarded statement) starts with no failed check; a branch
        (`inherit`) has the failures of the path that reaches it."""
        checks = self.b.program.checks
        n = len(checks)
        failed = self.b.failed
        self.b.failed = list(failed) if inherit else []
        try:
            with self.b.recording() as eqns:
                value = run()
        finally:
            self.b.failed = failed
        local = checks[n:]
        del checks[n:]
        return eqns, value, local

    def unconditional(self, run):
        """run() where a `raise` is a compile-time error again (an expression's branches, a loop's condition)."""
        depth, self.conditional = self.conditional, 0
        try:
            return run()
        finally:
            self.conditional = depth

    def expression_side(self, run):
        """run() for one side of a conditional expression with a run-time test: a `raise` there is a compile-time
        error (as `unconditional`), but a size guard it makes is needed only when the kernel takes that side
        (ShapeEnv.conditional: its failure runs the call as NumPy, which raises only if it gets there). A run-time
        `if` inside (in a function it calls) leaves its guards unconditional after it: the old ValueError, never a
        wrong answer."""
        depth = self.conditional
        self.conditional = 0
        self.b.env.conditional = depth + 1
        try:
            return run()
        finally:
            self.conditional = depth

    def condition(self, value) -> Var:
        """A run-time truth value as a 0-d bool (NumPy: only size-1 arrays have one)."""
        if value.ndim and not all(self.b.env.find(d) == 1 for d in value.shape):
            raise UserError("The truth value of an array with more than one element is ambiguous. Use a.any() or "
                            "a.all()", ValueError)
        from .shape_ops import reshape
        v = reshape(self.b, value, ()) if value.ndim else value
        return self.b.convert(v, dtypes.BOOL) if v.dtype != dtypes.BOOL else v

    # ---- if ---------------------------------------------------------------------------------------------------
    def run_if(self, stmt: ast.If, frame, test: Var, rest: list, bind=({}, {})):
        """scf.if; with a `return` in a branch, `rest` (the statements after the if) runs in both branches. `bind`:
        names bound to other values at the start of each branch (chosen_write)."""
        cond = self.condition(test)
        with_continuation = contains_return(stmt.body) or contains_return(stmt.orelse)
        tail = rest if with_continuation else []
        snapshot = dict(frame.locals)
        memory = self.memory.snapshot()
        branches = []
        for body, names in zip((stmt.body, stmt.orelse), bind):
            frame.locals = dict(snapshot)

            def run(body=body, names=names):
                self.memory.restore(self.b, memory)     # (the state the names are made in)
                frame.locals.update(names() if callable(names) else names)
                return self._run_branch(body + tail, frame, with_continuation, memory)
            eqns, returned, checks = self.record(run)
            branches.append((eqns, returned, dict(frame.locals), checks, self.memory.snapshot()))
        frame.locals = dict(snapshot)
        self.memory.restore(self.b, memory)
        (t_eqns, t_ret, t_locals, t_checks, t_mem), (e_eqns, e_ret, e_locals, e_checks, e_mem) = branches
        buffers = self._join_buffers(memory, t_mem, e_mem, t_eqns, e_eqns)
        t_raised, e_raised = t_ret is _RAISED, e_ret is _RAISED
        if t_raised and e_raised:         # both paths raise: so does the `if`, once its flags are set
            outs = self.emit_if(cond, t_eqns, e_eqns, [j for _, j in buffers], t_checks, e_checks)
            self._set_versions(buffers, self.rebuild_all([j for _, j in buffers], outs))
            raise self._raise()
        if with_continuation:
            t_val, e_val = (UNSET if r is _RAISED else r if r is not _MISSING else None for r in (t_ret, e_ret))
            joined = self.join_values(t_val, e_val, "the returned value", t_eqns, e_eqns)
            # each returned array (`return x[j]`, `return i, x[:, j]`) that is a view of one array on both paths
            # stays a view of it at the joined position
            pairs = _leaf_pairs(t_val, e_val)
            positions = [self._view_join(t, e, memory, t_eqns, e_eqns) for t, e in pairs]
            # (an argument on one path and another array on the other: which one, for the call: _choice)
            choices = [None if p is not None else self._choice(t, e, memory, t_eqns, e_eqns)
                       for (t, e), p in zip(pairs, positions)]
            extra = [p[1] for p in positions if p is not None] + [c[0] for c in choices if c is not None]
            # the attributes the branches rebind outlive the function: joined as variables are (attributes.py)
            attributes, finish_attributes = self._join_attributes(stmt, frame, snapshot, t_locals, e_locals, t_raised,
                                                                  e_raised, memory, t_eqns, e_eqns, pairs)
            outs = self.emit_if(cond, t_eqns, e_eqns, [joined] + [j for _, j in buffers] + extra + attributes,
                                t_checks, e_checks)
            value, *versions = self.rebuild_all([joined] + [j for _, j in buffers] + extra + attributes, outs)
            attribute_values = versions[len(versions) - len(attributes):]
            params = iter(versions[len(buffers):])
            self._set_versions(buffers, versions[:len(buffers)])
            leaves: list = []
            var_leaves(value, leaves)
            assert len(leaves) == len(pairs), (leaves, pairs)
            for leaf, position in zip(leaves, positions):
                if position is not None:
                    self.memory.strided_view(position[0], leaf, next(params))
            for leaf, (t, e), choice in zip(leaves, pairs, choices):
                if choice is not None:
                    self._alias(leaf, (t, e), memory, choice[1](next(params)))
                elif not isinstance(leaf.ref, Ref):
                    self._alias(leaf, (t, e), memory)
            finish_attributes(attribute_values, leaves)
            return True, value
        if t_raised or e_raised:        # the names of a path that raised are never read again
            t_locals, e_locals = (snapshot if t_raised else t_locals), (snapshot if e_raised else e_locals)
        # (an attribute one branch rebinds is the object's own on the other: attributes.py)
        t_locals, e_locals = self.interp.attributes.filled(t_locals, e_locals)
        names = [n for n in sorted(set(t_locals) | set(e_locals))
                 if t_locals.get(n, _MISSING) is not e_locals.get(n, _MISSING)]
        pairs, views, copies, positions, choices = [], [], [], {}, {}
        for n in names:
            t, e = t_locals.get(n, _MISSING), e_locals.get(n, _MISSING)
            if t_raised or e_raised:
                kept, before = (e, t) if t_raised else (t, e)
                if kept is _MISSING or isinstance(kept, Undefined) or not contains_var(kept):
                    frame.locals[n] = kept if kept is not _MISSING else Undefined(n, f"'{n}' is deleted at line "
                                                                                      f"{stmt.lineno}")
                elif _same_view(before, kept, memory):
                    views.append((n, kept))
                else:
                    pairs.append((n, self.join_values(UNSET if t_raised else kept, UNSET if e_raised else kept,
                                                      f"variable '{n}'", t_eqns, e_eqns)))
                continue
            if t is _MISSING or e is _MISSING or isinstance(t, Undefined) or isinstance(e, Undefined):
                frame.locals[n] = Undefined(n, f"'{n}' is assigned on only one path of the run-time `if` at line "
                                               f"{stmt.lineno}")
                continue
            if not contains_var(t) and not contains_var(e) and _same_constant(t, e):
                frame.locals[n] = t
                continue
            if _same_view(t, e, memory):
                views.append((n, t))          # the same view of an array: re-derived from its joined version
                continue
            same = next((m for m in names[:names.index(n)] if t_locals.get(m, _MISSING) is t
                         and e_locals.get(m, _MISSING) is e and any(m == p for p, _ in pairs)), None)
            if same is not None:              # `b = a` on both paths: one object after the join too
                copies.append((n, same))
                continue
            position = self._view_join(t, e, memory, t_eqns, e_eqns)
            if position is not None:          # two views of one array: a view at a run-time position
                positions[n] = position
            elif (choice := self._choice(t, e, memory, t_eqns, e_eqns)) is not None:
                choices[n] = choice           # an argument or another array: which one, if it is returned
            pairs.append((n, self.join_values(t, e, f"variable '{n}'", t_eqns, e_eqns)))
        joined = [j for _, j in pairs] + [j for _, j in buffers] + [j for _, j in positions.values()] + \
            [j for j, _ in choices.values()]
        outs = self.emit_if(cond, t_eqns, e_eqns, joined, t_checks, e_checks)
        values = self.rebuild_all(joined, outs)
        self._set_versions(buffers, values[len(pairs):len(pairs) + len(buffers)])
        params = dict(zip(positions, values[len(pairs) + len(buffers):]))
        chosen = dict(zip(choices, values[len(pairs) + len(buffers) + len(positions):]))
        for (n, _), value in zip(pairs, values):   # (the values of a path that raised are never read)
            if n in positions:
                frame.locals[n] = self.memory.strided_view(positions[n][0], value, params[n])
                continue
            sources = tuple(loc.get(n) for loc, raised in ((t_locals, t_raised), (e_locals, e_raised)) if not raised)
            frame.locals[n] = self._alias(value, sources, memory, choices[n][1](chosen[n]) if n in choices else None)
        self._tie_shared_branch_arrays([n for n, _ in pairs], frame, t_locals, e_locals, memory)
        for n, same in copies:
            frame.locals[n] = frame.locals[same]
        for n, view in views:
            frame.locals[n] = self.memory.rederive(self.b, view)
        return False, None

    def _join_attributes(self, stmt, frame, snapshot, t_locals, e_locals, t_raised, e_raised, memory, t_eqns,
                         e_eqns, returned: list):
        """For a run-time `if` whose branches end the function (a `return` in one: both run the rest of it): the
        attributes they rebind, joined. Returns (values to join, finish(their joined values, the joined returned
        leaves)), finish setting them in the frame after the join (the other locals end with the function). An
        attribute that holds a returned array on both paths (`return self.x`) is that returned array after the join
        (`returned`: the (then, else) pairs of the returned value's leaves)."""
        attributes = self.interp.attributes
        t_att = {k: v for k, v in (snapshot if t_raised else t_locals).items() if attributes.is_key(k)}
        e_att = {k: v for k, v in (snapshot if e_raised else e_locals).items() if attributes.is_key(k)}
        t_att, e_att = attributes.filled(t_att, e_att)
        keys = [k for k in sorted(set(t_att) | set(e_att)) if t_att.get(k, _MISSING) is not e_att.get(k, _MISSING)]
        fixed, views, joins, as_returned = {}, [], [], {}     # joins: (key, joined, sources, position, choice)
        for k in keys:
            t, e = t_att.get(k, _MISSING), e_att.get(k, _MISSING)
            if any(v is _MISSING or isinstance(v, Undefined) for v in (t, e)):
                fixed[k] = Undefined(k, f"'{k}' is assigned on only one path of the run-time `if` at line "
                                        f"{stmt.lineno}")
            elif not contains_var(t) and not contains_var(e) and _same_constant(t, e):
                fixed[k] = t
            elif _same_view(t, e, memory):
                views.append((k, t))
            elif (i := next((i for i, (rt, re) in enumerate(returned) if rt is t and re is e), None)) is not None:
                as_returned[k] = i
            elif t_raised or e_raised:
                kept = e if t_raised else t
                joins.append((k, self.join_values(UNSET if t_raised else kept, UNSET if e_raised else kept,
                                                  f"the attribute '{k}'", t_eqns, e_eqns), (kept,), None, None))
            else:
                position = self._view_join(t, e, memory, t_eqns, e_eqns)
                choice = self._choice(t, e, memory, t_eqns, e_eqns) if position is None else None
                joins.append((k, self.join_values(t, e, f"the attribute '{k}'", t_eqns, e_eqns), (t, e), position,
                              choice))
        values = [j for _, j, _, _, _ in joins] + [p[1] for _, _, _, p, _ in joins if p is not None] + \
            [c[0] for _, _, _, _, c in joins if c is not None]

        def finish(joined: list, leaves: list) -> None:
            for k, i in as_returned.items():
                frame.locals[k] = leaves[i]
            extra = iter(joined[len(joins):])
            for (k, _, sources, position, choice), value in zip(joins, joined):
                if position is not None:
                    frame.locals[k] = self.memory.strided_view(position[0], value, next(extra))
            for (k, _, sources, position, choice), value in zip(joins, joined):
                if position is None:
                    frame.locals[k] = self._alias(value, sources, memory,
                                                  choice[1](next(extra)) if choice is not None else None)
            frame.locals.update(fixed)
            for k, view in views:
                frame.locals[k] = self.memory.rederive(self.b, view)
        return values, finish

    # ---- writes through an array chosen at run time ---------------------------------------------------------------
    def chosen_write(self, stmt, frame):
        """(flag, bindings, the chosen value, its views) when `stmt` writes into a name that holds one array or
        another as a run-time branch chose (`v = a if k > 0 else b; v[0] = 1`, `v += 1`), each an argument or an
        array the function made before the branch, or into a basic view of such a name (`w = v[1:]; w[0] = 5`),
        and the names are current: the statement then runs as `if flag: <stmt with v = a> else: <stmt with v = b>`
        (run_if), every name holding v or a view of it bound to that array or the same view of it, so its writes
        reach exactly the chosen array, as NumPy's do. None otherwise (the write is refused as before,
        memory.write)."""
        root = _written_name(stmt)
        value = frame.locals.get(root) if root is not None else None
        ref = getattr(value, "ref", None)
        if not isinstance(value, Var) or not isinstance(ref, Alias) or not ref.chosen:
            return None
        chosen = ref.view_of[0] if ref.view_of is not None else value
        ref = chosen.ref
        # (written since the choice, through it or directly, its names are stale; but the statement runs on the
        # chosen arrays' current contents, and every name it binds is made from them)
        if not isinstance(ref, Alias) or ref.choice is None or ref.choice[0] != "choice":
            return None
        _, flag, *forms = ref.choice
        arrays = [self._chosen_array(form) for form in forms]
        if any(a is None or a.dtype != chosen.dtype or a.ndim != chosen.ndim for a in arrays):
            return None
        # (`w = v` before: the same object; views of it, current, with steps a run-time position can express)
        holders = {n: v for n, v in frame.locals.items() if v is chosen or isinstance(v, Var)
                   and isinstance(v.ref, Alias) and v.ref.view_of is not None and v.ref.view_of[0] is chosen}
        views = {n: v.ref.view_of[1] for n, v in holders.items() if v is not chosen}
        if any(s.prim not in _STRIDED_STEPS for path in views.values() for s in path):
            return None
        return flag, tuple(self._bind_chosen(chosen, holders, a) for a in arrays), chosen, views

    def _bind_chosen(self, chosen, holders, array):
        """The names bound on the path where `chosen` is `array` (made in that path's region: run_if): the array,
        and each view of `chosen` the same view of it, at its position (view_params) over the array's axes."""
        def bind():
            made = {}
            for n, v in holders.items():
                if id(v) not in made:
                    if v is chosen:
                        made[id(v)] = array
                    else:
                        params = _path_params(self.b, chosen.shape, v.ref.view_of[1], v.ndim)
                        view = self.b.emit1("strided", [array, *params], v.dtype, v.shape)
                        made[id(v)] = self.memory.strided_view(self.memory.view_anchor(array), view, params)
                yield n, made[id(v)]
        return lambda: dict(bind())

    def _chosen_array(self, form):
        """The current version of the whole array a form (Control._form) names, for an argument or an array the
        function made (written since the join, it is still the array NumPy's name holds); None for any other form."""
        if form is None or form[0] not in ("argument", "local"):
            return None
        buffer = form[1]
        current = self.memory.current.get(buffer, buffer.initial)
        ref = self.memory.ref_of(current)
        return current if isinstance(ref, Ref) and not ref.path and ref.buffer is buffer else None

    def run_chosen_write(self, stmt, frame, flag, bind, chosen, views) -> None:
        branch = ast.If(test=ast.Constant(True), body=[stmt], orelse=[stmt])
        ast.copy_location(branch, stmt)
        names = [n for n, v in frame.locals.items() if v is chosen]
        self.run_if(branch, frame, flag, [], bind=bind)
        # the views are views of the chosen array again after the join (writable as before)
        again = frame.locals.get(names[0]) if names else None
        for n in views:
            v = frame.locals.get(n)
            if isinstance(again, Var) and isinstance(again.ref, Alias) and isinstance(v, Var) \
                    and isinstance(v.ref, Alias):
                v.ref.view_of = (again, views[n])

    def _tie_shared_branch_arrays(self, names, frame, t_locals, e_locals, before) -> None:
        """Joined names that share memory made inside the branches (`a = np.zeros(3); v = a[1:]` on each path) are
        separate values after the join, so a write through one would not be seen through the other: the later
        ones become aliases of the first that writes cannot follow (a write through one of them, or a read of one
        after a write through another, is a CompileError; never a stale value)."""
        def made_inside(value) -> set:
            if not isinstance(value, Var):
                return set()
            return {buf for buf, _ in self.memory.deps(value) if not self.memory.existed(before, buf)}
        shared = {n: made_inside(t_locals.get(n)) | made_inside(e_locals.get(n)) for n in names}
        for i, n in enumerate(names):
            first = next((m for m in names[:i] if shared[m] & shared[n]), None)
            value, owner = frame.locals[n], frame.locals.get(first)
            if first is None or not isinstance(value, Var) or not isinstance(owner, Var):
                continue
            value.ref = self.memory.alias([buf for buf, _ in self.memory.deps(owner)],
                                          f"{described(n)}, which shares memory with {described(first)}, both "
                                          "made in a run-time `if` or in a statement that runs only if no check "
                                          "failed")

    def run_ifexp(self, e: ast.IfExp, frame, test: Var):
        """`a if c else b` with a run-time c: both sides in their own region, joined like an `if`."""
        cond = self.condition(test)
        memory = self.memory.snapshot()
        t_eqns, t_val, t_checks = self.record(lambda: self.expression_side(lambda: self.interp.eval(e.body, frame)))
        t_mem = self.memory.snapshot()
        e_eqns, e_val, e_checks = self.record(lambda: self._restored(memory, lambda: self.expression_side(
            lambda: self.interp.eval(e.orelse, frame))))
        e_mem = self.memory.snapshot()
        self.memory.restore(self.b, memory)
        buffers = self._join_buffers(memory, t_mem, e_mem, t_eqns, e_eqns)
        joined = [self.join_values(t_val, e_val, "the conditional expression", t_eqns, e_eqns)]
        position = self._view_join(t_val, e_val, memory, t_eqns, e_eqns)
        choice = self._choice(t_val, e_val, memory, t_eqns, e_eqns) if position is None else None
        extra = [position[1]] if position else [choice[0]] if choice else []
        outs = self.emit_if(cond, t_eqns, e_eqns, joined + [j for _, j in buffers] + extra, t_checks, e_checks)
        value, *versions = self.rebuild_all(joined + [j for _, j in buffers] + extra, outs)
        if position:
            *versions, params = versions
            self._set_versions(buffers, versions)
            return self.memory.strided_view(position[0], value, params)
        if choice:
            *versions, values = versions
            self._set_versions(buffers, versions)
            return self._alias(value, (t_val, e_val), memory, choice[1](values))
        self._set_versions(buffers, versions)
        return self._alias(value, (t_val, e_val), memory)

    # ---- statements after a check that may have failed --------------------------------------------------------
    def guarded(self, run, frame) -> None:
        """Run a statement (or, with no frame, one write: Builder.write) that follows checks which may have failed.
        NumPy stops at the first failing check, so a statement that writes an array that existed before it, or
        runs a loop or a call that may loop, runs under `if not failed` (scf.if): on the failed path arrays keep
        their contents and the names it binds are never read (the call raises). A statement that only computes
        and writes has each write guarded by itself instead. Any other statement runs as it is: its values are
        then never used."""
        from .infer import _Raise, _Return
        b = self.b
        if b.failed:
            # the failures so far as one flag, at this level: the guards of the writes inside OR only the statement's
            # own checks into it. (Made inside the statement's region, the flag was dropped with it, and each
            # statement ORed every check before it again: N^2 / 2 primitives for N guarded statements.)
            b.failed_flag()
        snapshot, memory = dict(frame.locals) if frame else {}, self.memory.snapshot()
        exits = []
        # past MAX_GUARDS a write keeps the old contents where a check failed by itself (kept_writes.py), no scf.if
        keep = frame is None and b.guards >= MAX_GUARDS

        def body():
            try:
                run(keep) if frame is None else run()
            except (_Return, _Raise) as exit_:
                exits.append(exit_)
        # the failures before the statement are inherited: each write in it runs under `if not failed` by itself
        # (Builder.write), so a statement that only computes and writes needs no scf.if of its own. (One around the
        # whole statement, yielding the arrays it writes, with another inside for its own checks, made
        # one-shot-bufferize exponential in the number of such statements: 16 took 36 s, now under 1 s; 20 took
        # 109 s, now 1.8 s. It is still superlinear: MAX_GUARDS.)
        eqns, _, checks = self.record(body, inherit=True)
        written = self.memory.changed_since(memory)
        writes_argument = any(buf.argument is not None for buf in written)
        checks = self._hoist_size_checks(eqns, checks, writes_argument)
        # only the caller's arrays are seen after a call that raised: writes into the function's own arrays after
        # a failed check change nothing NumPy's run would show
        # (past MAX_GUARDS only loops and arrays sized by the data are guarded: a loop on values NumPy never
        # computed may not end, and an array that does not fit must never be allocated; each write keeps the old
        # contents where a check failed by itself: `keep`)
        must = _may_run_long(eqns) or _makes_data_sized(eqns, b.env)
        if not b.failed or not writes_argument and not must or b.guards >= MAX_GUARDS and not must \
                or frame is not None and not must and not exits and _writes_guarded(eqns):
            b.eqns.extend(eqns)
            for flag, kind, message in checks:
                b.check(flag, kind, message, located=False)
            if exits:
                raise exits[0]
            return
        b.guards += 1
        failed = b.failed_flag()
        after, after_mem = dict(frame.locals) if frame else {}, self.memory.snapshot()
        if frame:
            frame.locals = dict(snapshot)
        self.memory.restore(b, memory)
        skip: list = []          # the path where a check failed: nothing runs
        buffers = [(buf, self.join_values(self.memory.version_in(memory, buf), self.memory.version_in(after_mem, buf),
                                          f"the contents of {buf.what}", skip, eqns)) for buf in written]
        names = [n for n in after if after[n] is not snapshot.get(n, _MISSING)]
        pairs, views, positions, choices, copies = [], [], {}, {}, []
        for n in names:
            v = after[n]
            if isinstance(v, Undefined) or not contains_var(v):
                frame.locals[n] = v
            elif (same := next((m for m, _ in pairs if after[m] is v), None)) is not None:
                copies.append((n, same))    # (`b = a`: one object after the join too)
            elif _same_view(snapshot.get(n), v, memory):
                continue            # a view of a written array: taken again from the joined contents
            elif self._rederivable(v, memory):
                views.append((n, v))
            else:
                position = self._view_position(v, memory, eqns)
                if position is not None:    # a view of an existing array at a position the statement computed
                    positions[n] = (position[0], self.join_values(UNSET, position[1], "a view's position", skip,
                                                                  eqns))
                elif isinstance(v, Var) and isinstance(v.ref, Alias) and v.ref.chosen and v.ref.choice is not None \
                        and (choice := self._choice(UNSET, v, memory, skip, eqns)) is not None:
                    choices[n] = choice     # an argument or another array, as the statement decided (a loop's)
                pairs.append((n, self.join_values(UNSET, v, f"variable '{n}'", skip, eqns)))
        for n in snapshot:
            if n not in after:
                del frame.locals[n]
        returned = exits and isinstance(exits[0], _Return)
        result = [self._settle(exits[0].value, memory, skip, eqns)] if returned else []
        joined = [j for _, j in pairs] + [j for _, j in buffers] + [j for _, j in positions.values()] + \
            [j for j, _ in choices.values()] + [j for j, _ in result]
        # (one write's guard, Builder.write, is marked: _writes_guarded lets a statement of such writes run as it is)
        outs = self.emit_if(failed, skip, eqns, joined, [], checks, guards_write=frame is None)
        values = self.rebuild_all(joined, outs)
        self._set_versions(buffers, values[len(pairs):len(pairs) + len(buffers)])
        params = dict(zip(positions, values[len(pairs) + len(buffers):]))
        chosen = dict(zip(choices, values[len(pairs) + len(buffers) + len(positions):]))
        for (n, _), value in zip(pairs, values):
            if n in positions:      # (where a check failed: position 0 and no element, never read)
                frame.locals[n] = self.memory.strided_view(positions[n][0], value, params[n])
            else:
                frame.locals[n] = self._alias(value, (after[n],), memory,
                                              choices[n][1](chosen[n]) if n in choices else None)
            _keep_size(self.b, value, after[n])
        self._tie_shared_branch_arrays([n for n, _ in pairs], frame, after, {}, memory)
        for n, same in copies:
            frame.locals[n] = frame.locals[same]
        for n, view in views:
            frame.locals[n] = self.memory.rederive(self.b, view)
        if returned:
            raise _Return(self._views_back(values[-1], result[0][1]))
        if exits:
            raise exits[0]

    def _hoist_size_checks(self, eqns, checks, writes_argument: bool) -> list:
        """The memory checks of arrays sized by the data that a statement makes (Builder._check_data_sized), moved
        before it and raised there: the statement then runs only if every array fits. The checks it keeps are
        returned. Where a check needs a value the statement computes first, the statement's part before that value
        runs as it is, also after an earlier check failed: refused where that could show (the statement writes an
        argument, or that part may loop)."""
        b = self.b
        sized = [c for c in checks if c[0].id in b.size_checks]
        if not sized:
            return checks
        made = {v.id: i for i, e in enumerate(eqns) for v in e.outputs}
        read_off: dict = {}     # sizes read off a value the statement makes (an if's joined size): where
        for i, e in enumerate(eqns):
            for v in e.outputs:
                for d in v.shape:
                    if isinstance(b.env.find(d), Sym):
                        read_off.setdefault(id(b.env.find(d)), i)
        groups, split = [], 0
        for flag, _, _ in sized:
            group, dims = b.size_checks[flag.id]
            ids = {id(e) for e in group}
            if not ids <= {id(e) for e in eqns}:
                return checks          # computed inside a nested region: that region's statements guard it
            groups.append(ids)
            split = max([split] + [made[v.id] + 1 for d in dims for v in _dim_vars(d) if v.id in made]
                        + [read_off[id(x)] + 1 for d in dims for x in _read_off_sizes(b.env, d) if id(x) in read_off])
        if split and b.failed and (writes_argument or _may_run_long(eqns[:split])):
            raise UserError("this statement computes an array size from the data, makes an array of that size and "
                            "writes into an argument: compute the size in a statement of its own",
                            NotImplementedError)
        moved = set().union(*groups)
        # the part before `split` keeps its order (a write in it may be guarded by a check computed there: a loop
        # whose later iteration sizes an array by an earlier one's result); the checks computed after it join it
        b.eqns.extend(eqns[:split] + [e for e in eqns[split:] if id(e) in moved])
        eqns[:] = [e for e in eqns[split:] if id(e) not in moved]
        for flag, kind, message in sized:
            b.check(flag, kind, message, located=False)
        return [c for c in checks if c not in sized]

    def _rederivable(self, v, before) -> bool:
        """A view of an array that existed before a guarded statement, made with values that existed then: it is
        taken again from the array's joined contents (so it stays a view of it)."""
        ref = getattr(v, "ref", None)
        return isinstance(v, Var) and isinstance(ref, Ref) and self.memory.existed(before, ref.buffer) and all(
            not isinstance(x, Var) or x.id < before.watermark for step in ref.path for x in step.extra)

    def _settle(self, value, before, skip, eqns):
        """A value returned by a guarded statement: its views of existing arrays kept aside (taken again after the
        join), the rest joined with a value never read on the failed path."""
        views: dict = {}

        def strip(v):
            if isinstance(v, Var) and self._rederivable(v, before):
                views[id(v)] = v
                return None
            if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
                return type(v)(strip(x) for x in v)
            if isinstance(v, dict):
                return {k: strip(x) for k, x in v.items()}
            return v
        stripped = strip(value)
        return self.join_values(UNSET, stripped, "the returned value", skip, eqns), (value, views)

    def _views_back(self, joined, kept):
        value, views = kept
        if not views:
            return joined

        def put(original, new):
            if isinstance(original, Var) and id(original) in views:
                return self.memory.rederive(self.b, original)
            if isinstance(original, (list, tuple)) and not hasattr(original, "_fields"):
                return type(original)(put(o, n) for o, n in zip(original, new))
            if isinstance(original, dict):
                return {k: put(original[k], new[k]) for k in original}
            return new
        return put(value, joined)

    # ---- arrays written in branches (frontend/memory.py) ---------------------------------------------------------
    @property
    def memory(self):
        return self.interp.memory

    def _restored(self, state, run):
        """run() starting from an earlier state of the arrays (the other branch may have written some)."""
        self.memory.restore(self.b, state)
        return run()

    def _join_buffers(self, before, t_mem, e_mem, t_eqns, e_eqns) -> list:
        """Arrays that existed before a branch and that either path wrote: their two versions, joined."""
        m = self.memory
        candidates = [buf for buf in {**t_mem, **e_mem} if m.existed(before, buf)]
        return [(buf, self.join_values(m.version_in(t_mem, buf), m.version_in(e_mem, buf),
                                       f"the contents of {buf.what}", t_eqns, e_eqns))
                for buf in candidates if m.version_in(t_mem, buf) is not m.version_in(e_mem, buf)]

    def _set_versions(self, buffers, versions) -> None:
        for (buf, _), version in zip(buffers, versions):
            self.memory.set_version(self.b, buf, version)

    def _view_position(self, v, before, eqns):
        """(anchor, position) of `v` when it is a view of an array that existed `before` (memory.view_anchor and
        view_params, computed at the end of `eqns`); None otherwise."""
        if not isinstance(v, Var) or not isinstance(v.ref, Ref) or v.scalar or v.weak \
                or not self.memory.existed(before, v.ref.buffer):
            return None
        anchor = self._anchor(v)
        if anchor is None:
            return None
        with self.b.recording() as made:
            params = self.memory.view_params(self.b, v)
        if params is None:
            return None
        eqns.extend(made)
        return anchor, params

    def _anchor(self, v):
        """v's memory.view_anchor where the code being emitted can make it again (its dims computable here)."""
        anchor = self.memory.view_anchor(v)
        if anchor is None or not anchor.prefix:
            return anchor
        computable = _computable_here(self.b, [])
        return anchor if all(computable(d) for step in anchor.prefix for d in step.shape) else None

    def _view_join(self, t, e, before, t_eqns, e_eqns):
        """(buffer, joined positions) when `t` and `e`, the values of one name at the end of the two paths, are views
        of one array that existed before the branch at positions the kernel computes (memory.view_params, computed
        at the end of each path): the joined value is then that array's view at the joined position, as NumPy's
        is (writes through it reach the array, a returned one is a view of it). None otherwise. A path whose value
        is never read (UNSET: a loop's return value before any `return` ran, a path that raised) takes the other
        path's view, its position any (`return x[j]` in a loop body: tests/test_joined_views.py)."""
        if t is UNSET or e is UNSET:
            known, eqns = (e, e_eqns) if t is UNSET else (t, t_eqns)
            made: list = []
            position = self._view_position(known, before, made)
            if position is None:
                return None
            eqns.extend(made)
            return position[0], self.join_values(UNSET if t is UNSET else position[1],
                                                 UNSET if e is UNSET else position[1], "a view's position",
                                                 t_eqns, e_eqns)
        if not (isinstance(t, Var) and isinstance(e, Var) and isinstance(t.ref, Ref) and isinstance(e.ref, Ref)) \
                or t.ref.buffer is not e.ref.buffer or t.dtype != e.dtype or t.ndim != e.ndim:
            return None
        t_made, e_made = [], []
        t_position, e_position = self._view_position(t, before, t_made), self._view_position(e, before, e_made)
        if t_position is None or e_position is None or not t_position[0].same(e_position[0], self.b.env):
            return None
        t_eqns.extend(t_made)
        e_eqns.extend(e_made)
        return t_position[0], self.join_values(t_position[1], e_position[1], "a view's position", t_eqns, e_eqns)

    def _alias(self, value, sources, before, choice=None):
        """A joined array that is one existing array or another depending on the run-time path: it may alias
        their memory, in a way writes cannot follow (frontend/memory.py, Alias). `choice`: which array each path
        gives, for the call to return the same (Alias.choice)."""
        if not isinstance(value, Var):
            return value
        deps = {buf for src in sources for buf, _ in self.memory.deps(src) if self.memory.existed(before, buf)}
        if deps or choice is not None:
            value.ref = self.memory.alias(deps, "an array that is one of several arrays depending on a run-time "
                                                "condition", chosen=True)
            value.ref.choice = choice
        return value

    def _form(self, v, before, eqns):
        """How the call can make the array `v` (one path's value at a join) from the caller's arrays (Alias.choice):
        None for an array the kernel makes (or a path that never gives one), ("local", buffer) for an array the
        function made before the join (the kernel's value, while nothing writes it after the join), ("python", n)
        for a Python number (NumPy's value on that path is the number itself, where the join gives a NumPy scalar),
        _NO where it cannot (a view of such an array, an Alias it does not follow)."""
        if v is UNSET or not isinstance(v, Var):
            # a Python number on this path: NumPy's value there is that number itself (the call returns it)
            return ("python", v) if _numeric(v) and is_weak(v) and not isinstance(v, np.ndarray) else None
        if v.scalar or v.weak:     # (a NumPy scalar, or the Python number it was before a loop: _carry_kept)
            ref = v.ref
            return ref.choice if isinstance(ref, Alias) and ref.chosen and ref.choice is not None else None
        ref = self.memory.ref_of(v)
        if isinstance(ref, Alias):
            return ref.choice if ref.chosen and ref.choice is not None else _NO
        buffer = ref.buffer
        if not self.memory.existed(before, buffer):
            return None
        if buffer.argument is None:
            return ("local", buffer) if not ref.path else _NO
        if not ref.path:
            return ("argument", buffer)
        position = self._view_position(v, before, eqns)
        if position is not None:
            return ("view", position[0], position[1])
        steps = _replayable(ref.path)
        return ("steps", buffer, steps) if steps is not None else _NO

    def _choice(self, t, e, before, t_eqns, e_eqns):
        """(values to join, make) when the joined array is an argument or a view of one on one path and another
        array on the other (`return x` / `return -x`, `return A[i]` in a loop / `return A[0] * 0` after it): the
        kernel returns a flag for the path and the positions, `make(their joined values)` is the Alias.choice that
        lets the call return the caller's own memory where NumPy does. None where there is nothing to choose."""
        t_form, e_form = self._form(t, before, t_eqns), self._form(e, before, e_eqns)
        if t_form is _NO or e_form is _NO or _kernels(t_form) and _kernels(e_form):
            return None
        t_vars, e_vars = _form_vars(t_form), _form_vars(e_form)
        flags = [Var(dtypes.BOOL, ()) for _ in range(2)]
        t_eqns.append(Eqn("const", [], [flags[0]], {"value": np.asarray(True)}, self.b.loc))
        e_eqns.append(Eqn("const", [], [flags[1]], {"value": np.asarray(False)}, self.b.loc))
        joined = [self.join_values(flags[0], flags[1], "the path taken", t_eqns, e_eqns)]
        joined += [self.join_values(v, UNSET, "a view's position", t_eqns, e_eqns) for v in t_vars]
        joined += [self.join_values(UNSET, v, "a view's position", t_eqns, e_eqns) for v in e_vars]

        def make(values):      # (after the join: a local array's version then)
            it = iter(values)
            flag = next(it)
            return ("choice", flag, _form_rebuild(t_form, it, self.memory), _form_rebuild(e_form, it, self.memory))
        return joined, make

    def _run_branch(self, stmts, frame, catch_return: bool, memory):
        from .infer import _Break, _Continue, _Raise, _Return
        self.memory.restore(self.b, memory)
        self.conditional += 1
        try:
            self.interp.exec_block(stmts, frame, top=catch_return)   # with the continuation: the rest of the body
        except _Return as r:
            if not catch_return:
                raise
            return r.value
        except _Raise:
            return _RAISED
        except (_Break, _Continue):   # loops turn these into flags (loop_exits.py); one that gets here is a bug
            raise AssertionError("break/continue escaped a run-time branch") from None
        finally:
            self.conditional -= 1
        return _MISSING

    @staticmethod
    def _raise():
        from .infer import _Raise
        return _Raise()

    def emit_if(self, cond, t_eqns, e_eqns, joined, t_checks, e_checks, guards_write: bool = False):
        """Append the scf.if primitive; its results are the joined values' leaves, then one flag per check."""
        t_res, e_res, types = _flatten_joined(joined)
        types = _sized_outside(self.b, types)
        t_flags, e_flags, kinds = self._check_results(t_checks, e_checks, t_eqns, e_eqns)
        outs = [Var(dt, shape, weak=weak, scalar=scalar) for dt, shape, weak, scalar in types]
        flags = [Var(dtypes.BOOL, ()) for _ in kinds]
        params = {"then": Block([], t_eqns, t_res + t_flags), "else": Block([], e_eqns, e_res + e_flags)}
        if guards_write:
            params["guards_write"] = True
        self.b.eqns.append(Eqn("if", [cond], outs + flags, params, self.b.loc))
        for flag, (kind, message) in zip(flags, kinds):
            self.b.check(flag, kind, message, located=False)
        return outs

    def _check_results(self, t_checks, e_checks, t_eqns, e_eqns):
        """Checks inside branches are yielded out (False on the other branch) to become the caller's checks."""
        kinds = [(k, m) for _, k, m in t_checks] + [(k, m) for _, k, m in e_checks]
        false_t = [self._false(t_eqns) for _ in e_checks]
        false_e = [self._false(e_eqns) for _ in t_checks]
        return [f for f, _, _ in t_checks] + false_t, false_e + [f for f, _, _ in e_checks], kinds

    def _false(self, eqns) -> Var:
        v = Var(dtypes.BOOL, ())
        eqns.append(Eqn("const", [], [v], {"value": np.asarray(False)}, self.b.loc))
        return v

    # ---- joins ------------------------------------------------------------------------------------------------
    def join_values(self, t, e, what: str, t_eqns, e_eqns):
        """A joined description: nested containers of (then Var, else Var, type) leaves or shared constants."""
        if isinstance(t, (list, tuple)) and isinstance(e, (list, tuple)) and type(t) is type(e) and len(t) == len(e):
            return type(t)(self.join_values(a, c, f"{what}[{i}]", t_eqns, e_eqns) for i, (a, c) in
                           enumerate(zip(t, e)))
        if isinstance(t, dict) and isinstance(e, dict) and t.keys() == e.keys():
            return {k: self.join_values(t[k], e[k], f"{what}[{k!r}]", t_eqns, e_eqns) for k in t}
        if t is UNSET or e is UNSET:     # a value on a path that never reads it (not returned yet, or raised)
            known, eqns = (e, t_eqns) if t is UNSET else (t, e_eqns)
            if isinstance(known, (list, tuple, dict)) and contains_var(known):
                items = known.items() if isinstance(known, dict) else enumerate(known)
                parts = {k: self.join_values(UNSET if t is UNSET else v, v if t is UNSET else UNSET,
                                             f"{what}[{k!r}]", t_eqns, e_eqns) for k, v in items}
                if isinstance(known, dict):
                    return parts
                return type(known)._make(parts.values()) if hasattr(known, "_fields") else \
                    type(known)(parts.values())
            if not isinstance(known, Var):
                return _Shared(known)
            stand_in = self._zeros(_type_of(known), eqns)
            return _Joined(stand_in, known, known.shape) if t is UNSET else _Joined(known, stand_in, known.shape)
        if not isinstance(t, Var) and not isinstance(e, Var):
            if _same_constant(t, e):
                return _Shared(t)
            if not (_numeric(t) and _numeric(e)):
                raise UserError(f"{what} has different compile-time values on the two paths of a run-time branch "
                                f"({t!r} and {e!r})", TypeError)
        tv, ev = self._to_var(t, e, t_eqns), self._to_var(e, t, e_eqns)
        tv, ev = self._python_initial(tv, ev, what, t_eqns), self._python_initial(ev, tv, what, e_eqns)
        return _Joined(tv, ev, self._same_type(tv, ev, what))

    def _python_initial(self, v: Var, other: Var, what: str, eqns) -> Var:
        """A loop-carried name in the loop's first round, still the Python number it held before the loop
        (`m = -np.inf`, then `if x[i] > m: m = x[i]`), meeting a NumPy scalar of another dtype: the name's value
        converted to that dtype on its path (the loop then carries that dtype, as after `s += x[i]`: semantics.md).
        Only for a number the dtype holds exactly (inf, 0.0, 1.0, 0 ...): on that path the value is that number,
        whatever the round; a Python number known only at run time (an argument) is refused as before, since
        converting it could round it."""
        c = getattr(v, "python_initial", None)
        if c is None or not v.weak or not isinstance(other, Var) or other.weak or other.ndim or v.ndim \
                or v.dtype == other.dtype:
            return v
        dt = other.dtype
        _python_number_fits(c, dt, f"in a run-time loop ({what} starts as that number before the loop)")
        with np.errstate(all="ignore"):
            # (.item(): NumPy would compare np.float32(0.1) == 0.1 in float32, True)
            exact = dt.type(c).item() == c or bool(np.isnan(c)) and dt.kind in "fc"
        if not exact:
            raise UserError(f"{what} starts as the Python number {c!r} before a run-time loop and becomes a {dt} "
                            f"inside it; {c!r} is not exactly a {dt}, so the compiled loop (which carries one dtype) "
                            f"would change it: start with np.{dt}({c!r}), or with a number a {dt} holds exactly",
                            TypeError)
        with self.b.recording() as made:
            converted = self.b.convert(v, dt)
        eqns.extend(made)
        converted.scalar = other.scalar
        return converted

    def _to_var(self, value, other, eqns) -> Var:
        if isinstance(value, Var):
            return value
        if not _numeric(value):
            raise UserError(f"cannot merge the compile-time value {value!r} with a run-time value", TypeError)
        dt = other.dtype if isinstance(other, Var) and is_weak(value) else np.asarray(value).dtype
        if is_weak(value) and isinstance(other, Var):
            _python_number_fits(value, dt, "on the other path of a run-time branch")
        arr = np.asarray(dtypes.weak_to_dtype(value, dt) if is_weak(value) else value).astype(dt)
        # a Python number meeting a Python number known at run time stays a Python number (weak)
        v = Var(arr.dtype, arr.shape, weak=is_weak(value) and (not isinstance(other, Var) or other.weak),
                scalar=arr.ndim == 0)
        eqns.append(Eqn("const", [], [v], {"value": arr}, self.b.loc))
        return v

    def _same_type(self, a: Var, c: Var, what: str) -> tuple:
        """The joined value's shape: the branches' sizes, which must be equal, except sizes only the kernel knows
        (a selection's length): those may differ, and the joined value has a size of its own."""
        if a.dtype != c.dtype or a.ndim != c.ndim:
            raise UserError(f"{what} is {a.type_text()} on one path of a run-time branch and {c.type_text()} on the "
                            f"other; make both the same dtype and rank (e.g. with .astype)", TypeError)
        return join_shapes(self.b.env, a.shape, c.shape, what,
                           f"{what} has different shapes on the two paths of a run-time branch", branches=True)

    def rebuild(self, joined, outs: list):
        it = iter(outs)
        return _rebuild(joined, it)

    def rebuild_all(self, joined_list, outs: list) -> list:
        it = iter(outs)
        return [_rebuild(j, it) for j in joined_list]

    # ---- loops ------------------------------------------------------------------------------------------------
    def run_for(self, stmt: ast.For, frame, rng: RuntimeRange, item=None) -> None:
        """scf.for over a run-time range; `item(index)` is what the loop variable is bound to (the index itself
        by default, a row of an array for `for row in x`)."""
        step = rng.step
        if isinstance(step, Var) or not isinstance(step, (int, np.integer)) or step <= 0:
            raise UserError("a loop over range() with a run-time bound needs a positive step known at compile time",
                            TypeError)
        targets = assigned_names([ast.Assign(targets=[stmt.target], value=ast.Constant(0))])
        carried = self._carried(stmt.body, frame, exclude=targets)

        def body(args):
            index = Var(dtypes.INT64, (), weak=True)
            index.bounds = _bounds(rng)      # lets indexing drop range checks it can prove
            # between small bounds (dims, small constants): sums and products of indices need no overflow check
            index.small = all(map(small_int, (rng.start, rng.stop)))
            self.interp.assign(stmt.target, index if item is None else item(index), frame)
            self._loop_body(stmt.body, frame)
            return index
        stop = self._stop_in_int64(rng.start, rng.stop, int(step))
        outs, induction, blk = self._fixpoint(carried, frame, body, "loop", views=view_bound(stmt.body))
        self.b.eqns.append(Eqn("for", [self._int_var(rng.start), stop] + blk.pop("inits"),
                               outs, {"step": int(step), "body": blk["body"]}, self.b.loc))
        self._finish_loop(blk, outs, frame, targets, stmt)

    def run_while(self, stmt: ast.While, frame) -> None:
        if any(isinstance(node, ast.NamedExpr) for node in ast.walk(stmt.test)):
            # (the condition is interpreted apart from the body: a name it binds would not be carried)
            raise UserError("`:=` in the condition of a run-time `while` is not supported: assign the variable in "
                            "the body (before the loop and at the end of each iteration)", SyntaxError)
        carried = self._carried(stmt.body, frame, exclude=set())
        cond_holder = {}

        def before(args, enter):
            writes = self.interp.attributes.writes
            eqns, test, checks = self.record(lambda: enter(lambda: self.unconditional(
                lambda: self.interp.eval(stmt.test, frame))), inherit=False)
            if self.interp.attributes.writes != writes:     # (the body starts from the loop's values, not these)
                raise UserError("assigning an attribute in the condition of a run-time `while` (in a method it calls) "
                                "is not supported: call it in the body, and test a variable it sets", TypeError)
            if not isinstance(test, Var):
                raise UserError("a run-time while loop's condition became a compile-time value", TypeError)
            with self.b.recording() as more:
                cond = self.condition(test)
            # the condition's own checks (an empty max ...) are carried like the body's, set where they fail
            cond_holder["block"] = Block(list(args), eqns + more, [cond] + list(args))
            cond_holder["checks"] = checks

        def body(args):
            self._loop_body(stmt.body, frame)
            return None
        outs, _, blk = self._fixpoint(carried, frame, body, "loop", before=before, cond_holder=cond_holder,
                                      views=view_bound(stmt.body))
        self.b.eqns.append(Eqn("while", blk.pop("inits"), outs, {"cond": cond_holder["block"], "body": blk["body"]},
                               self.b.loc))
        self._finish_loop(blk, outs, frame, set(), stmt)

    def _loop_body(self, stmts, frame) -> None:
        from .infer import _Break, _Continue, _Raise, _Return
        self.conditional += 1
        try:
            self.interp.exec_block(stmts, frame)
        except _Raise:        # the rest of the body is never reached; the raise's flag stops the loop
            pass
        except (_Break, _Continue):   # loops turn these into flags (loop_exits.py); one that gets here is a bug
            raise AssertionError("break/continue escaped a run-time loop body") from None
        except _Return:   # loop_exits.py makes returns flags; one can only get here from a loop nested in this one
            raise UserError("`return` inside a loop nested in a loop with a run-time trip count or condition is not "
                            "supported: set a variable and `break`, then return after the loops", SyntaxError) from None
        finally:
            self.conditional -= 1

    def _carried(self, body, frame, exclude: set) -> list:
        """Names the loop rebinds. `x op= y` on an array writes into it without rebinding the name: such names
        follow the array, which is carried as a written buffer instead."""
        inplace = augmented_only(body)
        return [n for n in sorted(assigned_names(body) - exclude)
                if n in frame.locals and not isinstance(frame.locals[n], Undefined)
                and not (n in inplace and _is_array(frame.locals[n]))]

    def _fixpoint(self, carried: list, frame, run_body, what: str, before=None, cond_holder=None, views=frozenset()):
        """Interpret the loop with carried values as region arguments until their types stop changing.

        Carried are the names the body assigns and the arrays (Buffers) it writes in place, found by running it:
        a name that views a written array is re-derived from the array's carried version, not carried itself."""
        memory = self.memory.snapshot()
        snapshot = dict(frame.locals)
        state = _LoopState(frame, self.memory, snapshot, memory)
        types, aliases = {}, {}
        for n in carried:
            v = state.initial(n)
            if not isinstance(v, Var) and not _numeric(v):
                types[n] = None          # a compile-time value: carried only if the body changes it
            else:
                types[n] = _type_of(v if isinstance(v, Var) else self._const_type(v))
            aliases[n] = set()
        self._carry_positions([n for n in carried if n in views], carried, state, types, aliases)
        self._carry_kept([n for n in carried if isinstance(n, str) and n not in state.positions], carried, state,
                         types, aliases)
        guards = self.b.guards
        attributes = self.interp.attributes
        attributes_before = attributes.before_loop() if attributes.keys or attributes.objects else {}
        for _ in range(_MAX_ROUNDS + 3):     # more: rounds that discover written arrays, aliases or moved views
            self.b.guards = guards           # (only the last round's guards are kept)
            live = [n for n in carried if types[n] is not None]
            if before is not None:        # a while loop's condition region has arguments of its own
                cond_args = _tag_python_initials(state, state.arguments(live, types))
                before(list(cond_args.values()), lambda run: state.enter(self.b, cond_args, aliases, run))
            args = _tag_python_initials(state, state.arguments(live, types))
            eqns, induction, checks = self.record(lambda: state.enter(self.b, args, aliases, lambda: state.positioned(
                self.b, lambda: self._kept_after(state, args, memory, lambda: run_body(args)))), inherit=False)
            changed = False
            for n in state.unpositioned:      # a name the body binds to something else than a view of its array
                for key in state.positions.pop(n)[1]:
                    carried.remove(key)
                self._carry_kept([n], carried, state, types, aliases)
                changed = True
            for n in state.unkept:            # a name the body binds to an array the flag cannot follow
                carried.remove(state.kept.pop(n)[0])
                changed = True
            results = []
            for buf in state.written_buffers():    # arrays the body writes become carried too
                carried.append(buf)
                types[buf], aliases[buf] = _type_of(state.initial(buf)), set()
                changed = True
            # attributes the body rebinds (also in the methods it calls: not seen in its source) are carried too
            for n in attributes.rebound_in(frame.locals, snapshot, carried, attributes_before,
                                           lambda old, new: _same_view(old, new, memory)):
                carried.append(n)
                v = state.initial(n)
                types[n] = None if not isinstance(v, Var) and not _numeric(v) else \
                    _type_of(v if isinstance(v, Var) else self._const_type(v))
                aliases[n] = set()
                self._carry_kept([n], carried, state, types, aliases)
                changed = True
            python_kept = []
            for n in carried:
                new = state.after(n)
                if types[n] is None:
                    if new is not snapshot[n] and not _same_constant(new, snapshot[n]):
                        if snapshot[n] is UNSET and not isinstance(new, Var):
                            if contains_var(new):
                                raise UserError(_RETURN_IN_LOOP, SyntaxError)
                            snapshot[n] = new      # a compile-time value returned from inside the loop
                            continue
                        if not _numeric(new) and not isinstance(new, Var):
                            raise UserError(f"the loop changes the compile-time value of '{n}'", TypeError)
                        if isinstance(new, Var) and snapshot[n] is not UNSET and not _numeric(snapshot[n]) \
                                and not isinstance(snapshot[n], Var):
                            # (`last = None` before the loop: after zero trips it is still None, which the kernel
                            # cannot return in place of an array)
                            raise UserError(f"'{n}' is {type(snapshot[n]).__name__} before the run-time loop and a "
                                            "run-time value after an iteration: give it an initial value of that "
                                            "type (an array of the right shape, a number) before the loop",
                                            TypeError)
                        types[n] = _type_of(new) if isinstance(new, Var) else _type_of(self._const_type(new))
                        changed = True
                    continue
                if isinstance(new, Undefined) or new is _MISSING:
                    raise UserError(f"'{n}' is not defined on every path of the loop body", NameError)
                if not isinstance(n, (Buffer, _Position, _Kept)) and n not in state.positions:
                    deps = {buf for buf, _ in self.memory.deps(new) if self.memory.existed(memory, buf)}
                    if not deps <= aliases[n]:
                        aliases[n] |= deps
                        changed = True
                widened = self._widen(types[n], new, state.label(n), state.initial(n))
                if widened != types[n]:
                    if types[n][2] and not widened[2]:    # a Python number before the loop, a NumPy value in it
                        python_kept.append(n)
                    types[n], changed = widened, True
                    continue
                results.append((n, new))
            self._carry_kept(python_kept, carried, state, types, aliases)
            if self._position_unset(views, carried, state, types, aliases, memory):
                changed = True
            if not changed:
                break
        else:
            raise UserError(f"the types of the variables the {what} carries do not settle", TypeError)
        frame.locals = dict(snapshot)
        self.memory.restore(self.b, memory)
        live = [n for n in carried if types[n] is not None]
        with self.b.recording() as tail:
            yielded = [self._coerce_result(new, types[n], n) for n, new in results]
        cond_checks = cond_holder.get("checks", []) if cond_holder is not None else []
        flag_args = [Var(dtypes.BOOL, ()) for _ in cond_checks + checks]
        with self.b.recording() as merge:
            flag_out = flag_args[:len(cond_checks)] + self._merge_flags(flag_args[len(cond_checks):], checks)
        inits = [self._coerce_init(state.initial(n), types[n]) for n in live]
        inits += [self.b.const(np.asarray(False)) for _ in cond_checks + checks]
        outs = [Var(*types[n]) for n in live] + [Var(dtypes.BOOL, ()) for _ in cond_checks + checks]
        leading = [induction] if isinstance(induction, Var) else []
        body = Block(leading + list(args.values()) + flag_args, eqns + tail + merge, yielded + flag_out)
        if cond_holder is None and flag_args:
            body = self._stop_after_failure(body, len(leading), flag_args)
        if cond_holder is not None:
            block = cond_holder["block"]
            cond_flags = [Var(dtypes.BOOL, ()) for _ in cond_checks + checks]
            block.args.extend(cond_flags)
            with self.b.recording() as more:
                merged, stop = self._condition_flags(cond_flags, cond_checks)
                if stop is not None:      # a failed check ends the loop (NumPy would have stopped there)
                    go = self.b.emit1("not", [stop], dtypes.BOOL, ())
                    block.results[0] = self.b.emit1("and", [block.results[0], go], dtypes.BOOL, ())
            block.eqns.extend(more)
            block.results.extend(merged + cond_flags[len(cond_checks):])
        # names that hold one array at the end of the body (`for: a = f(a); b = a`, `last = cell.step(x)` returning
        # `self.h`): one array after the loop too, as in NumPy, where they did before it (else, when the loop may
        # have run zero times, arrays that writes cannot follow: _finish_loop)
        same: dict = {}
        for i, (n, new) in enumerate(results):
            first = next((m for m, other in results[:i] if other is new and isinstance(m, str) and isinstance(n, str)
                          and m not in state.positions and n not in state.positions), None)
            if first is not None and isinstance(new, Var) and not new.scalar and not new.weak:
                same[n] = (first, state.initial(first) is state.initial(n))
        return outs, induction, {"body": body, "inits": inits, "same": same,
                                 "flags": [(k, m) for _, k, m in cond_checks + checks], "live": live,
                                 "aliases": aliases, "positions": state.positions, "kept": state.kept,
                                 "initial": {n: state.initial(n) for n in live if isinstance(n, str)}}

    def _carry_positions(self, names: list, carried: list, state, types: dict, aliases: dict) -> None:
        """A carried name that holds a view of an array from before the loop (`v = v[1:]` in the body) is carried
        with its position in that array (memory.view_params), so that it stays a view of it after the loop, as in
        NumPy: its position is carried too (one 0-d int per value, _Position keys). The body must leave it a view
        of the same array (else, _LoopState.positioned, it is carried as before)."""
        for n in names:
            v = state.initial(n)
            if not isinstance(v, Var) or v.scalar or v.weak or not isinstance(self.memory.ref_of(v), Ref):
                continue
            anchor = self._anchor(v)
            params = self.memory.view_params(self.b, v) if anchor is not None else None     # (before the loop)
            if params is None:
                continue
            keys = [_Position(n, i) for i in range(len(params))]
            state.positions[n] = (anchor, keys)
            for key, p in zip(keys, params):
                state.position_initial[key] = p
                types[key], aliases[key] = _type_of(p), set()
                carried.append(key)

    def _carry_kept(self, names: list, carried: list, state, types: dict, aliases: dict) -> None:
        """A carried name that holds an argument (or a view of one the call can replay) before the loop, and that
        the body may rebind to a new array (`y = x`, then `y = y * 0.5 + 1` in the loop), is carried with a flag:
        whether it still holds that array (the loop ran zero times, or the body left it as it was). After the loop
        it is that array where the flag says so (Alias.choice): returned, it is the caller's own array, as NumPy's
        is. A name whose value the flag cannot follow in the body (_kept_after) is carried as before."""
        for n in names:
            v = state.initial(n)
            if n in state.kept or n in state.kept_tried:
                continue
            if not isinstance(v, Var) and _numeric(v) and is_weak(v) and types[n] is not None and not types[n][2]:
                # a Python number before the loop, a NumPy scalar once the body assigns it (`s = 0.0`, `s += x[i]`):
                # where no round assigned it (zero trips) NumPy returns the Python number itself (as_inputs)
                self._keep(n, ("python", v), carried, state, types, aliases)
                continue
            if not isinstance(v, Var) or v.scalar or v.weak:
                continue
            ref = self.memory.ref_of(v)
            if isinstance(ref, Alias) and ref.chosen and ref.choice is not None and self.memory.is_current(v):
                form = ref.choice       # (chosen by a branch before the loop: `y = x if c else -x`)
            elif not isinstance(ref, Ref) or ref.buffer.argument is None \
                    or self.memory.current.get(ref.buffer) is not ref.base:
                continue
            elif not ref.path:
                form = ("argument", ref.buffer)
            elif (steps := _replayable(ref.path)) is not None:
                form = ("steps", ref.buffer, steps)
            else:
                continue
            self._keep(n, form, carried, state, types, aliases)

    @staticmethod
    def _keep(n, form, carried: list, state, types: dict, aliases: dict) -> None:
        state.kept_tried.add(n)
        key = _Kept(n)
        state.kept[n] = (key, form)
        state.kept_initial[key] = True
        state.kept_after[key] = True     # (until a round computes it: one that starts carrying it mid-round)
        types[key], aliases[key] = (dtypes.BOOL, (), False, False), set()
        carried.append(key)

    def _kept_after(self, state, args: dict, before, run):
        """run() (a round of the body), then each kept flag as the body leaves it (_carry_kept): its region argument
        where the name is as it was, False where it is an array made in the body, and where it is one or the other
        as a branch in the body decided (Alias.choice), that branch's flag."""
        state.unkept = []
        value = run()
        for n, (key, form) in state.kept.items():
            new = state.frame.locals.get(n)
            if new is args.get(n):
                state.kept_after[key] = args[key]
                continue
            flag = None
            if isinstance(new, Var) and (form[0] == "python" and not new.weak or not new.scalar and not new.weak):
                made: list = []
                flag = self._flag_of(self._form(new, before, made), form)
                self.b.eqns.extend(made)
            if flag is None:
                state.unkept.append(n)
            else:
                state.kept_after[key] = flag
        return value

    def _flag_of(self, form, kept):
        """Whether an array of this form (Control._form) is the array of form `kept`: a Python bool, a 0-d bool
        Var, or None where the form says neither (another argument, an array the call cannot make)."""
        if form is None:
            return False
        if form is kept or form is not _NO and form[0] == "argument" == kept[0] and form[1] is kept[1]:
            return True     # (the whole argument, as another carried value holds it: `return self.x`)
        if form is _NO:
            return None
        if form[0] == kept[0] == "python" and type(form[1]) is type(kept[1]) and form[1] == kept[1]:
            return True           # (the same Python number assigned again: NumPy's is that number again)
        if form[0] != "choice":
            return None
        flag, then, other = form[1], self._flag_of(form[2], kept), self._flag_of(form[3], kept)
        if then is None or other is None:
            return None
        if then is other:
            return then
        if then is True and other is False:
            return flag
        b = self.b
        as_var = {True: lambda: b.const(np.asarray(True)), False: lambda: b.const(np.asarray(False))}
        then, other = (as_var[x]() if isinstance(x, bool) else x for x in (then, other))
        negated = b.emit1("not", [flag], dtypes.BOOL, ())
        return b.emit1("or", [b.emit1("and", [flag, then], dtypes.BOOL, ()),
                              b.emit1("and", [negated, other], dtypes.BOOL, ())], dtypes.BOOL, ())

    def _position_unset(self, views, carried: list, state, types: dict, aliases: dict, before) -> bool:
        """A name with no value before the loop (UNSET: what a `return` in the body returns, loop_exits.py) that a
        round of the body left a view of an array from before the loop (`return x[j]`) is carried with its position
        from then on, as _carry_positions carries views, so that the loop returns that view of the array, as NumPy
        does, not a copy. Its position before the loop is never read (the return flag is False): zeros. Tried once
        per name: a later round that leaves something else (_LoopState.unpositioned) carries it as before."""
        added = False
        for n in [n for n in carried if isinstance(n, str) and n in views and n not in state.positions
                  and n not in state.position_tried and state.initial(n) is UNSET]:
            new = state.after(n)
            if not isinstance(new, Var) or new.scalar or new.weak or not isinstance(new.ref, Ref) \
                    or not self.memory.existed(before, new.ref.buffer):
                continue
            state.position_tried.add(n)
            anchor, count = self._anchor(new), self.memory.position_count(new)
            if anchor is None or count is None:
                continue
            keys = [_Position(n, i) for i in range(count)]
            state.positions[n] = (anchor, keys)
            for key in keys:
                state.position_initial[key] = UNSET
                types[key], aliases[key] = (dtypes.INT64, (), False, False), set()
                carried.append(key)
            added = True
        return added

    def _merge_flags(self, carried: list, checks: list) -> list:
        return [self.interp.numpy_call(np.logical_or, [a, f], {}) for a, (f, _, _) in zip(carried, checks)]

    def _any(self, flags: list):
        flag = flags[0] if flags else None
        for other in flags[1:]:
            flag = self.b.emit1("or", [flag, other], dtypes.BOOL, ())
        return flag

    def _condition_flags(self, flags: list, cond_checks: list):
        """A while condition's checks, merged into their carried flags, and whether any check of the loop failed.
        After a failed check in the body the condition is computed from values NumPy never had: its own checks
        then count as not failed, so that the first failure is the one raised."""
        body_failed = self._any(flags[len(cond_checks):])
        merged = []
        for carried, (flag, _, _) in zip(flags, cond_checks):
            if body_failed is not None:
                flag = self.b.emit1("and", [flag, self.b.emit1("not", [body_failed], dtypes.BOOL, ())], dtypes.BOOL,
                                    ())
            merged.append(self.b.emit1("or", [carried, flag], dtypes.BOOL, ()))
        return merged, self._any(([body_failed] if body_failed is not None else []) + merged)

    def _stop_after_failure(self, body: Block, leading: int, flags: list) -> Block:
        """A for loop does nothing more once a check of its body failed (scf.for cannot leave early): its body
        runs under `if not failed`, and otherwise yields what it was given."""
        with self.b.recording() as eqns:
            stop = self._any(flags)
        outs = [Var(v.dtype, v.shape, weak=v.weak, scalar=v.scalar) for v in body.args[leading:]]
        eqns.append(Eqn("if", [stop], outs, {"then": Block([], [], list(body.args[leading:])),
                                             "else": Block([], body.eqns, body.results)}, self.b.loc))
        return Block(body.args, eqns, outs)

    def _finish_loop(self, blk: dict, outs, frame, targets, stmt) -> None:
        live, flags, aliases, positions, kept = blk["live"], blk["flags"], blk["aliases"], blk["positions"], blk["kept"]
        for n, v in zip(live, outs):
            if isinstance(n, Buffer):
                self.memory.set_version(self.b, n, v)
        out_of = dict(zip(live, outs))
        before: dict = {}      # name -> the buffers its value before the loop is (or views)
        for n, v in zip(live, outs):
            if n in positions:       # a view of its array at the position the loop ends with
                anchor, keys = positions[n]
                frame.locals[n] = self.memory.strided_view(anchor, v, [out_of[k] for k in keys])
            elif not isinstance(n, (Buffer, _Position, _Kept)):
                initial = blk["initial"].get(n)
                before[n] = {buf for buf, _ in self.memory.deps(initial)} if isinstance(initial, Var) else set()
                if n in kept:        # the array it held before the loop where its flag says so, else the loop's
                    key, form = kept[n]
                    v.ref = self.memory.alias(aliases[n] | before[n], _kept_why(n), chosen=True)
                    v.ref.choice = ("choice", out_of[key], form, None)
                elif aliases.get(n):
                    v.ref = self.memory.alias(aliases[n], _rebound(n), chosen=True)
                frame.locals[n] = v
        # a name the loop may leave holding the array it held before (it runs zero times) while that array is an
        # argument or is held by another name: one of the two arrays, which writes cannot follow (never a write
        # that misses the array NumPy's reaches)
        for n, buffers in before.items():
            v = frame.locals[n]
            if n in kept or not buffers or not isinstance(v, Var):
                continue
            if any(buf.argument is not None or buf.readonly for buf in buffers) \
                    or self._held_elsewhere(buffers, frame, n):
                v.ref = self.memory.alias(set(aliases.get(n, ())) | buffers, _kept_why(n), chosen=True)
        for n, (first, always) in blk["same"].items():
            if always:
                frame.locals[n] = frame.locals[first]
            elif isinstance(frame.locals[n], Var):
                v, ref = frame.locals[n], frame.locals[n].ref
                deps = tuple(dict.fromkeys(self.memory.deps(v) + self.memory.deps(frame.locals[first])))
                why = f"{described(n)}, which is {described(first)} after the loop unless it ran zero times"
                v.ref = Alias(deps, why, ref.chosen, ref.choice, ref.replay) if isinstance(ref, Alias) \
                    else Alias(deps, why)
        for flag, (kind, message) in zip(outs[len(live):], flags):
            self.b.check(flag, kind, message, located=False)
        for t in targets:
            frame.locals[t] = Undefined(t, f"the loop variable '{t}' of the run-time loop at line {stmt.lineno} "
                                           "is not available after it")

    def _held_elsewhere(self, buffers: set, frame, name: str) -> bool:
        """Whether a name other than `name` (in any frame the program can reach) holds one of these buffers or a
        value that may share its memory."""
        for f in self.memory.frames_in_scope():
            for k, value in f.locals.items():
                if f is frame and k == name:
                    continue
                leaves: list = []
                var_leaves(value, leaves)
                for leaf in leaves:
                    if any(buf.initial is leaf for buf in buffers) or leaf.ref is not None and any(
                            buf in buffers for buf, _ in self.memory.deps(leaf)):
                        return True
        return False

    def _widen(self, carried_type, new, name: str, initial):
        dt, shape, weak, scalar = carried_type
        if not isinstance(new, Var):
            if _numeric(new):
                if is_weak(new) and not weak:
                    _python_number_fits(new, dt, "before the loop or on another path of its body")
                return carried_type
            raise UserError(f"'{name}' becomes a {type(new).__name__} inside the loop", TypeError)
        if new.ndim != len(shape):
            raise UserError(f"'{name}' changes rank inside the loop ({len(shape)} -> {new.ndim})", TypeError)
        shape = join_shapes(self.b.env, shape, new.shape, name, f"'{name}' changes shape inside the loop")
        if new.dtype == dt:
            return (dt, shape, weak and new.weak, scalar and new.scalar)
        if weak and not new.weak:
            # the Python number it starts with is what NumPy returns where the body never assigns it
            if initial is not UNSET and _numeric(initial) and not isinstance(initial, Var):
                _python_number_fits(initial, new.dtype, "inside the loop")
            elif isinstance(initial, Var) and initial.weak:
                _python_value_fits(initial.dtype, new.dtype)
            # (a Python number is no 0-d array: the value is a NumPy scalar as the body's is)
            return (new.dtype, shape, False, new.scalar)
        if weak or np.can_cast(dt, new.dtype, "safe"):
            return (new.dtype, shape, False, scalar and new.scalar)
        raise UserError(f"'{name}' is {dt} before the loop and {new.dtype} after its body; NumPy would change its "
                        "dtype from one iteration to the next: convert it with .astype before the loop", TypeError)

    def _coerce_result(self, new, carried_type, name):
        dt, shape, weak, scalar = carried_type
        if not isinstance(new, Var):
            new = self.b.const(dtypes.weak_to_dtype(new, dt) if is_weak(new) else np.asarray(new).astype(dt))
        return self.b.convert(new, dt) if new.dtype != dt else new

    def _zeros(self, carried_type, eqns) -> Var:
        """A value of this type (zeros), for a path that never reads it."""
        dt, shape, weak, scalar = carried_type
        env = self.b.env
        # (a size this path cannot compute, made on the other path or inside a region: any size serves here)
        computable = None if all(_of_arguments(env, d) for d in shape) else _computable_here(self.b, eqns)
        shape = tuple(0 if computable and not computable(d) else d for d in shape)
        with self.b.recording() as made:
            zero = self.b.emit1("const", [], dt, (), value=np.zeros((), dt), weak=weak, scalar=scalar)
            # one sized by the data may be one that does not fit (the reason the path does not read it): empty; one
            # with a size of its own (a joined one) that the other path defines: empty along it (codegen/shape.py)
            never_read = any(data_sized(env.find(d)) or _has_own_size(env.find(d)) for d in shape)
            params = {"never_read": True} if never_read else {}
            v = self.b.emit1("full", [zero], dt, shape, **params) if shape else zero
        eqns.extend(made)
        return v

    def _coerce_init(self, value, carried_type):
        dt = carried_type[0]
        if value is UNSET:
            return self._zeros(carried_type, self.b.eqns)
        if isinstance(value, Var):
            return self.b.convert(value, dt) if value.dtype != dt else value
        return self.b.const(dtypes.weak_to_dtype(value, dt) if is_weak(value) else np.asarray(value).astype(dt))

    def _const_type(self, value):
        arr = np.asarray(value)
        return Var(arr.dtype, arr.shape, weak=is_weak(value), scalar=arr.ndim == 0)

    def _stop_in_int64(self, start, stop, step: int) -> Var:
        """The loop's int64 upper bound. The index passes the last one by a step, which must not wrap past int64's
        largest value (range(2**62, 2**63 - 1, 2**60) never ended): a larger stop, known only at run time, is an
        OverflowError after the call, and the loop runs zero times instead."""
        top = np.iinfo(np.int64).max
        if not isinstance(stop, Var):
            if int(stop) > top - step + 1:
                raise UserError(f"range() with a stop of {int(stop)} and a step of {step}: the loop's int64 index "
                                "would pass 2**63 - 1", OverflowError)
            return self._int_var(stop)
        unsigned_start = isinstance(start, Var) and start.dtype.kind == "u" and start.dtype.itemsize == 8
        if (small_int(stop) or (step == 1 and stop.dtype.kind == "i")) and not unsigned_start:
            return self._int_var(stop)
        limit = (np.uint64 if stop.dtype.kind == "u" else np.int64)(top - step + 1)
        past = self.interp.numpy_call(np.greater, [stop, limit], {})
        if unsigned_start:    # (a uint64 start past int64 would wrap to a negative index: no zero-trip loop)
            past = self.interp.numpy_call(np.logical_or, [past, self.interp.numpy_call(
                np.greater, [start, np.uint64(top)], {})], {})
        self.b.check(past, OverflowError, f"range() with a step of {step}: the loop's int64 index would pass "
                                          "2**63 - 1 before reaching the stop")
        return self._int_var(self.interp.numpy_call(np.where, [past, self._int_var(start), self._int_var(stop)], {}))

    def _int_var(self, value) -> Var:
        if isinstance(value, Var):
            return self.b.convert(value, dtypes.INT64) if value.dtype != dtypes.INT64 else value
        return self.b.const(np.int64(value))


class _LoopState:
    """What a loop carries: names (frame locals) and arrays written in place (Buffers, whose versions live in the
    memory). One round of the body runs from region arguments standing for both."""

    def __init__(self, frame, memory, snapshot: dict, buffers: dict):
        self.frame, self.memory, self.snapshot, self.buffers = frame, memory, snapshot, buffers
        self.start = buffers
        self.positions: dict = {}            # name -> (Buffer, its _Position keys): views carried with their position
        self.position_initial: dict = {}     # _Position -> its value before the loop
        self.position_after: dict = {}       # _Position -> its value at the end of this round's body
        self.unpositioned: list = []         # names this round left something else than a view of their array
        self.position_tried: set = set()     # UNSET names once given a position (Control._position_unset)
        self.kept: dict = {}                 # name -> (its _Kept key, the form of its array before the loop)
        self.kept_initial: dict = {}         # _Kept -> True
        self.kept_after: dict = {}           # _Kept -> its value at the end of this round's body
        self.unkept: list = []               # names this round left an array the flag cannot follow
        self.kept_tried: set = set()         # names once given a flag (Control._carry_kept)

    def initial(self, n):
        if isinstance(n, _Position):
            return self.position_initial[n]
        if isinstance(n, _Kept):
            return self.kept_initial[n]
        return self.memory.version_in(self.buffers, n) if isinstance(n, Buffer) else self.snapshot[n]

    def after(self, n):
        if isinstance(n, _Position):
            return self.position_after[n]
        if isinstance(n, _Kept):
            return self.kept_after[n]
        return self.memory.current.get(n, _MISSING) if isinstance(n, Buffer) else self.frame.locals.get(n, _MISSING)

    @staticmethod
    def label(n) -> str:
        if isinstance(n, _Position):
            return f"the position of the view '{n.name}'"
        if isinstance(n, _Kept):
            return f"whether '{n.name}' is still the array it was before the loop"
        return f"the contents of {n.what}" if isinstance(n, Buffer) else n

    def positioned(self, b, run):
        """run() (a round of the body), then the positions of the carried views as it leaves them."""
        self.unpositioned = []
        value = run()
        for n, (anchor, keys) in self.positions.items():
            new = self.frame.locals.get(n)
            now = self.memory.view_anchor(new) if isinstance(new, Var) else None
            params = self.memory.view_params(b, new) if now is not None and anchor.same(now, b.env) else None
            if params is None:
                self.unpositioned.append(n)
            else:
                self.position_after.update(zip(keys, params))
        return value

    @staticmethod
    def arguments(live, types) -> dict:
        args = {}
        for n in live:
            v = Var(*types[n])
            if isinstance(n, Buffer):
                v.ref = Ref(n, v, (), n.contiguous)
            args[n] = v
        return args

    def enter(self, b, args: dict, aliases: dict, run):
        """Start a round: names and carried arrays bound to the region arguments, views of the carried arrays
        re-derived from them; a carried name that may alias an array depends on that array's version here."""
        self.frame.locals = {**self.snapshot, **{n: v for n, v in args.items()
                                                 if not isinstance(n, (Buffer, _Position, _Kept))}}
        self.start = State({**self.buffers, **{n: v for n, v in args.items() if isinstance(n, Buffer)}},
                           self.buffers.watermark)
        self.memory.restore(b, self.start)
        for n, v in args.items():
            if n in self.positions:
                anchor, keys = self.positions[n]
                self.memory.strided_view(anchor, v, [args[k] for k in keys])
            elif not isinstance(n, (Buffer, _Position, _Kept)):
                deps = aliases[n] | {buf for buf, _ in self.memory.deps(self.snapshot.get(n))
                                     if self.memory.existed(self.buffers, buf)}
                if deps:
                    v.ref = self.memory.alias(deps, _rebound(n), chosen=True)
                if n in self.kept:     # the array from before the loop where its flag says so (_carry_kept)
                    key, form = self.kept[n]
                    v.ref = self.memory.alias(deps, _kept_why(n), chosen=True)
                    v.ref.choice = ("choice", args[key], form, None)
        return run()

    def written_buffers(self) -> list:
        """Arrays from before the loop that this round wrote and that are not carried yet."""
        m = self.memory
        return [buf for buf in m.changed_since(self.start)
                if m.version_in(self.start, buf) is m.version_in(self.buffers, buf)]


@dataclass(frozen=True)
class _Kept:
    """Whether a carried name still holds the array it held before the loop (Control._carry_kept)."""
    name: str


@dataclass(frozen=True)
class _Position:
    """One value of the position of a view a loop carries (_LoopState.positions)."""
    name: str
    index: int


@dataclass
class _Joined:
    then: Var
    other: Var
    shape: tuple = None     # the joined value's (None: then's)


def join_shapes(env, first: tuple, second: tuple, name: str, message: str, branches: bool = False) -> tuple:
    """The shape of a value that is one of two values (an if's branches; a loop's value before and after its body,
    `first` being the carried one). Sizes of the same expression (or two equal ints) stay that size; sizes only the
    kernel knows (a selection's length), or whose expressions differ (`a[1:]` and `a[2:]`, `x` and `x[1:]` in a
    loop), make the joined value have a size of its own, read off it by codegen, which a loop keeps once it has one.
    (A guard that the two are equal made every call with different sizes a ValueError NumPy does not raise.) The
    branches of an `if` (`branches`) may also have a static size on one side (`a[:, None] if k >= 0 else
    a[None, :]`, `U[1:]` and `U[2:]` of an array made with a static shape, `x[None, 0]` and `x[1:3]`): a loop carries
    its first value's type, static there, but an if's value has a type of its own."""
    out = []
    for i, (a, c) in enumerate(zip(first, second)):
        found, other = env.find(a), env.find(c)
        if isinstance(found, Sym) and found.origin[0] == "joined":
            out.append(found)
        elif env.needs_kernel_check(a, c) or not isinstance(found, int) and not isinstance(other, int) \
                and not env.same_expression(a, c) \
                or branches and (isinstance(found, int) or isinstance(other, int)) and found != other:
            # (not with a static size on either side: a loop carries its first value's type, static there)
            out.append(_joined_sym(f"{name}.shape[{i}]", found, other))
        else:
            env.unify(a, c, message)
            out.append(a)
    return tuple(out)


def _joined_sym(name: str, *sides) -> Sym:
    """A size of its own for a joined value, read off it by codegen. One joined from a size computed from the data
    stays data-sized (shapes.data_sized): arrays made from it are checked against memory in the kernel
    (`a = np.ones((k, 2))` after a check, then `a @ a.T`: the product's size was checked nowhere, and its failed
    malloc crashed the process)."""
    return Sym(name, ("joined", "data") if any(data_sized(d) for d in sides) else ("joined",))


_NO = object()     # Control._form: an array the call cannot make


def _kernels(form) -> bool:
    """A form of the kernel's value only (no path gives the caller's array)."""
    return form is None or form[0] == "local"


def _form_vars(form) -> list:
    if form is None or form[0] in ("argument", "steps", "local", "python"):
        return []
    if form[0] == "view":
        return list(form[2])
    return [form[1]] + _form_vars(form[2]) + _form_vars(form[3])


def _form_rebuild(form, values, memory):
    """The form with its Vars replaced by the next `values` (their joined values), in _form_vars' order; a local
    array with its version after the join."""
    if form is None or form[0] in ("argument", "steps", "python") or len(form) == 3 and form[0] == "local":
        return form
    if form[0] == "local":
        return ("local", form[1], memory.version_in(memory.current, form[1]))
    if form[0] == "view":
        return ("view", form[1], [next(values) for _ in form[2]])
    flag = next(values)
    return ("choice", flag, _form_rebuild(form[2], values, memory), _form_rebuild(form[3], values, memory))


def _leaf_pairs(t, e) -> list:
    """The (then, else) pairs of the run-time leaves of two values in the order join_values joins them (one side
    UNSET where that path never reads the value)."""
    if isinstance(t, (list, tuple)) and isinstance(e, (list, tuple)) and type(t) is type(e) and len(t) == len(e):
        return [p for a, c in zip(t, e) for p in _leaf_pairs(a, c)]
    if isinstance(t, dict) and isinstance(e, dict) and t.keys() == e.keys():
        return [p for k in t for p in _leaf_pairs(t[k], e[k])]
    if t is UNSET or e is UNSET:
        known = e if t is UNSET else t
        if isinstance(known, (list, tuple, dict)) and contains_var(known):
            items = known.values() if isinstance(known, dict) else known
            return [p for v in items for p in (_leaf_pairs(UNSET, v) if t is UNSET else _leaf_pairs(v, UNSET))]
        return [(t, e)] if isinstance(known, Var) else []
    return [(t, e)] if isinstance(t, Var) or isinstance(e, Var) or not _same_constant(t, e) else []


@dataclass
class _Shared:
    value: object


def _flatten_joined(joined):
    t, e, types = [], [], []

    def walk(j):
        if isinstance(j, _Joined):
            t.append(j.then)
            e.append(j.other)
            types.append((j.then.dtype, j.shape or j.then.shape, j.then.weak and j.other.weak,
                          j.then.scalar and j.other.scalar))
        elif isinstance(j, (list, tuple)):
            for x in j:
                walk(x)
        elif isinstance(j, dict):
            for x in j.values():
                walk(x)
    if isinstance(joined, list) and not isinstance(joined, _Joined):
        for j in joined:
            walk(j)
    else:
        walk(joined)
    return t, e, types


def _sized_outside(b, types: list) -> list:
    """The scf.if results' types with sizes the code after it can compute: a size made of values computed inside a
    branch (`np.zeros((k + 1, 2))` in a statement guarded by a check, with `k + 1` and the array's memory limit
    computed there) gets a size of its own, read off the result (codegen), since those values are not visible after
    the if (it was a KeyError in codegen)."""
    computable = None
    out = []
    for dt, shape, weak, scalar in types:
        dims = []
        for i, d in enumerate(shape):
            d = b.env.find(d)
            if not _of_arguments(b.env, d):
                computable = computable or _computable_here(b, [])
                if not computable(d):
                    d = _joined_sym(f"joined.shape[{i}]", d)
            dims.append(d)
        out.append((dt, tuple(dims), weak, scalar))
    return out


def _of_arguments(env, d) -> bool:
    """A static size, or one made of argument dims only: computable anywhere in the kernel."""
    d = env.find(d)
    if not isinstance(d, Sym) or d.origin[0] == "arg":
        return True
    return d.origin[0] in DIM_OPS and all(_of_arguments(env, o) for o in d.origin[1:])


def _computable_here(b, region: list):
    """Whether the code being emitted (in `region`, a block not yet attached, inside b's current one) can compute a
    size: one made of argument dims, of run-time ints it can see, and of sizes read off arrays it can see."""
    values = {id(v) for v in b.program.inputs}
    read_off = set()
    for e in [*region, *b.visible()]:
        for v in e.outputs:
            values.add(id(v))
            read_off.update(id(b.env.find(d)) for d in v.shape if isinstance(d, Sym))
    for v in b.program.inputs:
        read_off.update(id(b.env.find(d)) for d in v.shape if isinstance(d, Sym))

    def computable(d) -> bool:
        d = b.env.find(d)
        if not isinstance(d, Sym) or d.origin[0] == "arg":
            return True
        kind = d.origin[0]
        if kind in ("var", "input"):
            return id(d.origin[-1]) in values
        if kind in DIM_OPS:
            return all(computable(o) for o in d.origin[1:])
        return id(d) in read_off    # ("joined", "result"): read off a value
    return computable


def _rebuild(j, outs):
    if isinstance(j, _Joined):
        return next(outs)
    if isinstance(j, _Shared):
        return j.value
    if isinstance(j, (list, tuple)):
        return type(j)(_rebuild(x, outs) for x in j)
    if isinstance(j, dict):
        return {k: _rebuild(x, outs) for k, x in j.items()}
    return j


def _may_run_long(eqns) -> bool:
    """Loops, and calls of functions with a while loop: after a failed check their values are never read, but a
    loop over values NumPy never computed could run long, or forever."""
    for e in eqns:
        if e.prim in ("for", "while"):
            return True
        if e.prim == "call" and _may_run_long(e.params["_program"].eqns):
            return True
        if any(isinstance(p, Block) and _may_run_long(p.eqns) for p in e.params.values()):
            return True
    return False


def _writes_guarded(eqns) -> bool:
    """A statement that only computes and writes, each write under its own `if not failed` (Builder.write): no
    loop, call or branch of its own. Its values are never read on the failed path."""
    return not any(e.prim == "call" or (any(isinstance(p, Block) for p in e.params.values())
                                        and not e.params.get("guards_write")) for e in eqns)


def _makes_data_sized(eqns, env) -> bool:
    """Arrays of more than one dim sized by the data (Builder._check_data_sized): after a failed check the kernel
    must not allocate them (each may not fit in memory), nor read the stand-ins it has in their place."""
    for e in eqns:
        if any(v.ndim > 1 and any(data_sized(env.find(d)) for d in v.shape) for v in e.inputs + e.outputs
               if isinstance(v, Var)):
            return True
        if any(isinstance(p, Block) and _makes_data_sized(p.eqns, env) for p in e.params.values()):
            return True
    return False


def _keep_size(b, joined, computed) -> None:
    """A run-time int a guarded statement binds (`n = x.shape[0] * k` after a check) is still that dim after the join
    (the failed path never reads it), when the dim is made of values visible after the statement: so it can size
    arrays (a reshape can compare it) instead of becoming an unknown int."""
    if isinstance(joined, (tuple, list)) and isinstance(computed, (tuple, list)) and len(joined) == len(computed):
        for j, c in zip(joined, computed):       # (a shape: a tuple of them)
            _keep_size(b, j, c)
        return
    size = getattr(computed, "size_of", None)
    if not isinstance(joined, Var) or not isinstance(computed, Var) or size is None:
        return
    visible = {id(v) for v in b.program.inputs} | {id(v) for e in b.visible() for v in e.outputs}
    if all(id(v) in visible for v in _dim_vars(size)):
        joined.size_of = size


def _has_own_size(d) -> bool:
    """Whether a dim is (or is computed from) a size of a joined value's own (join_shapes)."""
    return isinstance(d, Sym) and (d.origin[0] == "joined" or any(_has_own_size(o) for o in d.origin[1:]))


def _dim_vars(d):
    """The run-time values a dim expression is computed from."""
    if isinstance(d, Sym):
        for o in d.origin[1:]:
            if isinstance(o, Var):
                yield o
            else:
                yield from _dim_vars(o)


def _read_off_sizes(env, d):
    """The sizes a dim expression reads off values (an if's joined size, an outlined call's result size)."""
    d = env.find(d)
    if isinstance(d, Sym):
        if d.origin[0] in DIM_OPS:
            for o in d.origin[1:]:
                yield from _read_off_sizes(env, o)
        elif d.origin[0] not in ("arg", "input", "var"):
            yield d


def _rebound(name: str) -> str:
    return f"'{name}', which a loop rebinds while arrays are written"


def _written_name(stmt) -> str | None:
    """The name whose array a statement writes into: `v[...] = ...`, `v[...][...] op= ...`, `v op= ...`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AugAssign):
        target = stmt.target
    else:
        return None
    if isinstance(stmt, ast.Assign) and not isinstance(target, ast.Subscript):
        return None
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _kept_why(name: str) -> str:
    return (f"'{name}', which a run-time loop rebinds to new arrays, and which is still the array it was before "
            "the loop when the loop runs zero times")


def _bounds(rng: RuntimeRange):
    """[lo, hi) of a loop index over range(start, stop) with a positive step, as dims; None when unknown."""
    from .elementwise import as_dim
    lo, hi = as_dim(rng.start), as_dim(rng.stop)
    return None if lo is None or hi is None else (lo, hi)


def _is_array(v) -> bool:
    """A run-time ndarray the compiler follows (not a scalar, not an alias it cannot follow)."""
    return isinstance(v, Var) and not v.scalar and not v.weak and not isinstance(v.ref, Alias)


def _same_view(t, e, before) -> bool:
    """Two values that are the same view (the same chain of view primitives) of an array that existed before."""
    if not (isinstance(t, Var) and isinstance(e, Var) and isinstance(t.ref, Ref) and isinstance(e.ref, Ref)):
        return False
    return t.ref.buffer is e.ref.buffer and t.ref.buffer.initial.id < before.watermark and \
        len(t.ref.path) == len(e.ref.path) and all(a is c for a, c in zip(t.ref.path, e.ref.path))


def _type_of(v: Var):
    return (v.dtype, v.shape, v.weak, v.scalar)


_KIND_ORDER = "biufc"


def _python_number_fits(value, dt: np.dtype, where: str) -> None:
    """A Python number that meets a run-time value of dtype `dt` at a join (a branch, a loop's start or body)
    becomes a value of `dt`, where NumPy keeps each path's own type. Of another kind (`v = 0.5` joined with an
    int32 was 0 on the path that kept the number) or past `dt`'s range (1e10 as a float16 is inf, 1e-50 as a float32
    0) that is no longer NumPy's value: refused. A number of the same kind is rounded to `dt` (`0.1` as a float32),
    the known difference semantics.md describes."""
    kind = np.asarray(value).dtype.kind
    # (an int 0 or 1 beside a bool, `found = 0` then `found = x[i] > 0`, keeps its value: the exact check below)
    fits = _KIND_ORDER.index(kind) <= _KIND_ORDER.index("i" if dt.kind == "u" else dt.kind) or \
        kind in "iu" and dt.kind == "b"
    if fits:
        with np.errstate(all="ignore"):
            try:
                converted = dt.type(value)
            except OverflowError:
                converted = None
        fits = converted is not None and (kind in "iub" and converted.item() == value or kind in "fc" and
                                          bool(np.all(np.isfinite(converted) | ~np.isfinite(value)))
                                          and (converted != 0 or value == 0))     # (1e-50 as a float32 is 0)
    if not fits:
        raise UserError(f"the Python number {value!r} meets a run-time {dt} value {where}; NumPy keeps the Python "
                        f"number on the path where it stays, and a {dt} cannot hold it: convert it first "
                        f"(np.{dt}({value!r})) or make the other value a Python number", TypeError)


def _tag_python_initials(state, args: dict) -> dict:
    """Each carried name still of the weak type of the Python number it held before the loop (a first round) knows
    that number (Control._python_initial)."""
    for n, v in args.items():
        initial = state.initial(n) if isinstance(n, str) else None
        if v.weak and not isinstance(initial, Var) and _numeric(initial) and is_weak(initial):
            v.python_initial = initial
    return args


def _python_value_fits(weak: np.dtype, dt: np.dtype) -> None:
    """The same for a Python number known only at run time (a float argument): refused where its kind is above
    `dt`'s (a Python float meeting an int32)."""
    if _KIND_ORDER.index(weak.kind) > _KIND_ORDER.index("i" if dt.kind == "u" else dt.kind):
        name = {"f": "float", "c": "complex"}.get(weak.kind, "number")
        raise UserError(f"a Python {name} meets a run-time {dt} value here; NumPy keeps the Python {name} where the "
                        f"loop leaves it, which a {dt} cannot hold: convert it first (np.{dt}(...))", TypeError)


def _numeric(v) -> bool:
    return isinstance(v, (bool, int, float, np.generic, np.ndarray)) and not isinstance(v, str)


def _same_constant(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    try:
        return bool(a == b)
    except Exception:
        return False
