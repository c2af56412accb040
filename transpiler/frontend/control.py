"""Control flow on run-time values: `if` -> scf.if, `for i in range(n)` with a run-time n -> scf.for, `while`
with a run-time condition -> scf.while.

Each region is interpreted once (per fixpoint round) with its own list of primitives. The variables a construct
assigns are found by dataflow: a name whose value differs between the branches of an `if`, or that a loop body
reassigns, is a result of the primitive (loop-carried for loops). At a join the types must agree: a Python scalar
meeting a run-time scalar takes its dtype (as NumPy's weak promotion would), a loop-carried value may widen once
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
from .builder import is_weak
from .values import RuntimeRange, contains_var

_MISSING = object()
_MAX_ROUNDS = 4


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

    @property
    def b(self):
        return self.interp.b

    # ---- regions ------------------------------------------------------------------------------------------
    def record(self, run):
        """Interpret `run()` into a fresh region; the checks it raised become the region's own."""
        checks = self.b.program.checks
        n = len(checks)
        with self.b.recording() as eqns:
            value = run()
        local = checks[n:]
        del checks[n:]
        return eqns, value, local

    def condition(self, value) -> Var:
        """A run-time truth value as a 0-d bool (NumPy: only size-1 arrays have one)."""
        if value.ndim and not all(self.b.env.find(d) == 1 for d in value.shape):
            raise UserError("The truth value of an array with more than one element is ambiguous. Use a.any() or "
                            "a.all()", ValueError)
        from .shape_ops import reshape
        v = reshape(self.b, value, ()) if value.ndim else value
        return self.b.convert(v, dtypes.BOOL) if v.dtype != dtypes.BOOL else v

    # ---- if ---------------------------------------------------------------------------------------------------
    def run_if(self, stmt: ast.If, frame, test: Var, rest: list):
        """scf.if; with a `return` in a branch, `rest` (the statements after the if) runs in both branches."""
        cond = self.condition(test)
        with_continuation = contains_return(stmt.body) or contains_return(stmt.orelse)
        tail = rest if with_continuation else []
        snapshot = dict(frame.locals)
        branches = []
        for body in (stmt.body, stmt.orelse):
            frame.locals = dict(snapshot)
            eqns, returned, checks = self.record(lambda: self._run_branch(body + tail, frame, with_continuation))
            branches.append((eqns, returned, dict(frame.locals), checks))
        frame.locals = dict(snapshot)
        (t_eqns, t_ret, t_locals, t_checks), (e_eqns, e_ret, e_locals, e_checks) = branches
        if with_continuation:
            t_val, e_val = (r if r is not _MISSING else None for r in (t_ret, e_ret))
            joined = self.join_values(t_val, e_val, "the returned value", t_eqns, e_eqns)
            outs = self.emit_if(cond, t_eqns, e_eqns, joined, t_checks, e_checks)
            return True, self.rebuild(joined, outs)
        names = [n for n in sorted(set(t_locals) | set(e_locals))
                 if t_locals.get(n, _MISSING) is not e_locals.get(n, _MISSING)]
        pairs = []
        for n in names:
            t, e = t_locals.get(n, _MISSING), e_locals.get(n, _MISSING)
            if t is _MISSING or e is _MISSING or isinstance(t, Undefined) or isinstance(e, Undefined):
                frame.locals[n] = Undefined(n, f"'{n}' is assigned on only one path of the run-time `if` at line "
                                               f"{stmt.lineno}")
                continue
            if not contains_var(t) and not contains_var(e) and _same_constant(t, e):
                frame.locals[n] = t
                continue
            pairs.append((n, self.join_values(t, e, f"variable '{n}'", t_eqns, e_eqns)))
        outs = self.emit_if(cond, t_eqns, e_eqns, [j for _, j in pairs], t_checks, e_checks)
        for (n, joined), value in zip(pairs, self.rebuild_all([j for _, j in pairs], outs)):
            frame.locals[n] = value
        return False, None

    def run_ifexp(self, e: ast.IfExp, frame, test: Var):
        """`a if c else b` with a run-time c: both sides in their own region, joined like an `if`."""
        cond = self.condition(test)
        t_eqns, t_val, t_checks = self.record(lambda: self.interp.eval(e.body, frame))
        e_eqns, e_val, e_checks = self.record(lambda: self.interp.eval(e.orelse, frame))
        joined = self.join_values(t_val, e_val, "the conditional expression", t_eqns, e_eqns)
        return self.rebuild(joined, self.emit_if(cond, t_eqns, e_eqns, joined, t_checks, e_checks))

    def _run_branch(self, stmts, frame, catch_return: bool):
        from .infer import _Return
        try:
            self.interp.exec_block(stmts, frame)
        except _Return as r:
            if not catch_return:
                raise
            return r.value
        return _MISSING

    def emit_if(self, cond, t_eqns, e_eqns, joined, t_checks, e_checks):
        """Append the scf.if primitive; its results are the joined values' leaves, then one flag per check."""
        t_res, e_res, types = _flatten_joined(joined)
        t_flags, e_flags, kinds = self._check_results(t_checks, e_checks, t_eqns, e_eqns)
        outs = [Var(dt, shape, weak=weak, scalar=scalar) for dt, shape, weak, scalar in types]
        flags = [Var(dtypes.BOOL, ()) for _ in kinds]
        self.b.eqns.append(Eqn("if", [cond], outs + flags, {
            "then": Block([], t_eqns, t_res + t_flags), "else": Block([], e_eqns, e_res + e_flags)}, self.b.loc))
        for flag, (kind, message) in zip(flags, kinds):
            self.b.program.checks.append((flag, kind, message))
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
        if not isinstance(t, Var) and not isinstance(e, Var):
            if _same_constant(t, e):
                return _Shared(t)
            if not (_numeric(t) and _numeric(e)):
                raise UserError(f"{what} has different compile-time values on the two paths of a run-time branch "
                                f"({t!r} and {e!r})", TypeError)
        tv, ev = self._to_var(t, e, t_eqns), self._to_var(e, t, e_eqns)
        self._same_type(tv, ev, what)
        return _Joined(tv, ev)

    def _to_var(self, value, other, eqns) -> Var:
        if isinstance(value, Var):
            return value
        if not _numeric(value):
            raise UserError(f"cannot merge the compile-time value {value!r} with a run-time value", TypeError)
        dt = other.dtype if isinstance(other, Var) and is_weak(value) else np.asarray(value).dtype
        arr = np.asarray(dtypes.weak_to_dtype(value, dt) if is_weak(value) else value).astype(dt)
        v = Var(arr.dtype, arr.shape, weak=is_weak(value) and not isinstance(other, Var),
                scalar=arr.ndim == 0)
        eqns.append(Eqn("const", [], [v], {"value": arr}, self.b.loc))
        return v

    def _same_type(self, a: Var, c: Var, what: str) -> None:
        if a.dtype != c.dtype or a.ndim != c.ndim:
            raise UserError(f"{what} is {a.type_text()} on one path of a run-time branch and {c.type_text()} on the "
                            f"other; make both the same dtype and rank (e.g. with .astype)", TypeError)
        for x, y in zip(a.shape, c.shape):
            self.b.env.unify(x, y, f"{what} has different shapes on the two paths of a run-time branch")

    def rebuild(self, joined, outs: list):
        it = iter(outs)
        return _rebuild(joined, it)

    def rebuild_all(self, joined_list, outs: list) -> list:
        it = iter(outs)
        return [_rebuild(j, it) for j in joined_list]

    # ---- loops ------------------------------------------------------------------------------------------------
    def run_for(self, stmt: ast.For, frame, rng: RuntimeRange) -> None:
        step = rng.step
        if isinstance(step, Var) or not isinstance(step, (int, np.integer)) or step <= 0:
            raise UserError("a loop over range() with a run-time bound needs a positive step known at compile time",
                            TypeError)
        targets = assigned_names([ast.Assign(targets=[stmt.target], value=ast.Constant(0))])
        carried = self._carried(stmt.body, frame, exclude=targets)

        def body(args):
            index = Var(dtypes.INT64, (), weak=True)
            self.interp.assign(stmt.target, index, frame)
            self._loop_body(stmt.body, frame)
            return index
        outs, induction, blk = self._fixpoint(carried, frame, body, "loop")
        self.b.eqns.append(Eqn("for", [self._int_var(rng.start), self._int_var(rng.stop)] + blk.pop("inits"),
                               outs, {"step": int(step), "body": blk["body"]}, self.b.loc))
        self._finish_loop(blk["live"], outs, blk["flags"], frame, targets, stmt)

    def run_while(self, stmt: ast.While, frame) -> None:
        carried = self._carried(stmt.body, frame, exclude=set())
        cond_holder = {}

        def before(args):
            eqns, test, checks = self.record(lambda: self.interp.eval(stmt.test, frame))
            if not isinstance(test, Var):
                raise UserError("a run-time while loop's condition became a compile-time value", TypeError)
            with self.b.recording() as more:
                cond = self.condition(test)
            if checks:
                raise UserError("indexing checks in a while condition are not supported", TypeError)
            cond_holder["block"] = Block(list(args), eqns + more, [cond])

        def body(args):
            self._loop_body(stmt.body, frame)
            return None
        outs, _, blk = self._fixpoint(carried, frame, body, "loop", before=before, cond_holder=cond_holder)
        self.b.eqns.append(Eqn("while", blk.pop("inits"), outs, {"cond": cond_holder["block"], "body": blk["body"]},
                               self.b.loc))
        self._finish_loop(blk["live"], outs, blk["flags"], frame, set(), stmt)

    def _loop_body(self, stmts, frame) -> None:
        from .infer import _Break, _Continue
        try:
            self.interp.exec_block(stmts, frame)
        except (_Break, _Continue):
            raise UserError("break and continue are not supported in a loop with a run-time trip count or "
                            "condition", SyntaxError) from None

    def _carried(self, body, frame, exclude: set) -> list:
        return [n for n in sorted(assigned_names(body) - exclude)
                if n in frame.locals and not isinstance(frame.locals[n], Undefined)]

    def _fixpoint(self, carried: list, frame, run_body, what: str, before=None, cond_holder=None):
        """Interpret the loop with carried values as region arguments until their types stop changing."""
        types = {}
        for n in carried:
            v = frame.locals[n]
            if not isinstance(v, Var) and not _numeric(v):
                types[n] = None          # a compile-time value: carried only if the body changes it
            else:
                types[n] = _type_of(v if isinstance(v, Var) else self._const_type(v))
        snapshot = dict(frame.locals)
        for _ in range(_MAX_ROUNDS):
            live = [n for n in carried if types[n] is not None]
            if before is not None:        # a while loop's condition region has arguments of its own
                cond_args = {n: Var(*types[n]) for n in live}
                frame.locals = {**snapshot, **cond_args}
                before(list(cond_args.values()))
            args = {n: Var(*types[n]) for n in live}
            frame.locals = {**snapshot, **args}
            eqns, induction, checks = self.record(lambda: run_body(args))
            after = dict(frame.locals)
            changed = False
            results = []
            for n in carried:
                new = after.get(n, _MISSING)
                if types[n] is None:
                    if new is not snapshot[n] and not _same_constant(new, snapshot[n]):
                        if not _numeric(new) and not isinstance(new, Var):
                            raise UserError(f"the loop changes the compile-time value of '{n}'", TypeError)
                        types[n] = _type_of(new) if isinstance(new, Var) else _type_of(self._const_type(new))
                        changed = True
                    continue
                if isinstance(new, Undefined) or new is _MISSING:
                    raise UserError(f"'{n}' is not defined on every path of the loop body", NameError)
                widened = self._widen(types[n], new, n, snapshot[n])
                if widened != types[n]:
                    types[n], changed = widened, True
                    continue
                results.append((n, new))
            if not changed:
                break
        else:
            raise UserError(f"the types of the variables the {what} carries do not settle", TypeError)
        frame.locals = dict(snapshot)
        live = [n for n in carried if types[n] is not None]
        with self.b.recording() as tail:
            yielded = [self._coerce_result(new, types[n], n) for n, new in results]
        flag_args = [Var(dtypes.BOOL, ()) for _ in checks]
        with self.b.recording() as merge:
            flag_out = [self.interp.numpy_call(np.logical_or, [a, f], {}) for a, (f, _, _) in zip(flag_args, checks)]
        inits = [self._coerce_init(snapshot[n], types[n]) for n in live]
        inits += [self.b.const(np.asarray(False)) for _ in checks]
        outs = [Var(*types[n]) for n in live] + [Var(dtypes.BOOL, ()) for _ in checks]
        leading = [induction] if isinstance(induction, Var) else []
        body = Block(leading + list(args.values()) + flag_args, eqns + tail + merge, yielded + flag_out)
        if cond_holder is not None:
            cond_holder["block"].args.extend(Var(dtypes.BOOL, ()) for _ in checks)
        return outs, induction, {"body": body, "inits": inits, "flags": [(k, m) for _, k, m in checks],
                                 "live": live}

    def _finish_loop(self, live, outs, flags, frame, targets, stmt) -> None:
        for n, v in zip(live, outs):
            frame.locals[n] = v
        for flag, (kind, message) in zip(outs[len(live):], flags):
            self.b.program.checks.append((flag, kind, message))
        for t in targets:
            frame.locals[t] = Undefined(t, f"the loop variable '{t}' of the run-time loop at line {stmt.lineno} "
                                           "is not available after it")

    def _widen(self, carried_type, new, name: str, initial):
        dt, shape, weak, scalar = carried_type
        if not isinstance(new, Var):
            if _numeric(new):
                return carried_type
            raise UserError(f"'{name}' becomes a {type(new).__name__} inside the loop", TypeError)
        if new.ndim != len(shape):
            raise UserError(f"'{name}' changes rank inside the loop ({len(shape)} -> {new.ndim})", TypeError)
        for a, c in zip(shape, new.shape):
            self.b.env.unify(a, c, f"'{name}' changes shape inside the loop")
        if new.dtype == dt:
            return (dt, shape, weak and new.weak, scalar and new.scalar)
        if weak or np.can_cast(dt, new.dtype, "safe"):
            return (new.dtype, shape, False, scalar and new.scalar)
        raise UserError(f"'{name}' is {dt} before the loop and {new.dtype} after its body; NumPy would change its "
                        "dtype from one iteration to the next: convert it with .astype before the loop", TypeError)

    def _coerce_result(self, new, carried_type, name):
        dt, shape, weak, scalar = carried_type
        if not isinstance(new, Var):
            new = self.b.const(dtypes.weak_to_dtype(new, dt) if is_weak(new) else np.asarray(new).astype(dt))
        return self.b.convert(new, dt) if new.dtype != dt else new

    def _coerce_init(self, value, carried_type):
        dt = carried_type[0]
        if isinstance(value, Var):
            return self.b.convert(value, dt) if value.dtype != dt else value
        return self.b.const(dtypes.weak_to_dtype(value, dt) if is_weak(value) else np.asarray(value).astype(dt))

    def _const_type(self, value):
        arr = np.asarray(value)
        return Var(arr.dtype, arr.shape, weak=is_weak(value), scalar=arr.ndim == 0)

    def _int_var(self, value) -> Var:
        if isinstance(value, Var):
            return self.b.convert(value, dtypes.INT64) if value.dtype != dtypes.INT64 else value
        return self.b.const(np.int64(value))


@dataclass
class _Joined:
    then: Var
    other: Var


@dataclass
class _Shared:
    value: object


def _flatten_joined(joined):
    t, e, types = [], [], []

    def walk(j):
        if isinstance(j, _Joined):
            t.append(j.then)
            e.append(j.other)
            types.append((j.then.dtype, j.then.shape, j.then.weak and j.other.weak, j.then.scalar and j.other.scalar))
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


def _type_of(v: Var):
    return (v.dtype, v.shape, v.weak, v.scalar)


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
